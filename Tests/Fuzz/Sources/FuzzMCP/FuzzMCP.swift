import Assistant
import CFuzzer
import Foundation
import QueryEngine
import SearchIndex
import Stages

/// One MCP connection's worth of messages: each input line is a JSON-RPC message handed to
/// the server as `searchlight mcp` hands it a line (initialize, tools/list, tools/call with
/// any arguments, resources/read, garbage). Every message gets an answer or is ignored as a
/// notification; nothing may crash. The index, the tool and its definition are made once per
/// process; each input is a connection of its own (a new `MCPServer`, not yet initialised),
/// so an input means the same thing whatever ran before it.
let connection: (tool: SearchTool, definition: JSONValue) = {
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-mcp-\(getpid())")
  try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  let index = try! SearchIndex(path: folder.appendingPathComponent("mcp.db").path)
  try! index.indexSearchableItems([
    SearchableItem(uniqueIdentifier: "a", domainIdentifier: "notes", contentType: "note",
                   attributeSet: ["title": "Orion retrospective", "textContent": "What went wrong at the launch.", "rating": 4]),
    SearchableItem(uniqueIdentifier: "b", domainIdentifier: "trails", contentType: "trail", protectionClass: "private",
                   attributeSet: ["title": "Hidden trail", "stateOrProvince": "CA"]),
  ])
  atexit { try? FileManager.default.removeItem(at: FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-mcp-\(getpid())")) }
  let options = QueryOptions(clock: QueryClock(now: Date(timeIntervalSince1970: 1_795_000_000), timeZone: TimeZone(identifier: "UTC")!))
  let registry = StandardLibrary.registry()
  let tool = SearchTool(executor: QueryExecutor(index: index, registry: registry), options: options, maximumResultCount: 5)
  return (tool, try! ToolSchemaGenerator(index: index, registry: registry, scope: options.scope).tool(.focused))
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMCP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data else { return 0 }
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  let server = MCPServer(tool: connection.tool, toolDefinition: connection.definition, send: { _ in })
  for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
    if line.utf8.count > MCPServer.maximumMessageBytes {
      server.refuseOversizedMessage()
    } else {
      server.handle(String(line))
    }
  }
  // Tool calls run on a queue; each input is finished before the next.
  server.waitForRunningCalls()
  return 0
}

@_cdecl("FuzzMCP_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
  var argc = argc
  var argv = argv
  return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzMCP(data, size) }
}
