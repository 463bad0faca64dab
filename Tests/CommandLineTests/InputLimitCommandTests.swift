import Foundation
import Testing
@testable import SearchIndex

/// Input limits through the binary: an endless or overlong input is a data error naming its
/// line, in bounded time, and writes nothing; MCP refuses an oversized message and goes on.
@Suite struct InputLimitCommandTests {
  @Test func indexingAnEndlessFileIsADataErrorAtLineOne() throws {
    try Workspace.with { workspace in
      try FileManager.default.createSymbolicLink(atPath: workspace.path("zero.jsonl"), withDestinationPath: "/dev/zero")
      let result = try workspace.run("index", "--db", "index.db", "--strict", "zero.jsonl")
      #expect(result.status == 65, "\(result)")
      #expect(result.stderr.hasPrefix("error: zero.jsonl:1: line longer than 33554432 bytes"), "\(result.stderr)")
      #expect(!workspace.exists("index.db"))

      let skipped = try workspace.run("index", "--db", "index.db", "zero.jsonl", "/dev/zero")
      #expect(skipped.status == 0, "\(skipped)")
      #expect(skipped.stderr == """
        warning: zero.jsonl:1: line longer than 33554432 bytes; split the item's text or store it elsewhere
        warning: /dev/zero: binary file (not text); not indexed

        """)
      #expect(skipped.stdout.hasPrefix("indexed 0 items from 0 files; 2 skipped; "))
    }
  }

  @Test func mcpRefusesAnOversizedMessageAndAnswersTheNext() throws {
    try withMiniIndex { workspace in
      let oversized = #"{"jsonrpc":"2.0","id":7,"method":"ping","params":{"pad":""# + String(repeating: "x", count: 5 << 20) + #""}}"#
      let input = [
        #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, oversized, #"{"jsonrpc":"2.0","id":8,"method":"ping"}"#,
      ].joined(separator: "\n") + "\n"
      let result = try workspace.run(["mcp", "--db", "index.db"], stdin: input)
      #expect(result.status == 0, "\(result.stderr)")
      let answers = try result.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
      #expect(answers.count == 3)
      #expect(answers.contains { $0["id"] == .null && $0["error"]?["code"] == .number(-32600) })
      #expect(answers.contains { $0["id"] == .number(8) && $0["result"] != nil })
    }
  }
}
