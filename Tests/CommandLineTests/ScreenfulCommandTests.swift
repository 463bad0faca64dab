import Foundation
import Testing
@testable import SearchIndex

/// A table shows a screenful and says how many more there are; `--limit` cuts every reply
/// once, however many batches it streams in. Both read only the items they print
/// (`ItemWindowTests` checks the engine's side).
@Suite struct ScreenfulCommandTests {
  /// 300 documents with "common" in their text; the first four are identical.
  static func write(_ workspace: Workspace) throws {
    var lines: [String] = []
    for n in 1...300 {
      let text = n <= 4 ? "common text of the copies" : "common text number \(n)"
      lines.append(#"{"id":"doc-\#(String(format: "%03d", n))","attributes":{"title":"Doc","textContent":"\#(text)","rating":\#(n % 5)}}"#)
    }
    try workspace.write("docs.jsonl", lines.joined(separator: "\n") + "\n")
    #expect(try workspace.run("index", "--db", "index.db", "docs.jsonl").status == 0)
  }

  @Test func aTableShowsAScreenfulAndCountsTheRest() throws {
    try Workspace.with { workspace in
      try Self.write(workspace)
      let table = try workspace.run(["query", "--db", "index.db", "--", #"search "common" | sort id"#], environment: ["COLUMNS": "200"])
      #expect(table.status == 0, "\(table)")
      let rows = table.stdout.split(separator: "\n").filter { $0.hasPrefix("  doc-") }
      #expect(rows.count == 25, "\(table)")
      #expect(rows.first?.hasPrefix("  doc-001 (+3 identical)") == true, "\(table)")
      // 300 items: 25 shown, 3 folded into the first.
      #expect(table.stdout.contains("… 272 more (use --limit N or --format json)"), "\(table)")

      let limited = try workspace.run(["query", "--db", "index.db", "--limit", "10", "--", "search rating >= 3 | sort id desc"], environment: ["COLUMNS": "200"])
      #expect(limited.stdout.split(separator: "\n").filter { $0.hasPrefix("  doc-") }.count == 10, "\(limited)")
      #expect(limited.stdout.contains("… 110 more"), "\(limited)")
    }
  }

  /// A table reply (`| table`, `stats … by`) shows a screenful of rows too, and says how many
  /// more; `--limit` and JSON keep their own cut.
  @Test func aTableOfRowsShowsAScreenful() throws {
    try Workspace.with { workspace in
      try Self.write(workspace)
      let table = try workspace.run(["query", "--db", "index.db", "--", #"search "common" | sort id | table id, rating"#], environment: ["COLUMNS": "200"])
      #expect(table.status == 0, "\(table)")
      #expect(table.stdout.split(separator: "\n").filter { $0.hasPrefix("  doc-") }.count == 25, "\(table)")
      #expect(table.stdout.contains("… 275 more rows (use --limit N or --format json)"), "\(table)")
      let limited = try workspace.run(["query", "--db", "index.db", "--limit", "30", "--", #"search "common" | sort id | table id"#], environment: ["COLUMNS": "200"])
      #expect(limited.stdout.split(separator: "\n").filter { $0.hasPrefix("  doc-") }.count == 30, "\(limited)")
      let json = try workspace.run("query", "--db", "index.db", "--format", "json", "--", #"search "common" | sort id | table id"#)
      #expect((try JSONParser.parse(String(json.stdout.split(separator: "\n")[0])))["content"]?["rows"]?.arrayValue?.count == 300, "\(json.stdout.prefix(300))")
    }
  }

  /// Groups list five titles each and count the rest of the group.
  @Test func groupsListFiveTitlesAndCountTheRest() throws {
    try Workspace.with { workspace in
      try Self.write(workspace)
      let table = try workspace.run(["query", "--db", "index.db", "--", #"search "common" | group by rating"#], environment: ["COLUMNS": "200"])
      #expect(table.status == 0, "\(table)")
      for rating in 0..<5 { #expect(table.stdout.contains("  \(rating) (60)"), "\(table)") }
      #expect(table.stdout.components(separatedBy: "    Doc\n").count - 1 == 25, "five titles under each of five groups: \(table)")
      #expect(table.stdout.components(separatedBy: "… 55 more").count - 1 == 5, "\(table)")
    }
  }

  @Test func aLimitCutsTheWholeReplyNotEachBatch() throws {
    try Workspace.with { workspace in
      try Self.write(workspace)
      let all = try workspace.run("query", "--db", "index.db", "--format", "json", "--", "search rating >= 1 | sort id")
      let allIDs = all.stdout.split(separator: "\n").flatMap { line in
        ((try? JSONParser.parse(String(line)))?["content"]?["items"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
      }
      #expect(allIDs.count == 237, "\(all.stdout.prefix(300))")

      let json = try workspace.run("query", "--db", "index.db", "--format", "json", "--limit", "3", "--", "search rating >= 1 | sort id")
      #expect(json.status == 0, "\(json)")
      let ids = json.stdout.split(separator: "\n").flatMap { line in
        ((try? JSONParser.parse(String(line)))?["content"]?["items"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
      }
      #expect(ids == Array(allIDs.prefix(3)), "\(json.stdout.prefix(300))")

      let csv = try workspace.run("query", "--db", "index.db", "--format", "csv", "--fetch", "title", "--limit", "5", "--", "search rating >= 1 | sort id")
      #expect(csv.stdout.split(separator: "\n").count == 6, "\(csv)")
    }
  }
}
