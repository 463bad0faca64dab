import Foundation
import Testing
@testable import SearchIndex

@Suite struct StatsCommandTests {

  @Test func jsonOutputHasItemsDomainsAndTypedAttributeCounts() throws {
    try withMiniIndex { workspace in
      let result = try workspace.run("stats", "--db", "index.db", "--format", "json")
      #expect(result.status == 0)
      #expect(result.stderr == "")
      #expect(result.stdout.hasSuffix("}\n"))
      let json = try JSONParser.parse(result.stdout)
      #expect(json.objectValue?.keys.prefix(4) == ["items", "expiredItems", "protectedItems", "domains"])
      #expect(json["items"] == 1)
      #expect(json["protectedItems"] == 1)
      #expect(json["domains"] == ["trails": 1])
      #expect(json["generation"] == 1)
      #expect(json["clientState"] == .null)
      let first = try #require(json["attributes"]?.arrayValue?.first)
      #expect(first == ["name": "contentCreationDate", "type": "date", "count": 1, "custom": false])
      #expect(json["attributes"]?.arrayValue?.first(where: { $0["name"] == "distance" })?["custom"] == true)
    }
  }

  @Test func tableOutputNamesHiddenItemsDomainsAndAttributes() throws {
    try withMiniIndex { workspace in
      let result = try workspace.run("stats", "--db", "index.db")
      #expect(result.status == 0)
      let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      #expect(lines.first == "index:       index.db (default)")
      #expect(lines.contains("items:       1 (not shown: 1 protected)"))
      #expect(lines.contains("generation:  1"))
      #expect(lines.contains("clientState: none"))
      #expect(lines.contains("  trails    1"))
      #expect(lines.contains("  distance             number    1  (custom)"))
      #expect(lines.contains("  keywords             [string]  1"))
    }
  }

  @Test func theRealClockDecidesWhichItemsHaveExpiredNotTheFixedOne() throws {
    try Workspace.with { workspace in
      try workspace.write("items.jsonl", """
        {"id":"gone","domain":"d","expirationDate":"2026-06-01T00:00:00Z"}
        {"id":"later","domain":"d","expirationDate":"2999-01-01T00:00:00Z"}
        {"id":"never","domain":"d"}
        """)
      #expect(try workspace.run("index", "--db", "index.db", "items.jsonl").status == 0)
      // --now and SEARCHLIGHT_NOW pin $time only: before or after an expiry, the same items.
      for now in ["2026-05-01T00:00:00Z", "3000-01-01T00:00:00Z"] {
        let stats = try JSONParser.parse(try workspace.run("stats", "--db", "index.db", "--now", now, "--format", "json").stdout)
        #expect(stats["items"] == 2, "\(now)")
        #expect(stats["expiredItems"] == 1, "\(now)")
      }
      let fromEnvironment = try CLI.run(
        ["stats", "--db", "index.db", "--format", "json"], in: workspace.directory, environment: ["SEARCHLIGHT_NOW": "2026-05-01T00:00:00Z"])
      #expect(try JSONParser.parse(fromEnvironment.stdout)["items"] == 2)
    }
  }

  @Test func aMissingIndexExits66AndIsNotCreated() throws {
    try Workspace.with { workspace in
      let result = try workspace.run("stats", "--db", "missing.db")
      #expect(result.status == 66)
      #expect(result.stderr.hasPrefix("error: no index at 'missing.db'"))
      #expect(!workspace.exists("missing.db"))
    }
  }

  @Test func anSQLiteFileThatIsNotAnIndexExits74() throws {
    try Workspace.with { workspace in
      do {
        let connection = try Connection(path: workspace.path("other.db"))
        try connection.execute("CREATE TABLE t(x)")
      }
      let before = workspace.contents("other.db")
      let result = try workspace.run("stats", "--db", "other.db")
      #expect(result.status == 74)
      #expect(result.stdout == "")
      #expect(result.stderr == "error: 'other.db' is not a Searchlight index: it is an SQLite database without Searchlight's tables\n")
      #expect(workspace.contents("other.db") == before)
    }
  }

  @Test func errorsAreOneJSONObjectWithFormatJSON() throws {
    try Workspace.with { workspace in
      try workspace.write("garbage.db", String(repeating: "garbage ", count: 200))
      let result = try workspace.run("stats", "--db", "garbage.db", "--format", "json")
      #expect(result.status == 74)
      let error = try #require(try JSONParser.parse(result.stderr)["error"])
      #expect(error["message"]?.stringValue?.hasPrefix("'garbage.db' is not a Searchlight index: ") == true)
      #expect(error["exitCode"] == 74)
      #expect(error["line"] == .null)
    }
  }
}
