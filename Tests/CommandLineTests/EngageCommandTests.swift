import Foundation
import Testing
@testable import SearchIndex

/// `searchlight engage`: engagement counts, what they do to ranking, and all-or-nothing errors.
@Suite struct EngageCommandTests {
  /// A workspace whose `index.db` holds three notes that match "budget" equally well.
  func withNotes<T>(_ body: (Workspace) throws -> T) throws -> T {
    try Workspace.with { workspace in
      let lines = ["a", "b", "c"].map { #"{"id":"\#($0)","domain":"notes","attributes":{"title":"Budget \#($0)"}}"# }
      try workspace.write("items.jsonl", lines.joined(separator: "\n"))
      let result = try workspace.run("index", "--db", "index.db", "items.jsonl")
      #expect(result.status == 0, "\(result)")
      return try body(workspace)
    }
  }

  /// Engagement counts as stored, read through the library rather than the command.
  func engagement(_ workspace: Workspace) throws -> [String: Int64] {
    let index = try SearchIndex(path: workspace.path("index.db"), create: false)
    return try index.read { db in
      try db.rows("SELECT id, engagement FROM items ORDER BY id") { ($0.string(0) ?? "", $0.int64(1)) }
    }.reduce(into: [:]) { $0[$1.0] = $1.1 }
  }

  @Test func countsAddUpAndRankingUsesThem() throws {
    try withNotes { workspace throws in
      var result = try workspace.run("engage", "--db", "index.db", "c")
      #expect(result.status == 0)
      #expect(result.stdout == "recorded 1 engagement for 1 item\n")
      result = try workspace.run("engage", "--db", "index.db", "--count", "3", "b", "c")
      #expect(result.stdout == "recorded 3 engagements for 2 items\n")
      #expect(try engagement(workspace) == ["a": 0, "b": 3, "c": 4])
      let ranked = try workspace.run(
        "query", "--db", "index.db", "--format", "json", #"search "budget" | score relevance + log(engagement + 1) | top 3"#)
      #expect(ranked.status == 0, "\(ranked)")
      let items = try #require(try JSONParser.parse(ranked.stdout)["content"]?["items"]?.arrayValue)
      #expect(items.compactMap { $0["item"]?["id"]?.stringValue } == ["c", "b", "a"])
      // A negative count undoes, never below zero.
      result = try workspace.run("engage", "--db", "index.db", "--count", "-10", "c")
      #expect(result.status == 0)
      #expect(try engagement(workspace)["c"] == 0)
    }
  }

  @Test func anUnknownIdentifierRecordsNothing() throws {
    try withNotes { workspace throws in
      let result = try workspace.run("engage", "--db", "index.db", "a", "missing", "b")
      #expect(result.status == 66)
      #expect(result.stderr.hasPrefix("error: no item 'missing' in the index; nothing was recorded"))
      #expect(try engagement(workspace) == ["a": 0, "b": 0, "c": 0])
    }
  }

  @Test(arguments: [
    (["engage", "--db", "index.db"], 64, "error: name the items to engage with"),
    (["engage", "--db", "index.db", "--count", "0", "a"], 64, "error: --count needs a whole number"),
    (["engage", "--db", "index.db", "--count", "lots", "a"], 64, "error: --count needs a whole number"),
    (["engage", "--db", "nowhere.db", "a"], 66, "error: no index at 'nowhere.db'"),
  ])
  func badArgumentsExitWithTheirCode(_ arguments: [String], _ status: Int32, _ message: String) throws {
    try withNotes { workspace throws in
      let result = try workspace.run(arguments)
      #expect(result.status == status, "\(result)")
      #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
    }
  }
}
