import Foundation
import Testing

/// `searchlight mcp` as a client runs it: a process with pipes, one message per line, each
/// answer read before the next question is written (so the server must answer lines as they
/// arrive, not at the end of input).
@Suite struct MCPCommandTests {
  final class Session {
    let process = Process()
    let input = Pipe()
    let output = Pipe()
    let errors = Pipe()
    var buffer = Data()

    init(db: String, directory: URL) throws {
      process.executableURL = CLI.executable
      process.arguments = ["mcp", "--db", db, "--guide", "focused"]
      process.currentDirectoryURL = directory
      var environment = ProcessInfo.processInfo.environment
      environment["SEARCHLIGHT_NOW"] = "2026-11-29T12:00:00Z"
      process.environment = environment
      process.standardInput = input
      process.standardOutput = output
      process.standardError = errors
      try process.run()
    }

    func send(_ line: String) {
      input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// The next line the server writes.
    func receive() -> String? {
      while true {
        if let newline = buffer.firstIndex(of: 0x0A) {
          let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
          buffer.removeSubrange(buffer.startIndex...newline)
          return line
        }
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { return nil }
        buffer.append(chunk)
      }
    }

    func finish() -> Int32 {
      try? input.fileHandleForWriting.close()
      process.waitUntilExit()
      return process.terminationStatus
    }
  }

  @Test func aClientHandshakeListCallAndRepairOverStdio() throws {
    try Workspace.with { workspace in
      try workspace.write("items.jsonl", """
        {"id":"a","domain":"notes","attributes":{"title":"Kitchen remodel quote","textContent":"The quote was 38,400 dollars."}}
        {"id":"b","domain":"notes","protectionClass":"private","attributes":{"title":"Kitchen salary notes"}}

        """)
      #expect(try workspace.run("index", "--db", "i.db", "items.jsonl").status == 0)
      let session = try Session(db: "i.db", directory: workspace.directory)
      session.send(#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#)
      let initialize = try #require(session.receive())
      #expect(initialize.contains(#""protocolVersion":"2025-11-25""#))
      session.send(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
      session.send(#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#)
      let list = try #require(session.receive())
      #expect(list.contains(#""name":"search_items""#))
      session.send(#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_items","arguments":{"query":{"type":"search","value":{"root":{"type":"allText","value":{"terms":["kitchen"]}}}}}}}"#)
      let call = try #require(session.receive())
      #expect(call.contains(#""isError":false"#))
      #expect(call.contains(#""id":"a""#))
      #expect(!call.contains(#""id":"b""#), "a protected item never reaches the client")
      session.send(#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search_items","arguments":{"query":{"type":"search","value":{"root":{"type":"allText","value":{}}}}}}}"#)
      let bad = try #require(session.receive())
      #expect(bad.contains(#""isError":true"#))
      #expect(bad.contains("$.query.value.root.value.terms"))
      session.send("{not json")
      let parseError = try #require(session.receive())
      #expect(parseError.contains(#""code":-32700"#))
      session.send(#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#)
      #expect(try #require(session.receive()) == #"{"jsonrpc":"2.0","id":5,"result":{}}"#)
      #expect(session.finish() == 0)
      let log = String(decoding: session.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      #expect(!log.contains("{\"jsonrpc\""), "protocol messages never go to stderr")
    }
  }
}
