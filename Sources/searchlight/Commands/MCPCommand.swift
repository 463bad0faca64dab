import Assistant
import Foundation
import QueryEngine
import SearchIndex

/// `searchlight mcp`: serves the search tool over the Model Context Protocol on stdio.
enum MCPCommand: Command {
  static let name = "mcp"
  static let abstract = "Serve the search tool to any MCP client (JSON-RPC 2.0 over stdio, one message per line)."
  static let usage = "mcp --db FILE [--guide focused|complete|profile:...] [--stages DIR] [--protection CLASS,...]"
  static let discussion = """
    stdout carries protocol messages only; logs go to stderr. Register it with a client, e.g.
      {"mcpServers":{"searchlight":{"command":"searchlight","args":["mcp","--db","/path/items.db"]}}}
    """
  static let options: [OptionSpec] = QuerySetup.options + [
    OptionSpec(name: "guide", kind: .value, valueName: "LEVEL", help: "Tool guidance: focused, complete (default) or profile:..."),
  ]

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    let guidance: ToolGuidance
    do { guidance = try ToolGuidance(parsing: arguments.value("guide") ?? "complete") } catch {
      throw UsageError(message: error.message, command: name)
    }
    let setup = try QuerySetup(arguments, command: name)
    let definition = try ToolSchemaGenerator(index: setup.index, registry: setup.registry, scope: setup.options.scope).tool(guidance)
    let output = OutputLock()
    let server = MCPServer(
      tool: SearchTool(executor: setup.executor, options: setup.options), toolDefinition: definition,
      send: { output.write($0 + "\n") }, log: { Terminal.err("searchlight mcp: \($0)\n") })
    // A message over the limit is refused as soon as the limit passes, without reading the
    // rest of it into memory; the server goes on with the next line.
    var reader = LineReader(handle: FileHandle.standardInput, maximumLineLength: MCPServer.maximumMessageBytes)
    while true {
      let line: [UInt8]?
      do { line = try reader.nextLine() } catch is LineReader.LineTooLong {
        server.refuseOversizedMessage()
        continue
      }
      guard let line else { break }
      server.handle(String(decoding: line, as: UTF8.self))
    }
    server.waitForRunningCalls()
    return .success
  }
}

/// Serialises writes to stdout so responses from concurrent tool calls never interleave.
final class OutputLock: @unchecked Sendable {
  // @unchecked: the lock guards the only state, the shared stdout handle.
  private let lock = NSLock()
  func write(_ text: String) {
    lock.lock()
    defer { lock.unlock() }
    FileHandle.standardOutput.write(Data(text.utf8))
  }
}
