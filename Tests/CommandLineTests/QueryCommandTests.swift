import Foundation
import Testing
@testable import SearchIndex

@Suite struct QueryCommandTests {
  // MARK: JSON Lines

  @Test func jsonIsOneReplyALineWithTheSameTokenOnEvery() throws {
    let lines = try jsonLines([#"search "budget" | fork (count as "Matches") (top 2 | text) (group by domainIdentifier | count)"#])
    #expect(lines.count == 3)
    #expect(lines.map { $0.objectValue?.keys ?? [] } == Array(repeating: ["queryToken", "label", "content"], count: 3))
    let tokens = Set(lines.compactMap { $0["queryToken"]?.stringValue })
    #expect(tokens.count == 1)
    #expect(tokens.first?.hasPrefix("q") == true)
    #expect(lines.map { $0["label"] } == ["Matches", "Summary", "Table"])
    #expect(lines[0]["content"] == ["type": "count", "count": 22])
    #expect(lines[1]["content"]?["type"] == "text")
    #expect(lines[2]["content"]?["columns"] == ["domainIdentifier", "count"])
  }

  @Test func itemRepliesStreamInBatchesThatShareTheToken() throws {
    let lines = try jsonLines(["search *"])
    #expect(lines.count == 3)
    #expect(Set(lines.compactMap { $0["queryToken"]?.stringValue }).count == 1)
    #expect(lines.map { $0["content"]?["items"]?.arrayValue?.count ?? -1 } == [100, 100, 35])
    #expect(Set(itemIDs(lines)).count == 235)
  }

  @Test func timingReportsEveryPhaseOfTheProcess() throws {
    let result = try runOnSamples("query", ["--timing", "--", #"search "budget" | count"#])
    #expect(result.status == 0, "\(result)")
    let pattern = #/^time to first reply: [0-9.]+ ms, total: [0-9.]+ ms\nphases: (.*)\n$/#
    let match = try #require(result.stderr.wholeMatch(of: pattern), "\(result.stderr)")
    let phases = match.1.split(separator: ", ").map { $0.split(separator: " ") }
    #expect(phases.map { String($0[0]) } == ["start", "open", "catalogue", "plan", "execute", "render", "total"], "\(result.stderr)")
    #expect(phases.allSatisfy { $0.count == 3 && Double($0[1]) != nil && $0[2] == "ms" }, "\(result.stderr)")
  }

  @Test func twoRunsHaveTwoTokens() throws {
    let first = try jsonLines(["search * | count"])
    let second = try jsonLines(["search * | count"])
    #expect(first[0]["queryToken"] != second[0]["queryToken"])
    #expect(first[0]["content"] == second[0]["content"])
  }

  @Test func fetchKeepsTheChosenAttributes() throws {
    let lines = try jsonLines(["--fetch", "title,rating", "--", #"search domainIdentifier == "trails" | sort title | limit 2"#])
    let items = try #require(lines.first?["content"]?["items"]?.arrayValue)
    #expect(items.map { $0["attributes"] } == [["title": "Alkali Flat Trail", "rating": 4.4], ["title": "Angels Landing", "rating": 4.9]])
    #expect(items.map { $0["id"] } == ["trail-61", "trail-37"])
  }

  @Test func limitCutsEveryReply() throws {
    let lines = try jsonLines(["--limit", "2", "--", #"search domainIdentifier == "trails" | fork (sort title) (group by stateOrProvince | count)"#])
    #expect(lines.map { $0["content"]?["items"]?.arrayValue?.count ?? $0["content"]?["rows"]?.arrayValue?.count ?? -1 } == [2, 2])
    let bad = try runOnSamples("query", ["--limit", "many", "--", "search *"])
    #expect(bad.status == 64)
    #expect(bad.stderr.hasPrefix("error: --limit needs a whole number, got 'many'\n"))
  }

  @Test func nowDecidesWhatTimeMeans() throws {
    let query = "search contentModificationDate == $time.yesterday"
    let yesterday = Set(itemIDs(try jsonLines([query])))
    #expect(yesterday == ["note-24", "note-75", "note-76", "note-77", "mail-73", "mail-74", "mail-75", "md-reading-list", "md-squamish-2027"])
    let later = try CLI.run(["query", "--db", sampleDatabase, "--now", "2026-11-30T12:00:00Z", "--format", "json", "--", query], in: sampleFolder,
                            environment: ["TZ": "UTC"])
    #expect(later.status == 0)
    let laterIDs = Set(try later.stdout.split(separator: "\n").flatMap { itemIDs([try JSONParser.parse(String($0))]) })
    #expect(laterIDs != yesterday)
    let fromEnvironment = try CLI.run(["query", "--db", sampleDatabase, "--format", "json", "--", query], in: sampleFolder,
                                      environment: ["TZ": "UTC", "SEARCHLIGHT_NOW": sampleNow])
    #expect(Set(try fromEnvironment.stdout.split(separator: "\n").flatMap { itemIDs([try JSONParser.parse(String($0))]) }) == yesterday)
  }

  @Test func theTimeZoneIsHonoured() throws {
    // note-75 is due 2026-12-16T03:00:00Z, the evening of December 15 in Los Angeles.
    #expect(itemIDs(try jsonLines(["dueDate == 2026-12-16"])).contains("note-75"))
    #expect(!itemIDs(try jsonLines(["dueDate == 2026-12-16"], environment: ["TZ": "America/Los_Angeles"])).contains("note-75"))
    #expect(itemIDs(try jsonLines(["dueDate == 2026-12-15"], environment: ["TZ": "America/Los_Angeles"])).contains("note-75"))
  }

  @Test func protectionGrantsClasses() throws {
    let query = #"title == "*Wi-Fi*"c || title == "*tax*"c"#
    #expect(!itemIDs(try jsonLines([query])).contains("note-4"))
    #expect(itemIDs(try jsonLines(["--protection", "private", "--", query])).contains("note-4"))
    #expect(!itemIDs(try jsonLines(["--protection", "private", "--", query])).contains("note-32"))
    #expect(Set(itemIDs(try jsonLines(["--protection", "private,finance", "--", query]))).isSuperset(of: ["note-4", "note-32"]))
    // Expired items stay hidden whatever is granted.
    #expect(!itemIDs(try jsonLines(["--protection", "private,finance", "--", query])).contains("mail-27"))
  }

  // MARK: CSV and tables

  @Test func csvOfItemsTablesStatisticsAndCounts() throws {
    let items = try runOnSamples("query", ["--format", "csv", "--fetch", "title,rating", "--limit", "2", "--", #"search domainIdentifier == "trails" | sort title"#])
    #expect(items.status == 0)
    #expect(items.stdout == "id,title,rating\ntrail-61,Alkali Flat Trail,4.4\ntrail-37,Angels Landing,4.9\n")
    let table = try runOnSamples("query", ["--format", "csv", "--limit", "2", "--", #"search domainIdentifier == "trails" | sort title | table title, keywords"#])
    #expect(table.stdout == "title,keywords\nAlkali Flat Trail,\"desert, loop\"\nAngels Landing,\"canyon, views, summit\"\n")
    let statistic = try runOnSamples("query", ["--format", "csv", "--", #"search domainIdentifier == "trails" | stats max(rating)"#])
    #expect(statistic.stdout == "function,attribute,value\nmax,rating,5\n")
    let count = try runOnSamples("query", ["--format", "csv", "--", #"search domainIdentifier == "trails" | count"#])
    #expect(count.stdout == "count\n81\n")
  }

  @Test func csvQuotesQuotesAndNewlines() throws {
    try Workspace.with { workspace in
      try workspace.write("items.jsonl", #"{"id":"a","attributes":{"title":"say \"hi\", then\nleave"}}"# + "\n")
      #expect(try workspace.run("index", "--db", "index.db", "items.jsonl").status == 0)
      let result = try workspace.run("query", "--db", "index.db", "--format", "csv", "--", "search * | table title")
      #expect(result.stdout == "title\n\"say \"\"hi\"\", then\nleave\"\n")
    }
  }

  @Test func tablesForPeople() throws {
    let result = try runOnSamples("query", ["--format", "table", "--", #"search domainIdentifier == "trails" | group by stateOrProvince | count | limit 2"#])
    #expect(result.status == 0)
    let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    #expect(lines[0].hasPrefix("Table [table · q"))
    #expect(Array(lines.dropFirst()) == ["  stateOrProvince  count", "  ---------------  -----", "  California       12", "  Arizona          8", ""])
    let statistic = try runOnSamples("query", [#"search domainIdentifier == "trails" | stats avg(distance)"#])
    #expect(statistic.stdout.hasSuffix("]\n  avg(distance) = 9.147\n"))
    #expect(statistic.stdout.hasPrefix("Statistic [statistic · q"))
    let items = try runOnSamples("query", ["--limit", "1", "--", #"title == "Mist Trail""#])
    #expect(items.stdout.contains("  trail-1  Mist Trail"))
    let empty = try runOnSamples("query", ["false"])
    #expect(empty.stdout.hasSuffix("  (no items)\n"))
  }

  // MARK: Errors

  @Test func aBadQueryExits65WithTheCaret() throws {
    let result = try runOnSamples("query", ["titel == 1"])
    #expect(result.status == 65)
    #expect(result.stdout == "")
    #expect(result.stderr == "error: unknown attribute 'titel'\n --> query:1:1\n  |\n1 | titel == 1\n  | ^~~~~\nhelp: did you mean 'title'?\n")
  }

  @Test func aTypeErrorPointsAtTheStage() throws {
    let result = try runOnSamples("query", ["search * | count | sort title"])
    #expect(result.status == 65)
    #expect(result.stderr == """
      error: 'sort' needs items or scoredItems or table; 'count' produces count
       --> query:1:20
        |
      1 | search * | count | sort title
        |                    ^~~~
      help: stages that accept count: text

      """)
  }

  @Test func errorsAsJSON() throws {
    let result = try runOnSamples("query", ["--format", "json", "--", #"rating > 3 && title == "x"cz"#])
    #expect(result.status == 65)
    #expect(result.stdout == "")
    #expect(result.stderr.split(separator: "\n").count == 1)
    let error = try #require(try JSONParser.parse(result.stderr)["error"])
    #expect(error["message"] == "unknown modifier 'z'")
    #expect(error["line"] == 1)
    #expect(error["column"] == 28)
    #expect(error["hint"] == "modifiers are c (ignore case), d (ignore diacritics), w (words), t (tokens)")
    #expect(error.objectValue?.keys.prefix(4) == ["message", "line", "column", "hint"])
  }

  @Test func usageAndMissingInput() throws {
    try Workspace.with { workspace in
      let missing = try workspace.run("query", "--db", "none.db", "*")
      #expect(missing.status == 66)
      #expect(!workspace.exists("none.db"))
      let badNow = try workspace.run("query", "--db", sampleDatabase, "--now", "yesterday", "*")
      #expect(badNow.status == 64)
      #expect(badNow.stderr.hasPrefix("error: 'yesterday' is not an ISO-8601 date (e.g. 2026-11-29T12:00:00Z)\n"))
      let noQuery = try workspace.run("query", "--db", sampleDatabase)
      #expect(noQuery.status == 64)
      let badFormat = try workspace.run("query", "--db", sampleDatabase, "--format", "xml", "*")
      #expect(badFormat.status == 64)
      #expect(badFormat.stderr.hasPrefix("error: unknown format 'xml'; use one of table, json, csv\n"))
    }
  }

  @Test func aQueryStartingWithAMinus() throws {
    let result = try runOnSamples("query", ["--format", "json", "--", #"-distance < -20 || title == "Mist Trail""#])
    #expect(result.status == 65)
    #expect(try JSONParser.parse(result.stderr)["error"]?["id"] == "graph.computed-search")
    let ok = try runOnSamples("query", ["--format", "json", "--", #"search domainIdentifier == "trails" | where -distance < -20 | count"#])
    #expect(ok.status == 0)
    #expect(try JSONParser.parse(ok.stdout)["content"]?["type"] == "count")
  }
}

/// Words typed as a query (`query waterfall`, `query mist trail`) run as a text search, with a
/// note on stderr; a query with a mistake keeps its error.
@Suite struct BareWordQueryCommandTests {
  @Test func wordsAreATextSearchWithANote() throws {
    let words = try runOnSamples("query", ["--format", "json", "--", "mist trail"])
    #expect(words.status == 0, "\(words)")
    #expect(words.stderr == "note: no query here, so searched the text: search \"mist trail\"\n", "\(words)")
    let search = try runOnSamples("query", ["--format", "json", "--", #"search "mist trail""#])
    #expect(search.status == 0, "\(search)")
    #expect(search.stderr.isEmpty)
    func ids(_ output: String) -> [String] {
      output.split(separator: "\n").compactMap { try? JSONParser.parse(String($0)) }.flatMap { itemIDs([$0]) }
    }
    #expect(!ids(search.stdout).isEmpty)
    #expect(ids(words.stdout) == ids(search.stdout))
  }

  @Test func anAttributeNameOrAnOperatorKeepsTheError() throws {
    let attribute = try runOnSamples("query", ["--", "title"])
    #expect(attribute.status == 65, "\(attribute)")
    #expect(!attribute.stderr.contains("note:"), "\(attribute)")
    let mistake = try runOnSamples("query", ["--", "rating >"])
    #expect(mistake.status == 65, "\(mistake)")
    #expect(!mistake.stderr.contains("note:"), "\(mistake)")
  }
}

/// "Did you mean" when a query's words find nothing.
@Suite struct QuerySpellingTests {
  @Test func aMisspeltWordThatFindsNothingGetsASuggestion() throws {
    let result = try runOnSamples("query", ["--", #"search "retrospectve""#])
    #expect(result.status == 0, "\(result)")
    #expect(result.stdout.contains("(no items)"))
    #expect(result.stderr.contains(#"note: no item contains "retrospectve"; did you mean "retrospective"?"#), "\(result.stderr)")
  }

  @Test func onlyTheWordsSearchedInTextAreChecked() throws {
    // A domain compared by value and a group key that names no group are not text searches:
    // the trails exist, so saying no item contains "trails" (or "rating") would be false.
    let extract = try runOnSamples("query", ["--", #"search domainIdentifier == "trails" | group by stateOrProvince | extract "rating""#])
    #expect(extract.status == 0, "\(extract)")
    #expect(extract.stdout.contains("(no items)"), "\(extract)")
    #expect(!extract.stderr.contains("note:"), "\(extract.stderr)")
    // The misspelt word of a text search beside such a comparison is still pointed out.
    let mixed = try runOnSamples("query", ["--", #"search domainIdentifier == "notes" && "retrospectve""#])
    #expect(mixed.stdout.contains("(no items)"), "\(mixed)")
    #expect(mixed.stderr.contains(#"note: no item contains "retrospectve"; did you mean "retrospective"?"#), "\(mixed.stderr)")
    #expect(!mixed.stderr.contains(#""notes""#), "\(mixed.stderr)")
  }

  @Test func aQueryThatFindsSomethingSaysNothingAboutSpelling() throws {
    let result = try runOnSamples("query", ["--", #"search "retrospective""#])
    #expect(result.status == 0, "\(result)")
    #expect(!result.stderr.contains("did you mean"), "\(result.stderr)")
  }
}
