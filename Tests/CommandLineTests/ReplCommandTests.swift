import Foundation
import Testing
@testable import SearchIndex

/// `searchlight repl` with a script on standard input: every dot-command, the replies, the
/// errors and the exit status.
@Suite struct ReplCommandTests {
  @Test func queriesPrintLabelledRepliesWithTheirTokens() throws {
    try Workspace.withReplIndex { workspace in
      let result = try workspace.repl("search * | count\nsearch keywords == \"lake\" | sort title | table title\n")
      #expect(result.status == 0, "\(result)")
      #expect(result.stderr == "")
      let lines = result.stdout.split(separator: "\n").map(String.init)
      #expect(lines.count == 7)
      #expect(lines[0].hasPrefix("Count [count · q"))
      #expect(lines[1] == "  3")
      #expect(lines[2].hasPrefix("Table [table · q"))
      #expect(lines[3...] == ["  title", "  ----------", "  Lake Trail", "  Sky Pond"])
      #expect(!result.stdout.contains("\u{1B}"), "no colours without a terminal")
      #expect(!result.stdout.contains("searchlight>"), "no prompt without a terminal")
    }
  }

  @Test func textSearchTablesShowSnippetsAndIdenticalDocumentsOnceAsInQuery() throws {
    try Workspace.with { workspace in
      let lines = [
        #"{"id":"copy-1","attributes":{"title":"GPL","textContent":"GNU General Public License version 3"}}"#,
        #"{"id":"copy-2","attributes":{"title":"GPL","textContent":"GNU General Public License version 3"}}"#,
        #"{"id":"other","attributes":{"title":"GPL","textContent":"GNU General Public License version 2"}}"#,
        #"{"id":"secret","protectionClass":"hr","attributes":{"title":"License key","textContent":"license swordfish"}}"#,
      ]
      try workspace.write("docs.jsonl", lines.joined(separator: "\n") + "\n")
      #expect(try workspace.run("index", "--db", "index.db", "docs.jsonl").status == 0)
      let result = try CLI.run(
        ["repl", "--db", "index.db"], stdin: "search \"license\" | sort id\nlicense\ntitle == \"GPL\" | sort id\n",
        in: workspace.directory, environment: ["COLUMNS": "200"])
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout.contains("copy-1 (+1 identical)"), "\(result)")
      #expect(!result.stdout.contains("copy-2"), "\(result)")
      #expect(!result.stdout.contains("swordfish"), "\(result)")
      #expect(result.stdout.contains("GNU General Public [License] version 3"), "a snippet: \(result)")
      let snippetHeaders = result.stdout.components(separatedBy: "\n").filter { $0.hasSuffix("snippet") }
      #expect(snippetHeaders.count == 2, "both text searches (the bare word too) get the column; the filter does not: \(result)")
      #expect(result.stdout.components(separatedBy: "copy-1 (+1 identical)").count == 4, "each of the three replies collapses: \(result)")
    }
  }

  @Test func aLineEndingInAPipeContinuesTheQuery() throws {
    try Workspace.withReplIndex { workspace in
      let result = try workspace.repl("search keywords == \"lake\" |\n  sort rating desc |\n  table title, rating\n(rating >\n 4.5) && (distance < 6\n)\n")
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout.contains("  Sky Pond    4.9\n  Lake Trail  4.1\n"))
      #expect(result.stdout.contains("  t1  Mist Trail"))
      #expect(!result.stdout.contains("t2  Sky Pond"))
    }
  }

  @Test func aFailedCommandIsReportedAtItsScriptLineTheRestRunsAndTheExitIs65() throws {
    try Workspace.withReplIndex { workspace in
      let result = try workspace.repl("search * | count\n\ntitel == \"x\"\nsearch * |\n  cuont\nsearch * | count\n")
      #expect(result.status == 65)
      #expect(result.stdout.components(separatedBy: "Count [count").count == 3)
      #expect(result.stderr.contains("""
        error: unknown attribute 'titel'
         --> stdin:3:1
          |
        3 | titel == "x"
          | ^~~~~
        help: did you mean 'title'?
        """))
      #expect(result.stderr.contains("error: unknown stage 'cuont'\n --> stdin:5:3\n"))
    }
  }

  @Test func errorsInAQueryAfterADotCommandPointAtTheColumnTyped() throws {
    try Workspace.withReplIndex { workspace in
      let result = try workspace.repl("  .explain search * | cuont\n")
      #expect(result.status == 65)
      #expect(result.stderr.contains("error: unknown stage 'cuont'\n --> stdin:1:23\n"))
      #expect(result.stderr.contains("1 |            search * | cuont\n  |                       ^~~~~\n"))
    }
  }

  @Test func helpListsTheCommandsAndDescribesStages() throws {
    try Workspace.withReplIndex { workspace in
      let list = try workspace.repl(".help\n")
      #expect(list.status == 0)
      for usage in [".help [STAGE]", ".stages", ".attributes", ".explain QUERY", ".json QUERY", ".parse QUERY", ".why",
                    ".format table|json|csv", ".timer on|off", ".now [ISO8601|system]", ".tz [ZONE]", ".limit [N|off]",
                    ".plan QUESTION", ".ask QUESTION", ".read FILE", ".quit"] {
        #expect(list.stdout.contains("\n  \(usage) "), "\(usage)")
      }
      let stage = try workspace.repl(".help sort\n.help .format\n")
      #expect(stage.status == 0)
      #expect(stage.stdout.hasPrefix("sort    items -> items; scoredItems -> scoredItems; table -> table\n"))
      #expect(stage.stdout.contains("  usage: sort [by] KEY [asc|desc], ...\n"))
      #expect(stage.stdout.hasSuffix(".format table|json|csv\n  Print replies as aligned tables, JSON Lines or CSV\n"))
      let unknown = try workspace.repl(".help sotr\n")
      #expect(unknown.status == 65)
      #expect(unknown.stderr == "error: unknown stage 'sotr'; did you mean 'sort'?\n")
    }
  }

  @Test func customStagesFromStagesAreListedDescribedAndRun() throws {
    try Workspace.withReplIndex { workspace in
      try workspace.write("stages/bestTrails.stage", """
        stage bestTrails(minimum: Number = 4.5 "Lowest rating kept")
          "Keeps the best-rated trails"
          : items -> items
          = where rating >= minimum

        """)
      let result = try workspace.repl(".stages\n.help bestTrails\nsearch * | bestTrails(minimum: 4.85) | table title\n", ["--stages", "stages"])
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout.contains("Keeps the best-rated trails (custom)\n"))
      #expect(result.stdout.contains("bestTrails (custom)"))
      #expect(result.stdout.contains("    minimum: number = 4.5  Lowest rating kept\n"))
      #expect(result.stdout.hasSuffix("  title\n  --------\n  Sky Pond\n"))
    }
  }

  @Test func stagesListsEveryStageWithItsSignature() throws {
    try Workspace.withReplIndex { workspace in
      let result = try workspace.repl(".stages\n")
      #expect(result.status == 0)
      for name in ["count", "extract", "fetch", "group", "limit", "people", "sample", "score", "select", "sort", "stats", "table", "text", "top", "where"] {
        #expect(result.stdout.contains("\n  \(name) ") || result.stdout.hasPrefix("  \(name) "), "\(name)")
      }
      let lines = result.stdout.split(separator: "\n").map(String.init)
      let count = try #require(lines.firstIndex { $0.hasPrefix("  count ") })
      #expect(lines[count].hasSuffix(" Count the items; after group by, a table of each group's key and count."))
      #expect(lines[count + 1].trimmingCharacters(in: .whitespaces) == "items | scoredItems -> count; groupedItems -> table")
      #expect(result.stdout.hasSuffix("\nSee '.help STAGE' for a stage's parameters and examples.\n"))
    }
  }

  @Test func attributesShowsTheCatalogueWithTypesAndCounts() throws {
    try Workspace.withReplIndex { workspace in
      let result = try workspace.repl(".attributes\n")
      #expect(result.status == 0)
      #expect(result.stdout.hasPrefix("  name                     type      items\n"))
      #expect(result.stdout.contains("\n  distance                 number    3  (custom)\n"))
      #expect(result.stdout.contains("\n  keywords                 [string]  3\n"))
      #expect(result.stdout.hasSuffix("\n5 attributes over 3 items\n"))
      #expect(!result.stdout.contains("secretCode"))
      let granted = try workspace.repl(".attributes\n", ["--protection", "private"])
      #expect(granted.stdout.contains("\n  secretCode               string    1  (custom)\n"))
    }
  }

  @Test func explainAndParseShowHowAQueryReadsAndRuns() throws {
    try Workspace.withReplIndex { workspace in
      let result = try workspace.repl(".explain search * | count\n.parse title == \"a\" && rating > 3\n.format json\n.parse rating > 3\n")
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout.contains("  | count: count the items   -> count   [SQL]\n  SQL: SELECT count(*) FROM items"))
      #expect(result.stdout.contains("statement\n  search\n    and\n      compare ==\n        name title\n"))
      let json = try #require(result.stdout.split(separator: "\n").last)
      #expect(try JSONParser.parse(String(json))["statements"] != nil)
    }
  }

  @Test func whyShowsTheScoreTermsOfTheLastResult() throws {
    try Workspace.withReplIndex { workspace in
      let none = try workspace.repl(".why\nsearch * | count\n.why\n")
      #expect(none.status == 65)
      #expect(none.stderr.contains("error: no result yet: run a query first\n"))
      #expect(none.stderr.contains("error: the last result has no scores\nhelp: rank with a 'score' stage"))
      // In JSON the replies are printed as they come; `.why` still has the scored one.
      let json = try workspace.repl(".format json\nsearch * | score 0.5 * rating | top 2\nsearch * | count\n.why\n")
      #expect(json.status == 65, "\(json)")
      #expect(json.stderr.contains("error: the last result has no scores"), "\(json)")
      let jsonWhy = try workspace.repl(".format json\nsearch * | score 0.5 * rating | top 2\n.why\n")
      #expect(jsonWhy.status == 0, "\(jsonWhy)")
      let lines = jsonWhy.stdout.split(separator: "\n")
      #expect(lines.count == 2, "\(jsonWhy)")
      let why = try JSONParser.parse(String(lines.last ?? ""))["content"]
      #expect(why?["type"]?.stringValue == "scoredItems", "\(jsonWhy)")
      #expect(why?["items"]?.arrayValue?.first?["terms"]?.arrayValue?.first?["name"]?.stringValue == "0.5 * rating", "\(jsonWhy)")
      let result = try workspace.repl("search * | score 0.5 * rating + 0.1 * distance | top 2\n.why\n")
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout.contains("""
        Scored results [why · q
        """))
      #expect(result.stdout.contains("""
          3.360  t2  Sky Pond
                 0.5 * rating = 2.450
                 0.1 * distance = 0.910
          2.940  t1  Mist Trail
                 0.5 * rating = 2.400
                 0.1 * distance = 0.540

        """))
    }
  }

  @Test func formatSwitchesBetweenTablesJSONAndCSV() throws {
    try Workspace.withReplIndex { workspace in
      let result = try workspace.repl("""
        .format
        .format json
        search * | count
        .format csv
        search keywords == "lake" | sort title | table title
        .format table
        .format xml

        """)
      #expect(result.status == 65)
      let lines = result.stdout.split(separator: "\n").map(String.init)
      #expect(lines.first == "format: table")
      let reply = try JSONParser.parse(lines[1])
      #expect(reply["label"] == "Count")
      #expect(reply["content"] == ["type": "count", "count": 3])
      #expect(reply["queryToken"]?.stringValue?.hasPrefix("q") == true)
      #expect(Array(lines[2...]) == ["title", "Lake Trail", "Sky Pond"])
      #expect(result.stderr == "error: unknown format 'xml'; use one of table, json, csv\nhelp: .format table|json|csv\n")
    }
  }

  @Test func timerPrintsTheRunTimeOfEachQueryWhileOn() throws {
    try Workspace.withReplIndex { workspace in
      let result = try workspace.repl(".timer\n.timer on\nsearch * | count\n.timer off\nsearch * | count\n.timer maybe\n")
      #expect(result.status == 65)
      #expect(result.stdout.hasPrefix("timer: off\n"))
      #expect(result.stdout.components(separatedBy: "Run time: ").count == 2)
      #expect(result.stdout.contains(" ms\n"))
      #expect(result.stderr.contains("error: '.timer' takes on or off, got 'maybe'\n"))
    }
  }

  @Test func nowAndTzSetTheClockThatTimeValuesUse() throws {
    try Workspace.withReplIndex { workspace in
      let result = try workspace.repl("""
        .now 2026-11-29T12:00:00Z
        .now
        search contentModificationDate >= $time.this_month | count
        .now 2026-06-15T12:00:00Z
        search contentModificationDate >= $time.this_month | count
        .tz Europe/Zurich
        .now
        .tz
        .now system
        .now
        .now noon
        .tz Europe/Zurch

        """)
      #expect(result.status == 65)
      let lines = result.stdout.split(separator: "\n").map(String.init)
      #expect(lines[0].hasPrefix("now: 2026-11-29T12:00:00Z (fixed), TZ "))
      #expect(lines[1...2] == [lines[1], "  1"])
      #expect(lines[3...4] == [lines[3], "  2"])
      #expect(lines[5] == "now: 2026-06-15T14:00:00+02:00 (fixed), TZ Europe/Zurich")
      #expect(lines[6] == "TZ Europe/Zurich")
      #expect(lines[7].hasSuffix("(system clock), TZ Europe/Zurich"))
      #expect(result.stderr.contains("error: 'noon' is not an ISO-8601 date (e.g. 2026-11-29T12:00:00Z)\n"))
      #expect(result.stderr.contains("error: unknown time zone 'Europe/Zurch'; did you mean 'Europe/Zurich'?\n"))
      let flag = try workspace.repl(".now\n", ["--now", "2026-01-02T03:04:05Z"])
      #expect(flag.stdout.hasPrefix("now: 2026-01-02T03:04:05Z (fixed), TZ "))
    }
  }

  @Test func limitCapsTheItemsOfEachReply() throws {
    try Workspace.withReplIndex { workspace in
      let result = try workspace.repl(".limit 1\n.limit\nsearch keywords == \"lake\" | sort title\n.limit off\n.limit\n.limit many\n")
      #expect(result.status == 65)
      #expect(result.stdout.hasPrefix("limit: 1\n"))
      #expect(result.stdout.contains("  t3  Lake Trail"))
      #expect(!result.stdout.contains("Sky Pond"))
      #expect(result.stdout.contains("  … 1 more\n"))
      #expect(result.stdout.hasSuffix("limit: off\n"))
      #expect(result.stderr.contains("error: '.limit' needs a whole number or off, got 'many'\n"))
      let flag = try workspace.repl(".limit\n", ["--limit", "2"])
      #expect(flag.stdout == "limit: 2\n")
    }
  }

  @Test func jsonShowsAQueryAsAToolCall() throws {
    try Workspace.withReplIndex { workspace in
      let result = try workspace.repl(".json search keywords == \"lake\" | sort rating desc | limit 2\n.json search * | count\n")
      #expect(result.status == 0, "\(result)")
      let lines = result.stdout.split(separator: "\n").map(String.init)
      #expect(lines.count == 2)
      let structured = try JSONParser.parse(lines[0])
      #expect(structured["query"]?["type"] == "search")
      #expect(structured["query"]?["value"]?["pipeline"]?["stages"]?.arrayValue?.count == 3)
      #expect(try JSONParser.parse(lines[1]) == ["query": ["type": "dsl", "value": ["query": "search * | count"]]])
      #expect(result.stderr == "note: printed as a dsl query: a search of every item has no query node\n")
      let wrong = try workspace.repl(".json search * | cuont\n")
      #expect(wrong.status == 65)
      #expect(wrong.stderr.contains("error: unknown stage 'cuont'\n --> stdin:1:18\n"))
    }
  }

  @Test func tablesShowTwentyFiveItemsUnlessALimitIsSet() throws {
    try Workspace.with { workspace in
      try workspace.write("items.jsonl", (1...30).map { #"{"id":"i\#($0)","attributes":{"title":"Item \#($0)"}}"# }.joined(separator: "\n") + "\n")
      #expect(try workspace.run("index", "--db", "index.db", "items.jsonl").status == 0)
      let table = try workspace.repl("search *\n")
      #expect(table.stdout.hasSuffix("  i25  Item 25\n  … 5 more\n"), "\(table)")
      let json = try workspace.repl(".format json\nsearch *\n")
      #expect(json.stdout.split(separator: "\n").flatMap { try! JSONParser.parse(String($0))["content"]?["items"]?.arrayValue ?? [] }.count == 30)
    }
  }

  @Test func planPrintsTheBuiltInPlannersQuery() throws {
    try Workspace.withReplIndex { workspace in
      let result = try workspace.repl(".plan how many items\n")
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout.contains("| count"))
      #expect(result.stdout.contains("understood (count)"))
    }
  }

  @Test func askAnswersOfflineWithSources() throws {
    try Workspace.withReplIndex { workspace in
      let result = try workspace.repl(".ask how many items are there\n")
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout.contains("items match") || result.stdout.contains("Nothing relevant was found"))
    }
  }

  @Test func readRunsAFileAndReportsErrorsAtItsLines() throws {
    try Workspace.withReplIndex { workspace in
      try workspace.write("more.sl", "# counts\nsearch * |\n  count\n.parse rating >\n")
      try workspace.write("loop.sl", ".read loop.sl\n")
      let result = try workspace.repl(".read more.sl\n.read missing.sl\nsearch * | count\n")
      #expect(result.status == 65)
      #expect(result.stdout.components(separatedBy: "Count [count").count == 3)
      #expect(result.stderr.contains(" --> more.sl:4:"))
      #expect(result.stderr.contains("error: missing.sl: no such file\n"))
      let loop = try workspace.repl(".read loop.sl\n")
      #expect(loop.status == 65)
      #expect(loop.stderr == "error: '.read' is nested more than 16 deep\n")
    }
  }

  @Test func quitStopsTheScript() throws {
    try Workspace.withReplIndex { workspace in
      let result = try workspace.repl("search * | count\n.quit\ntitel == 1\n")
      #expect(result.status == 0)
      #expect(result.stderr == "")
      #expect(result.stdout.components(separatedBy: "Count [count").count == 2)
      #expect(try workspace.repl(".exit\n.stages\n").stdout == "")
    }
  }

  @Test func unknownCommandsAndMisusedCommandsAreErrors() throws {
    try Workspace.withReplIndex { workspace in
      let result = try workspace.repl(".hepl\n.stages all\n.explain\n.format json csv\n")
      #expect(result.status == 65)
      #expect(result.stderr == """
        error: unknown command '.hepl'; did you mean '.help'?
        help: '.help' lists the commands
        error: '.stages' takes no argument
        help: .stages
        error: missing QUERY
        help: .explain QUERY
        error: '.format' takes one word
        help: .format table|json|csv

        """)
    }
  }

  @Test func usageErrorsExit64() throws {
    try Workspace.withReplIndex { workspace in
      let noDatabase = try workspace.run(["repl"], stdin: "")
      #expect(noDatabase.status == 64)
      #expect(noDatabase.stderr.hasPrefix("error: missing '--db <FILE>'\n"))
      let positional = try workspace.run(["repl", "--db", "index.db", "search *"], stdin: "")
      #expect(positional.status == 64)
      let missing = try workspace.run(["repl", "--db", "nothing.db"], stdin: "")
      #expect(missing.status == 66)
    }
  }
}
