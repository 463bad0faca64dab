import Foundation
import Testing
@testable import SearchIndex

/// Identical documents (same title and text) appear once in `query` results, with a note.
@Suite struct IdenticalResultsCommandTests {
  @Test func identicalDocumentsCollapseInTablesAndJSON() throws {
    try Workspace.with { workspace in
      var lines: [String] = []
      for copy in 1...3 {
        lines.append(#"{"id":"copy-\#(copy)","attributes":{"title":"GPL","textContent":"GNU General Public License version 3"}}"#)
      }
      lines.append(#"{"id":"other","attributes":{"title":"GPL","textContent":"GNU General Public License version 2"}}"#)
      lines.append(#"{"id":"trail-a","attributes":{"title":"Same trail"}}"#)
      lines.append(#"{"id":"trail-b","attributes":{"title":"Same trail"}}"#)
      try workspace.write("docs.jsonl", lines.joined(separator: "\n") + "\n")
      #expect(try workspace.run("index", "--db", "index.db", "docs.jsonl").status == 0)

      let table = try workspace.run(["query", "--db", "index.db", "--", #"search "license" | sort id"#], environment: ["COLUMNS": "200"])
      #expect(table.status == 0, "\(table)")
      #expect(table.stdout.contains("copy-1 (+2 identical)"), "\(table)")
      #expect(!table.stdout.contains("copy-2"))
      #expect(!table.stdout.contains("copy-3"))
      #expect(table.stdout.contains("  other "))

      let json = try workspace.run("query", "--db", "index.db", "--format", "json", "--", #"search "license" | sort id"#)
      let reply = try JSONParser.parse(json.stdout.trimmingCharacters(in: .newlines))
      let items = try #require(reply["content"]?["items"]?.arrayValue)
      #expect(items.compactMap { $0["id"]?.stringValue } == ["copy-1", "other"])
      #expect(items[0]["identical"] == 2)
      #expect(items[1]["identical"] == nil)

      // Items without text stay apart however alike; CSV keeps every row.
      let trails = try workspace.run("query", "--db", "index.db", "--format", "json", "--", #"title == "Same trail""#)
      #expect(try JSONParser.parse(trails.stdout.trimmingCharacters(in: .newlines))["content"]?["items"]?.arrayValue?.count == 2)
      let csv = try workspace.run("query", "--db", "index.db", "--format", "csv", "--fetch", "title", "--", #"search "license""#)
      #expect(csv.stdout.split(separator: "\n").count == 5, "\(csv)")
    }
  }
}
