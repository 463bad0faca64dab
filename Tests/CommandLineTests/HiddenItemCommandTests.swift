import Foundation
import Testing
@testable import SearchIndex

/// Hidden items (protected without the grant, or expired by the real clock) leave no trace
/// through the command line or MCP: not in suggestions, not by pinning the clock, not as an
/// answer that differs from the one for a missing item.
@Suite struct HiddenItemCommandTests {
  static let items = """
    {"id":"memo","domain":"hr","attributes":{"title":"Public memo","team":"blue"}}
    {"id":"sheet","domain":"hr","protectionClass":"hr","attributes":{"title":"Salary sheet","salaryBand":"L5","textContent":"Bands for next year: the zanzibarcode band tops out where the finance review of the spring said it would."}}
    {"id":"old","domain":"hr","expirationDate":"2026-01-01T00:00:00Z","attributes":{"title":"Old memo","severanceTerms":"x"}}

    """

  func withHRIndex(_ body: (Workspace) throws -> Void) throws {
    try Workspace.with { workspace in
      try workspace.write("items.jsonl", Self.items)
      let indexed = try workspace.run("index", "--db", "hr.db", "items.jsonl")
      #expect(indexed.status == 0, "\(indexed)")
      try body(workspace)
    }
  }

  /// The lines `searchlight mcp` answers to `messages`, by request id.
  func mcp(_ workspace: Workspace, _ messages: [String], environment: [String: String] = [:]) throws -> [Int: JSONValue] {
    let handshake = [
      #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
      #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    ]
    let result = try workspace.run(["mcp", "--db", "hr.db"], stdin: (handshake + messages).joined(separator: "\n") + "\n", environment: environment)
    #expect(result.status == 0, "\(result)")
    var answers: [Int: JSONValue] = [:]
    for line in result.stdout.split(separator: "\n") {
      let message = try JSONParser.parse(String(line))
      if let id = message["id"]?.numberValue { answers[Int(id)] = message }
    }
    return answers
  }

  @Test func aMisspeltHiddenAttributeIsNotSuggested() throws {
    try withHRIndex { workspace in
      let hidden = try workspace.run("query", "--db", "hr.db", #"salaryBnd == "x""#)
      #expect(hidden.status == 65)
      #expect(hidden.stderr.hasPrefix("error: unknown attribute 'salaryBnd'\n"))
      #expect(!hidden.stderr.contains("salaryBand"), "\(hidden.stderr)")
      let exact = try workspace.run("query", "--db", "hr.db", #"salaryBand == "x""#)
      #expect(exact.status == 65)
      #expect(exact.stderr.hasPrefix("error: unknown attribute 'salaryBand'\n"))
      let granted = try workspace.run("query", "--db", "hr.db", "--protection", "hr", #"salaryBnd == "x""#)
      #expect(granted.stderr.contains("did you mean 'salaryBand'?"), "\(granted.stderr)")
      let expired = try workspace.run("query", "--db", "hr.db", "--now", "2025-06-01T00:00:00Z", #"severanceTerm == "x""#)
      #expect(!expired.stderr.contains("severanceTerms"), "\(expired.stderr)")
    }
  }

  @Test func aMisspeltHiddenAttributeIsNotSuggestedThroughMCP() throws {
    try withHRIndex { workspace in
      let call = #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_items","arguments":{"query":{"type":"search","value":{"root":{"type":"predicate","value":{"attribute":"salaryBnd","operator":"equals","value":{"type":"string","value":"x"}}}}}}}}"#
      let answer = try #require(try mcp(workspace, [call])[2])
      #expect(answer["result"]?["isError"] == .bool(true))
      let text = answer["result"]?["content"]?.arrayValue?.first?["text"]?.stringValue ?? ""
      #expect(text.contains("unknown attribute 'salaryBnd'"), "\(text)")
      #expect(!answer.compactText.contains("salaryBand"), "\(answer.compactText)")
    }
  }

  /// A pattern on a piece of a word is planned with the full-text terms that hold the piece,
  /// or with the attribute's values that match, read from the whole index: `explain` shows
  /// the piece, not the terms or values (`salary` is only in the hidden sheet), and a piece
  /// that only a hidden item holds is planned like one that no item holds.
  @Test func explainShowsNoTermOfAHiddenItem() throws {
    try withHRIndex { workspace in
      var plans: [String] = []
      for pattern in [#"title == "*alar*"c"#, #"title == "alar*"cw"#, #"title == "*zqxw*"c"#, #"textContent == "*anzibarc*"c"#, #"textContent == "anzibarc*"cw"#] {
        let explained = try workspace.run("explain", "--db", "hr.db", pattern)
        #expect(explained.status == 0, "\(explained)")
        // Titles (few distinct values) list the values that match; long texts search the
        // full-text index for the terms that hold the piece.
        #expect(explained.stdout.contains(pattern.hasPrefix("title") ? "(the values that match)" : "fts MATCH"), "\(explained.stdout)")
        #expect(!explained.stdout.lowercased().contains("salary") && !explained.stdout.contains("zanzibarcode"), "\(explained.stdout)")
        let query = try workspace.run("query", "--db", "hr.db", "--format", "json", pattern)
        #expect(query.status == 0 && !query.stdout.contains("sheet"), "\(query)")
        plans.append(explained.stdout.components(separatedBy: "\n").filter { $0.contains("SQL:") }.joined(separator: "\n"))
      }
      #expect(plans[0] == plans[2], "a hidden item's word changes no plan")
      let granted = try workspace.run("query", "--db", "hr.db", "--protection", "hr", "--format", "json", #"title == "*alar*"c"#)
      #expect(granted.stdout.contains("sheet"), "\(granted)")
    }
  }

  @Test func pinningTheClockBeforeAnExpiryDoesNotBringTheItemBack() throws {
    try withHRIndex { workspace in
      let query = try workspace.run("query", "--db", "hr.db", "--now", "2025-06-01T00:00:00Z", "--format", "json", "*")
      #expect(query.status == 0, "\(query)")
      #expect(query.stdout.contains(#""id":"memo""#))
      #expect(!query.stdout.contains(#""id":"old""#), "\(query.stdout)")
      let stats = try JSONParser.parse(try workspace.run("stats", "--db", "hr.db", "--now", "2025-06-01T00:00:00Z", "--format", "json").stdout)
      #expect(stats["items"] == 1)
      #expect(stats["expiredItems"] == 1)
      // $time still follows --now.
      let dated = try workspace.run("query", "--db", "hr.db", "--now", "2025-06-01T00:00:00Z", "--format", "json", "--",
                                    "search * | table $time.now")
      #expect(dated.stdout.contains("2025-06-01"), "\(dated)")
    }
  }

  @Test func pinningTheClockOfMCPDoesNotMakeAnExpiredItemReadable() throws {
    try withHRIndex { workspace in
      let answers = try mcp(workspace, [
        #"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"searchlight://item/old"}}"#,
        #"{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"searchlight://item/missing"}}"#,
        #"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search_items","arguments":{"query":{"type":"dsl","value":{"query":"search *"}}}}}"#,
      ], environment: ["SEARCHLIGHT_NOW": "2025-06-01T00:00:00Z"])
      #expect(answers[2]?["error"]?["code"] == .number(-32002))
      #expect(answers[2]?["error"]?["message"]?.stringValue?.replacingOccurrences(of: "old", with: "missing")
              == answers[3]?["error"]?["message"]?.stringValue, "a hidden item is answered like a missing one")
      let text = answers[4]?["result"]?["content"]?.arrayValue?.first?["text"]?.stringValue ?? ""
      #expect(text.contains("id: memo"), "\(text)")
      #expect(!text.contains("id: old"), "\(text)")
    }
  }

  @Test func engagingAHiddenItemFailsExactlyLikeAMissingOne() throws {
    try withHRIndex { workspace in
      let missing = try workspace.run("engage", "--db", "hr.db", "nothing")
      #expect(missing.status == 66)
      for hidden in ["sheet", "old"] {
        let result = try workspace.run("engage", "--db", "hr.db", hidden)
        #expect(result.status == missing.status, "\(hidden): \(result)")
        #expect(result.stderr == missing.stderr.replacingOccurrences(of: "'nothing'", with: "'\(hidden)'"), "\(hidden): \(result)")
      }
      let granted = try workspace.run("engage", "--db", "hr.db", "--protection", "hr", "sheet")
      #expect(granted.status == 0, "\(granted)")
      #expect(try workspace.run("engage", "--db", "hr.db", "--protection", "hr", "old").status == 66)
    }
  }
}
