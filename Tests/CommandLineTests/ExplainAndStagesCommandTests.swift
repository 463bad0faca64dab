import Foundation
import Testing
@testable import SearchIndex

@Suite struct ExplainCommandTests {
  func explain(_ query: String, environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
    let result = try runOnSamples("explain", ["--", query], environment: environment)
    #expect(result.status == 0, "\(result)", sourceLocation: sourceLocation)
    #expect(result.stderr == "", sourceLocation: sourceLocation)
    return result.stdout.split(separator: "\n").map(String.init)
  }

  @Test func showsTheSQLAndWhereEachStageRuns() throws {
    let lines = try explain(#"search "budget" | where rating > 2 | score rating | top 3 | table title"#)
    #expect(lines[0] == "clock: 2026-11-29T12:00:00Z (TZ \(lines[0].hasSuffix("(TZ UTC)") ? "UTC" : "GMT"))")
    #expect(lines[1] == "statement 1: table, a reply")
    #expect(lines[2] == #"  search: text all of "budget"   -> items"#)
    #expect(lines[3] == "  | where: keep items where the condition holds   -> items   [SQL]")
    // `score rating` reads a number and no item field: the matches' rowids, relevance and
    // ratings, neither their records nor their rows.
    #expect(lines[4] == "  numbers only: the matches' rowids, relevance and rating, not their records; the ones the next stage keeps are read whole")
    #expect(lines[5].hasPrefix("    SQL: SELECT f.rowid, NULL,"))
    #expect(lines[5].contains("fts MATCH ? AND sl_visible(rowid)") && !lines[5].contains("attributes") && !lines[5].contains("items"))
    // The relevance of every match is read from the ranked index (its table of scores is
    // argument 0 of `sl_similarity`), not computed by FTS5's bm25 per match.
    #expect(lines[5].contains("sl_similarity(?, rowid)") && !lines[5].contains("sl_bm25"), "\(lines[5])")
    #expect(lines[6] == #"      arguments: 9, 0, "\"budget\"", 9, 2"#, "\(lines[6])")
    // SQLite's plan for the statement: the full-text match drives; no item is read.
    #expect(lines[7] == "      access path:")
    #expect(lines[8].hasPrefix("        SCAN fts VIRTUAL TABLE") || lines[8].hasPrefix("        SEARCH fts VIRTUAL TABLE"), "\(lines)")
    #expect(!lines.contains { $0.contains("SEARCH o USING") || $0.contains("SEARCH i USING INTEGER PRIMARY KEY") }, "\(lines)")
    #expect(Array(lines.dropFirst(9).drop { !$0.hasPrefix("  | ") }) == [
      "  | score: score each item, best first   -> scoredItems   [Swift]",
      "  | top: keep the best 3   -> scoredItems   [Swift]",
      "  | table: a table of title   -> table   [Swift]",
    ])
  }

  @Test func aggregatesRunInSQL() throws {
    let lines = try explain(#"search domainIdentifier == "trails" | group by keywords | count"#)
    #expect(lines.contains("  | group: group by keywords   -> groupedItems   [SQL]"))
    #expect(lines.contains("  | count: count the items of each group   -> table   [SQL]"))
    #expect(lines.contains { $0.hasPrefix("  SQL: SELECT coalesce(g.str, g.fold), count(DISTINCT i.rowid) FROM items i JOIN vals g") })
    #expect(!lines.contains { $0.contains("[Swift]") })
  }

  @Test func timeIsShownAsAbsoluteDates() throws {
    let lines = try explain("contentModificationDate >= $time.this_month && dueDate == $time.today(-1) && completionDate > $time.now(-3600)")
    #expect(lines[2] == "  search: (contentModificationDate >= 2026-11-01T00:00:00Z) and (dueDate in [2026-11-28T00:00:00Z, 2026-11-29T00:00:00Z)) and (completionDate > 2026-11-29T11:00:00Z)   -> items")
    let pacific = try explain("dueDate == $time.today", environment: ["TZ": "America/Los_Angeles"])
    #expect(pacific[0] == "clock: 2026-11-29T04:00:00-08:00 (TZ America/Los_Angeles)")
    #expect(pacific[2] == "  search: dueDate in [2026-11-29T00:00:00-08:00, 2026-11-30T00:00:00-08:00)   -> items")
  }

  @Test func valuesAreBoundNotWrittenIntoTheSQL() throws {
    let lines = try explain(#"title == "'; DROP TABLE items; --" || "x' OR '1'='1""#)
    let sql = try #require(lines.first { $0.hasPrefix("  SQL: ") })
    #expect(!sql.contains("DROP") && !sql.contains("'1'"))
    #expect(lines.contains { $0.hasPrefix("    arguments: ") && $0.contains("DROP TABLE items") })
  }

  @Test func statementsAndForks() throws {
    let lines = try explain(#"hikes = search domainIdentifier == "trails"; hikes | fork (count) (group by keywords | count)"#)
    #expect(lines.contains("statement 1 (hikes): items"))
    #expect(lines.contains("  from statement 1"))
    #expect(lines.contains("  | fork into 2 branches"))
    #expect(lines.contains("      | count: count the items   -> count   [Swift]"))
  }

  @Test func errorsAreQueryErrors() throws {
    let result = try runOnSamples("explain", ["--", "search * | count | sort title"])
    #expect(result.status == 65)
    #expect(result.stderr.hasPrefix("error: 'sort' needs items or scoredItems or table; 'count' produces count\n --> query:1:20\n"))
    let unknown = try runOnSamples("explain", ["--", "titel == 1"])
    #expect(unknown.status == 65)
    #expect(unknown.stderr.hasSuffix("help: did you mean 'title'?\n"))
  }
}

@Suite struct StagesCommandTests {
  static let names = ["count", "extract", "fetch", "fuse", "group", "hydrate", "limit", "people", "sample", "score", "select", "sort", "stats", "table", "text", "top", "where"]

  @Test func jsonListsEveryStage() throws {
    try Workspace.with { workspace in
      let result = try workspace.run("stages", "--format", "json")
      #expect(result.status == 0)
      let stages = try #require(try JSONParser.parse(result.stdout).arrayValue)
      let names = stages.compactMap { $0["name"]?.stringValue }
      #expect(names == names.sorted())
      // The standard library, and the example custom stage the tool registers.
      #expect(names.filter { Self.names.contains($0) } == Self.names)
      #expect(stages.filter { $0["custom"] == false }.compactMap { $0["name"]?.stringValue } == Self.names)
      #expect(stages.first { $0["name"] == "freshness" }?["custom"] == true)
      for stage in stages {
        #expect(stage.objectValue?.keys == ["name", "description", "usage", "custom", "signatures", "parameters", "examples"])
        #expect(!(stage["signatures"]?.arrayValue?.isEmpty ?? true))
        #expect(!(stage["examples"]?.arrayValue?.isEmpty ?? true))
      }
      let top = try #require(stages.first { $0["name"] == "top" })
      #expect(top["parameters"] == [["name": "count", "type": "integer", "description": "How many items to keep", "required": false,
                                    "default": 10, "minimum": 1, "maximum": 10000]])
      #expect(top["signatures"] == [["input": "items", "output": "items"], ["input": "scoredItems", "output": "scoredItems"]])
    }
  }

  @Test func tableListsEveryStageWithUsageAndExamples() throws {
    try Workspace.with { workspace in
      let result = try workspace.run("stages")
      #expect(result.status == 0)
      for name in Self.names { #expect(result.stdout.contains("\n\(name)    ") || result.stdout.hasPrefix("\(name)    "), "\(name)") }
      #expect(result.stdout.contains("sort    items -> items; scoredItems -> scoredItems; table -> table\n  Order items (or a table's rows) by one or more keys"))
    }
  }

  @Test func oneStageByName() throws {
    try Workspace.with { workspace in
      let result = try workspace.run("stages", "sort")
      #expect(result.status == 0)
      #expect(result.stdout.hasPrefix("sort    items -> items; scoredItems -> scoredItems; table -> table\n"))
      #expect(result.stdout.contains("  usage: sort [by] KEY [asc|desc], ...\n"))
      let typo = try workspace.run("stages", "srot")
      #expect(typo.status == 65)
      #expect(typo.stderr.hasPrefix("error: unknown stage 'srot'; did you mean 'sort'?\n"))
    }
  }
}
