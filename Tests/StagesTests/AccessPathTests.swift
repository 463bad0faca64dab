import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex
@testable import Stages

/// Access-path rules, checked on SQLite's own plan (`EXPLAIN QUERY PLAN`) for the statements
/// the compiler emits: a full-text match drives every statement it is part of. As the inner
/// side of a join FTS5 runs the match once per item (13 s instead of 5 ms for a count over a
/// 64k-item catalogue), so the first loop must read the `fts` virtual table and `items` must
/// never be scanned.
@Suite struct AccessPathTests {
  /// One query per statement shape the compiler emits for a text search, with and without
  /// other predicates beside it.
  static let textQueries = [
    // count
    #"search "trail" | count"#,
    #"search "trail" && rating > 3 | count"#,
    #"search "trail" && rating > 3 && rating < 5 && domainIdentifier == "trails" | count"#,
    #"search "trail" | limit 3 | count"#,
    // group
    #"search "trail" | group by stateOrProvince | count"#,
    #"search "trail" && rating >= 4 | group by stateOrProvince | count"#,
    #"search "trail" | group by domainIdentifier | count"#,
    #"search "trail" | group by keywords | count"#,
    // stats
    #"search "trail" | stats avg(rating)"#,
    #"search "trail" | stats count(rating), sum(distance)"#,
    #"search "trail" && distance < 10 | stats max(rating)"#,
    #"search "trail" | stats avg(distance), max(rating) by stateOrProvince"#,
    #"search "trail" | stats median(distance)"#,
    // table
    #"search "trail" | table title, rating"#,
    #"search "trail" && rating > 3 | table title, rating"#,
    // sort and limit
    #"search "trail" | sort rating desc | limit 3"#,
    #"search "trail" && rating > 3 | sort title | limit 3"#,
    // top k by relevance (FTS5 bm25: prefix and phrase searches; an AND of whole words takes
    // the ranked index, `RankedQueryTests`)
    #"search "mist trai*" | top 3"#,
    #"search "trai*" | top 3"#,
    #"search 'mist trail' && rating > 3 | top 3"#,
    #"search "trai*" && keywords == "waterfall" | top 3"#,
    // every match in relevance order
    #"search "trail""#,
  ]

  /// A loop over the full-text index (`SCAN` or `SEARCH`, by SQLite version and constraints).
  static func readsFTS(_ loop: String) -> Bool {
    loop.hasPrefix("SCAN fts VIRTUAL TABLE") || loop.hasPrefix("SEARCH fts VIRTUAL TABLE")
  }

  /// The samples with SQLite's statistics (`ANALYZE`), which make its cost model depend on
  /// the sizes of the tables and indexes: the rules hold with and without them.
  static let analyzedIndex: TemporaryIndex = {
    let index = try! TemporaryIndex.lingering()
    try! index.add(paths: ["trails.jsonl", "notes.jsonl", "notes-folder"].map { samplesFolder.appendingPathComponent($0).path })
    try! index.index.pool.withWriter { db in try db.execute("ANALYZE") }
    return index
  }()

  func statements(_ query: String, analyzed: Bool = false, distinctValueLimit: Int = SQLCompiler.distinctValueLimit) throws -> [Explainer.Statement] {
    let executor = QueryExecutor(index: (analyzed ? Self.analyzedIndex : sampleIndex).index, registry: standardRegistry)
    var options = QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock)
    options.distinctValueLimit = distinctValueLimit
    return try Explainer(executor: executor).statements(try executor.prepare(query, options: options), options: options)
  }

  @Test(arguments: textQueries, [false, true])
  func textMatchDrivesTheStatement(_ query: String, analyzed: Bool) throws {
    let statements = try statements(query, analyzed: analyzed)
    try #require(!statements.isEmpty, "no SQL statement for \(query)")
    for statement in statements {
      let plan = statement.plan.lines.joined(separator: "\n")
      let first = try #require(statement.plan.loops.first, "\(query): no loop in\n\(plan)")
      #expect(Self.readsFTS(first), "\(query): the statement starts from \(first)\n\(statement.sql)\n\(plan)")
      // The match runs once: no other loop reads the fts table (as the inner side of a
      // join it would be matched again for every row of the outer loop).
      #expect(statement.plan.loops.filter(Self.readsFTS).count == 1, "\(query): fts read more than once\n\(plan)")
      #expect(!statement.plan.loops.contains { $0 == "SCAN i" || $0.hasPrefix("SCAN i USING") },
              "\(query): items scanned\n\(statement.sql)\n\(plan)")
    }
  }

  /// The statements keep giving the answers the same stages compute in Swift (the shapes
  /// above are all pushed down).
  @Test func textSearchResultsAreUnchanged() throws {
    let executor = QueryExecutor(index: sampleIndex.index, registry: standardRegistry)
    let options = QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock)
    var count = 0
    _ = try executor.run(#"search "trail" | count"#, options: options) { reply in
      if case .count(let n) = reply.content { count = n }
    }
    var items = 0
    _ = try executor.run(#"search "trail""#, options: options) { reply in items += reply.content.resultItems.count }
    #expect(count > 0)
    #expect(count == items)
  }

  /// `explain` prints SQLite's plan under each statement.
  @Test func explainShowsTheAccessPath() throws {
    let executor = QueryExecutor(index: sampleIndex.index, registry: standardRegistry)
    let options = QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock)
    let text = try Explainer(executor: executor).explain(try executor.prepare(#"search "trail" && domainIdentifier == "trails" | count"#, options: options), options: options)
    let lines = text.split(separator: "\n").map(String.init)
    let header = try #require(lines.firstIndex(of: "    access path:"), "\(text)")
    #expect(Self.readsFTS(lines[header + 1].trimmingCharacters(in: .whitespaces)), "\(text)")
    #expect(lines.contains("      SEARCH i USING INTEGER PRIMARY KEY (rowid=?)"), "\(text)")
  }

  // MARK: Predicates, sorts and aggregates

  /// Lines of SQLite's plan for every statement of `query`.
  func plans(_ query: String, analyzed: Bool = false) throws -> [String] {
    try statements(query, analyzed: analyzed).map { $0.plan.lines.joined(separator: "\n") }
  }

  /// Of several value tests in an AND, only the most selective (an equality before a
  /// range) lists its items; the others are looked up per item, so a broad range never
  /// builds the list of every item in it.
  @Test(arguments: [false, true])
  func theMostSelectiveValueTestDrives(analyzed: Bool) throws {
    let statements = try statements(#"search stateOrProvince == "Utah"cd && rating >= 4 && distance < 20 | limit 5"#, analyzed: analyzed)
    let sql = try #require(statements.first?.sql)
    #expect(sql.components(separatedBy: "i.rowid IN (SELECT item FROM vals").count == 2, "\(sql)")
    #expect(sql.contains("i.rowid IN (SELECT item FROM vals WHERE attr = ? AND fold = ?"), "\(sql)")
    #expect(sql.components(separatedBy: "EXISTS (SELECT 1 FROM vals INDEXED BY \(Schema.valueLookupIndex) WHERE item = i.rowid").count == 3, "\(sql)")
    let plan = try #require(statements.first?.plan.lines.joined(separator: "\n"))
    #expect(plan.components(separatedBy: "LIST SUBQUERY").count == 2, "\(plan)")
    // The ranges are checked through the table's (item, attr, ord) key, never by walking their range.
    #expect(!plan.contains("vals_num"), "\(plan)")
    #expect(plan.components(separatedBy: "USING PRIMARY KEY (item=? AND attr=?)").count == 3, "\(plan)")
  }

  /// A count of at most N items (`| limit 1 | count`, the built-in planner's "does this
  /// reading find anything") walks its most selective value test's index and stops at the
  /// limit: no `IN` list is built first. It counts what the general form counts, an item
  /// with several passing values once.
  @Test(arguments: [false, true])
  func aLimitedCountWalksItsDrivingValueIndex(analyzed: Bool) throws {
    let statements = try statements(#"search stateOrProvince == "Utah"cd && rating >= 4 | limit 1 | count"#, analyzed: analyzed)
    let sql = try #require(statements.first?.sql)
    #expect(sql.contains("FROM (SELECT item FROM vals WHERE attr = ? AND fold = ?) d CROSS JOIN items i ON i.rowid = d.item"), "\(sql)")
    let plan = try #require(statements.first?.plan)
    #expect(!plan.lines.joined().contains("LIST SUBQUERY"), "\(plan.lines)")
    #expect(plan.loops.first?.hasPrefix("SEARCH vals USING COVERING INDEX vals_fold") == true, "\(plan.lines)")

    let executor = QueryExecutor(index: (analyzed ? Self.analyzedIndex : sampleIndex).index, registry: standardRegistry)
    let options = QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock)
    func count(_ query: String) throws -> Int {
      var count = -1
      _ = try executor.run(query, options: options) { reply in if case .count(let n) = reply.content { count = n } }
      return count
    }
    for predicate in [#"stateOrProvince == "Utah"cd && rating >= 4"#, #"keywords == "*""#, #"domainIdentifier == "trails" && keywords == "*a*""#, "rating >= 4.5"] {
      let all = try count("search \(predicate) | count")
      #expect(all > 1, "\(predicate)")
      for limit in [1, 2, all, all + 10] {
        #expect(try count("search \(predicate) | limit \(limit) | count") == min(limit, all), "\(predicate) | limit \(limit)")
      }
    }
  }

  /// Expects `search PREDICATE | count` to count the items `search PREDICATE` lists; returns
  /// that number.
  func expectCountsOfListedItems(_ predicate: String, executor: QueryExecutor, options: QueryOptions) throws -> Int {
    var listed = 0
    _ = try executor.run("search \(predicate)", options: options) { reply in if case .items(let items) = reply.content { listed += items.count } }
    var count = -1
    _ = try executor.run("search \(predicate) | count", options: options) { reply in if case .count(let n) = reply.content { count = n } }
    #expect(count == listed, "\(predicate): \(count) against \(listed)")
    return listed
  }

  /// Expects `query` to answer, with protected items hidden and granted, what its stages
  /// give when they all run in Swift over the search's items.
  func expectTheStagesAnswers(_ query: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    for protection in [Set<String>(), ["private", "finance"]] {
      let (pushed, swift) = (try data(query, protection: protection), try inSwift(query, protection: protection))
      #expect(pushed == swift, "\(query) \(protection)\n\(pushed.jsonValue().compactText)\n\(swift.jsonValue().compactText)",
              sourceLocation: sourceLocation)
    }
  }

  /// A count of value tests alone, in a file with one named index, reads the value indexes
  /// and the partial indexes of hidden items, never an item row: its matches' items are not
  /// looked up for their scope columns. It counts what listing the items counts, in scopes
  /// that hide protected items, grant them, and hide expired ones.
  @Test(arguments: [false, true])
  func aCountOfValueTestsReadsNoItem(analyzed: Bool) throws {
    let predicates = [
      "rating >= 4.5", #"stateOrProvince == "Utah"cd && rating >= 4"#, #"keywords == "*a*""#, "contentModificationDate >= 2026-01-01",
      #"authorNames == "*""#,
    ]
    for predicate in predicates {
      let statements = try statements("search \(predicate) | count", analyzed: analyzed)
      let sql = try #require(statements.first?.sql)
      // The hidden rows are left out by rowid.
      #expect(sql.hasPrefix("SELECT count(*) FROM (SELECT ") && sql.contains("(SELECT item FROM vals WHERE ")
              && sql.hasSuffix(" d WHERE sl_visible(d.item)"), "\(sql)")
      let plan = try #require(statements.first?.plan.lines.joined(separator: "\n"))
      #expect(!plan.contains(" i ") && !plan.contains("items"), "\(predicate)\n\(plan)")
    }
    let executor = QueryExecutor(index: (analyzed ? Self.analyzedIndex : sampleIndex).index, registry: standardRegistry)
    let scopes = [
      AccessScope(now: sampleNow), AccessScope(now: sampleNow, protectionClasses: ["private", "finance"]),
      AccessScope(now: utc(2027, 6, 1)),
    ]
    for scope in scopes {
      let options = QueryOptions(scope: scope, clock: sampleClock)
      var counts: [Int] = []
      for predicate in predicates {
        counts.append(try expectCountsOfListedItems(predicate, executor: executor, options: options))
      }
      #expect(counts.allSatisfy { $0 > 0 })
    }
    // The scopes differ on these samples: protected and expiring items have values too.
    let all = QueryOptions(scope: scopes[1], clock: sampleClock)
    let plain = QueryOptions(scope: scopes[0], clock: sampleClock)
    func count(_ query: String, _ options: QueryOptions) throws -> Int {
      var count = -1
      _ = try executor.run(query, options: options) { reply in if case .count(let n) = reply.content { count = n } }
      return count
    }
    #expect(try count(#"search authorNames == "*" | count"#, all) > (try count(#"search authorNames == "*" | count"#, plain)))
  }

  /// A group count by an attribute over value tests alone (or every item), in a file with
  /// one named index, reads the attribute's values and the hidden rows, never an item; the
  /// groups are those the stages make in Swift, with protected items hidden or granted.
  @Test(arguments: [false, true])
  func aGroupCountOfValueTestsReadsNoItem(analyzed: Bool) throws {
    let queries = [
      "search * | group by keywords | count", "search rating >= 4 | group by stateOrProvince | count",
      "search * | group by rating | count", #"search keywords == "*a*" | group by authorNames | count"#,
    ]
    for query in queries {
      let statements = try statements(query, analyzed: analyzed)
      let sql = try #require(statements.first?.sql)
      #expect(sql.contains(" FROM vals g WHERE g.attr = ?"), "\(sql)")
      let plan = try #require(statements.first?.plan.lines.joined(separator: "\n"))
      #expect(!plan.contains("SEARCH i ") && !plan.contains("SCAN i") && !plan.contains("items_type_domain_scope"), "\(query): items read\n\(plan)")
      try expectTheStagesAnswers(query)
    }
    #expect(try data(queries[0]) != (try data(queries[0], protection: ["private", "finance"])), "the samples' hidden items have keywords")
    // Numbers come from the covering (attr, num) index, not a scan of every value.
    let numbers = try plans(queries[2], analyzed: analyzed).joined(separator: "\n")
    #expect(numbers.contains("COVERING INDEX vals_num") && !numbers.contains("SCAN g"), "\(numbers)")
  }

  /// Two bounds on one single-valued attribute, counted or grouped over value tests alone,
  /// are one range of its `(attr, num)` index: not two lists intersected, each of which holds
  /// nearly every item when the range is a year of dates. The counts and groups are those the
  /// stages make in Swift, with protected items hidden or granted.
  @Test(arguments: [false, true])
  func boundsOnOneAttributeAreOneRange(analyzed: Bool) throws {
    let queries = [
      "search rating >= 4 && rating < 4.8 | count", "search contentModificationDate >= 2026-01-01 && contentModificationDate < 2026-11-01 | count",
      "search rating > 3 && rating <= 4.9 && distance < 20 | count", "search rating >= 4 && rating < 4.8 | group by stateOrProvince | count",
      #"search rating >= 4 && rating < 4.8 && keywords == "*a*" | group by keywords | count"#,
    ]
    for query in queries {
      let sql = try #require(try statements(query, analyzed: analyzed).first?.sql)
      #expect(sql.contains("SELECT item FROM vals WHERE attr = ? AND num >") && sql.contains(" AND num <"), "\(sql)")
      let plan = try plans(query, analyzed: analyzed).joined(separator: "\n")
      #expect(plan.contains("COVERING INDEX vals_num (attr=? AND num>? AND num<?)"), "\(query)\n\(plan)")
      #expect(!plan.contains("SEARCH i ") && !plan.contains("SCAN i"), "\(query): items read\n\(plan)")
      try expectTheStagesAnswers(query)
    }
    #expect(try data(queries[1]) != (try data(queries[1], protection: ["private", "finance"])), "the samples' hidden items have dates")
  }

  /// Statistics grouped by an attribute over value tests alone (or every item), in a file with
  /// one named index, start from the items that have the attribute in its covering index, less
  /// the hidden rows; no item row is read, and the tables are those the stages make in Swift.
  @Test(arguments: [false, true])
  func statisticsByAnAttributeOfValueTestsReadNoItem(analyzed: Bool) throws {
    let queries = [
      "search * | stats avg(rating) by stateOrProvince", "search * | stats avg(rating), max(distance), count by difficulty",
      "search rating >= 4 | stats median(distance) by stateOrProvince", "search * | stats max(rating) by keywords",
      #"search keywords == "*a*" | stats sum(rating) by authorNames"#,
    ]
    for query in queries {
      let statements = try statements(query, analyzed: analyzed)
      let sql = try #require(statements.first?.sql)
      #expect(sql.contains("(SELECT item AS rowid FROM vals WHERE attr = ?") && sql.contains(" WHERE sl_visible(rowid)) i "), "\(sql)")
      let plan = try #require(statements.first?.plan.lines.joined(separator: "\n"))
      // `i` is the list of items; no item row is looked up, and not every value is read.
      #expect(!plan.contains("INTEGER PRIMARY KEY") && !plan.contains("items_type_domain_scope")
              && !plan.contains("SCAN vals"), "\(query): items or every value read\n\(plan)")
      try expectTheStagesAnswers(query)
    }
    #expect(try data(queries[3]) != (try data(queries[3], protection: ["private", "finance"])), "the samples' hidden items have keywords")
    // Counting each group's items alone is the group count's statement, from the values.
    for query in ["search * | stats count by keywords", "search rating >= 4 | stats count by stateOrProvince"] {
      let sql = try #require(try statements(query, analyzed: analyzed).first?.sql)
      #expect(sql.contains(" FROM vals g WHERE g.attr = ?") && sql.contains("sl_visible(g.item)"), "\(sql)")
      try expectTheStagesAnswers(query)
    }
  }

  /// Beside value tests, a content-type equality (the built-in planner's count of a
  /// collection) probes `items_type_domain_scope` by (index, type, rowid) for each listed item
  /// instead of reading the item; a type test the index cannot probe keeps the general form.
  /// Either way the count is that of the listed items, in every scope.
  @Test(arguments: [false, true])
  func aCountOfACollectionProbesTheTypeIndex(analyzed: Bool) throws {
    let probed = [#"contentType == "note" && keywords == "*a*""#, #"contentType == "trail" && rating >= 4"#]
    for predicate in probed {
      let statement = try #require(try statements("search \(predicate) | count", analyzed: analyzed).first)
      let plan = statement.plan.lines.joined(separator: "\n")
      #expect(plan.contains("SEARCH t USING COVERING INDEX items_type_domain_scope (indexId=? AND contentType=? AND rowid=?)"), "\(plan)")
    }
    let general = #"contentType == "NOTE"c && keywords == "*a*""#
    #expect(try statements("search \(general) | count", analyzed: analyzed).first?.sql.contains("FROM items i") == true)
    let executor = QueryExecutor(index: (analyzed ? Self.analyzedIndex : sampleIndex).index, registry: standardRegistry)
    for scope in [AccessScope(now: sampleNow), AccessScope(now: sampleNow, protectionClasses: ["private", "finance"]), AccessScope(now: utc(2027, 6, 1))] {
      let options = QueryOptions(scope: scope, clock: sampleClock)
      for predicate in probed + [general] {
        #expect(try expectCountsOfListedItems(predicate, executor: executor, options: options) > 0, "\(predicate) in \(scope)")
      }
    }
  }

  /// With a second named index in the file, value rows may belong to its items: the count
  /// keeps the general form, which tests each item's index, and counts this index's only.
  @Test func aCountOfValueTestsBesideAnotherNamedIndexTestsTheItems() throws {
    let index = try TemporaryIndex([
      item("a", [("rating", .number(5)), ("keywords", .list([.string("hike")]))]),
      item("b", [("rating", .number(2))]),
    ])
    try SearchIndex(path: index.index.path, name: "other").indexSearchableItems([
      item("c", [("rating", .number(5)), ("keywords", .list([.string("hike")]))]),
    ])
    let executor = QueryExecutor(index: try SearchIndex(path: index.index.path), registry: standardRegistry)
    let options = QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock)
    let statements = try Explainer(executor: executor).statements(try executor.prepare("search rating >= 4 | count", options: options), options: options)
    #expect(statements.first?.sql.contains("FROM items i") == true, "\(statements.map(\.sql))")
    var count = -1
    _ = try executor.run(#"search rating >= 4 && keywords == "hike" | count"#, options: options) { reply in
      if case .count(let n) = reply.content { count = n }
    }
    #expect(count == 1)
  }

  /// A text search alone, in a file of one named index, takes the scope's hidden rows out of
  /// its match by rowid (`sl_visible`): its count reads no item, and its best k (by relevance
  /// or by sort keys) are scored and cut before any item is read. All give what listing every
  /// match gives, in scopes that hide protected items, grant them, and hide expired ones.
  @Test func aTextSearchAloneReadsNoItemBeforeItsBest() throws {
    for query in [#"search "password" | count"#, #"search "password" | limit 2 | count"#] {
      let count = try #require(try statements(query).first)
      #expect(count.sql.contains("fts MATCH ? AND sl_visible(rowid)") && !count.sql.contains("items"), "\(count.sql)")
      #expect(!count.plan.loops.contains { $0.hasPrefix("SEARCH i") || $0.hasPrefix("SCAN i") }, "\(count.plan.lines)")
    }
    let top = try #require(try statements(#"search "mist trai*" | top 3"#).first)
    // The match is scored and cut to 3 in a co-routine; the items are read after it.
    let lines = top.plan.lines.map { $0.trimmingCharacters(in: .whitespaces) }
    let coroutine = try #require(lines.firstIndex(of: "CO-ROUTINE f"), "\(lines)")
    let items = try #require(lines.firstIndex { $0.hasPrefix("SEARCH o USING INTEGER PRIMARY KEY") }, "\(lines)")
    #expect(coroutine < items && Self.readsFTS(lines[coroutine + 1]), "\(lines)")
    // Sorted by an attribute, the same: keys looked up by rowid, every match's record never
    // carried through the sort.
    let sorted = try #require(try statements(#"search "mist trai*" | sort rating desc | limit 3"#).first)
    let sortedLines = sorted.plan.lines.map { $0.trimmingCharacters(in: .whitespaces) }
    let sortedCoroutine = try #require(sortedLines.firstIndex(of: "CO-ROUTINE f"), "\(sortedLines)")
    let sortedItems = try #require(sortedLines.firstIndex { $0.hasPrefix("SEARCH o USING INTEGER PRIMARY KEY") }, "\(sortedLines)")
    #expect(sortedCoroutine < sortedItems && Self.readsFTS(sortedLines[sortedCoroutine + 1]), "\(sortedLines)")
    #expect(!sortedLines.contains { $0.hasPrefix("SEARCH i") || $0.hasPrefix("SCAN i") }, "\(sortedLines)")

    let executor = QueryExecutor(index: sampleIndex.index, registry: standardRegistry)
    let scopes = [
      AccessScope(now: sampleNow), AccessScope(now: sampleNow, protectionClasses: ["private", "finance"]),
      AccessScope(now: utc(2037, 1, 1)),
    ]
    var countsPerScope: [[Int]] = []
    for scope in scopes {
      let options = QueryOptions(scope: scope, clock: sampleClock)
      func run(_ query: String) throws -> (count: Int?, items: [String]) {
        var count: Int?
        var items: [String] = []
        _ = try executor.run(query, options: options) { reply in
          if case .count(let n) = reply.content { count = n }
          items += reply.content.resultItems.map { "\($0.item.uniqueIdentifier) \($0.relevance)" }
        }
        return (count, items)
      }
      var counts: [Int] = []
      for words in ["password", "carpool", "compensation", "office", "trail", "mist trail", "mist trai*", "budget review", "nothingmatchesthis"] {
        // Every match in relevance order, read through the items.
        let listed = try run(#"search "\#(words)""#).items
        #expect(try run(#"search "\#(words)" | count"#).count == listed.count, "\(words)")
        #expect(try run(#"search "\#(words)" | limit 2 | count"#).count == min(2, listed.count), "\(words)")
        #expect(try run(#"search "\#(words)" | top 3"#).items == Array(listed.prefix(3)), "\(words)")
        // Sorted by attributes (missing values last, relevance breaking ties): the first k
        // of the whole sorted list.
        for sort in ["rating desc", "distance", "keywords desc, title", "title asc, rating desc"] {
          let sorted = try run(#"search "\#(words)" | sort \#(sort)"#).items
          #expect(try run(#"search "\#(words)" | sort \#(sort) | limit 4"#).items == Array(sorted.prefix(4)), "\(words) \(sort)")
          #expect(Set(sorted) == Set(listed), "\(words) \(sort)")
        }
        counts.append(listed.count)
      }
      countsPerScope.append(counts)
    }
    #expect(Set(countsPerScope).count == 3, "each scope sees other matches: \(countsPerScope)")
  }

  /// Aggregates over a text search (with value tests or a content-type equality beside it)
  /// read the visible matches' values by rowid, never an item row; they give what the stages
  /// compute in Swift, with protected items hidden or granted. A test of an item's own column
  /// (its domain) keeps the general form.
  @Test(arguments: [false, true])
  func aggregatesOfATextSearchReadNoItem(analyzed: Bool) throws {
    let queries = [
      #"search "trail" | group by keywords | count"#, #"search "password" || "budget" | group by authorNames | count"#,
      #"search "trail" && rating >= 4 | group by stateOrProvince | count"#, #"search "trail" | stats avg(rating)"#,
      #"search "trail" | stats avg(rating), max(distance) by difficulty"#, #"search "trail" | stats median(distance)"#,
      #"search "budget" && contentType == "note" | count"#, #"search "compensation" | stats count by keywords"#,
    ]
    for query in queries {
      let statement = try #require(try statements(query, analyzed: analyzed).first)
      #expect(statement.sql.contains("fts MATCH ? AND sl_visible(rowid)) i"), "\(statement.sql)")
      let plan = statement.plan.lines.joined(separator: "\n")
      #expect(!plan.contains("INTEGER PRIMARY KEY") && !plan.contains("SCAN items"), "\(query): items read\n\(plan)")
      try expectTheStagesAnswers(query)
    }
    #expect(try data(queries[7]) != (try data(queries[7], protection: ["private", "finance"])), "hidden items mention compensation")
    let general = try #require(try statements(#"search "trail" && domainIdentifier == "trails" | count"#, analyzed: analyzed).first)
    #expect(!general.sql.contains("sl_visible") && general.sql.contains("CROSS JOIN items i"), "\(general.sql)")
  }

  /// Beside another named index, a text search's rows are tested through their items: the
  /// full-text table holds the other index's rows too.
  @Test func aTextSearchBesideAnotherNamedIndexTestsTheItems() throws {
    let index = try TemporaryIndex([item("a", [("title", .string("quokka island"))]), item("b", [("title", .string("island"))])])
    try SearchIndex(path: index.index.path, name: "other").indexSearchableItems([item("c", [("title", .string("quokka"))])])
    let executor = QueryExecutor(index: try SearchIndex(path: index.index.path), registry: standardRegistry)
    let options = QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock)
    let statements = try Explainer(executor: executor).statements(try executor.prepare(#"search "quokka" | count"#, options: options), options: options)
    #expect(statements.first?.sql.contains("sl_visible") == false, "\(statements.map(\.sql))")
    var count = -1
    var top: [String] = []
    _ = try executor.run(#"search "quokka" | count"#, options: options) { reply in if case .count(let n) = reply.content { count = n } }
    _ = try executor.run(#"search "quokka" | top 5"#, options: options) { reply in top += reply.content.resultItems.map(\.item.uniqueIdentifier) }
    #expect(count == 1)
    #expect(top == ["a"])
    // An AND's top k stays on FTS5 here: its scores take the whole full-text table's counts,
    // which the ranked postings of one named index do not have.
    let and = try Explainer(executor: executor).explain(try executor.prepare(#"search "quokka island" | top 5"#, options: options), options: options)
    #expect(!and.contains("ranked index") && and.contains("fts MATCH"), "\(and)")
    var both: [String] = []
    _ = try executor.run(#"search "quokka island" | top 5"#, options: options) { reply in both += reply.content.resultItems.map(\.item.uniqueIdentifier) }
    #expect(both == ["a"])
  }

  /// Beside a text match that drives, every value test is a lookup per matching item.
  @Test func valueTestsBesideATextMatchAreLookups() throws {
    let statements = try statements(#"search "trail" && rating >= 4 && keywords == "waterfall" | count"#)
    let sql = try #require(statements.first?.sql)
    #expect(!sql.contains("i.rowid IN (SELECT item FROM vals"), "\(sql)")
    #expect(!(statements.first?.plan.lines.joined().contains("LIST SUBQUERY") ?? true))
  }

  /// An excluded value is looked up per item, not listed for every item that has it.
  @Test func excludedValuesAreLookups() throws {
    let sql = try #require(try statements(#"search domainIdentifier == "trails" && !(difficulty == "hard") | count"#).first?.sql)
    #expect(sql.contains("NOT (EXISTS (SELECT 1 FROM vals INDEXED BY \(Schema.valueLookupIndex) WHERE item = i.rowid"), "\(sql)")
  }

  /// A sort with a limit walks the attribute's index in order and stops at the limit (no
  /// temporary B-tree sorts every match); the full sort of every match is the second
  /// statement, run only when the walk's entries hold fewer matches than the limit. The
  /// results are those of the full sort either way: with a budget that reads every entry,
  /// with one that reads a single entry (the walk falls short), and with the default.
  @Test(arguments: [#"search * | sort rating desc | limit 5"#, #"search * | sort title | limit 4"#, #"search * | sort rating | limit 200"#,
                    #"search domainIdentifier == "trails" | sort distance | limit 2"#,
                    // Value tests are checked for each entry: a list of their items would drive instead.
                    #"search keywords == "waterfall"c && rating >= 4 | sort distance | limit 3"#,
                    #"search (keywords == "waterfall"c || keywords == "lake"c) && contentType == "trail" | sort rating desc | limit 2"#])
  func aSortWithALimitWalksTheIndex(_ query: String) throws {
    let statements = try statements(query)
    #expect(statements.count == 2, "\(statements.map(\.sql))")
    let walk = try #require(statements.first)
    // The walk stops at the last value of the index's first entries (a range on the index).
    #expect(walk.sql.contains(" coalesce((SELECT "), "\(walk.sql)")
    let walkPlan = walk.plan.lines.joined(separator: "\n")
    #expect(["INDEX vals_num (attr=? AND num", "INDEX vals_fold (attr=? AND fold"].contains { walkPlan.contains("SEARCH s USING COVERING " + $0) }, "\(walkPlan)")
    #expect(!walkPlan.contains("USE TEMP B-TREE FOR ORDER BY"), "\(walkPlan)")
    #expect(walk.plan.lines.first?.hasPrefix("SEARCH s USING COVERING INDEX") == true, "the walk drives: \(walkPlan)")
    // No list of items SQLite could drive from instead (as it did at a million items).
    #expect(!walk.sql.contains("i.rowid IN ("), "\(walk.sql)")
    let sorted = try #require(statements.last?.plan.lines.joined(separator: "\n"))
    #expect(sorted.contains("USE TEMP B-TREE FOR ORDER BY"), "\(sorted)")
    func ids() throws -> [String] {
      let executor = QueryExecutor(index: sampleIndex.index, registry: standardRegistry)
      let options = QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock)
      var ids: [String] = []
      _ = try executor.run(query, options: options) { ids += $0.content.resultItems.map(\.id) }
      return ids
    }
    let whole = try SQLCompiler.$sortWalkBudget.withValue(1_000_000) { try ids() }
    #expect(!whole.isEmpty)
    for budget in [1, 2, 5, 20] { #expect(try SQLCompiler.$sortWalkBudget.withValue(budget) { try ids() } == whole, "budget \(budget)") }
    #expect(try ids() == whole)
  }

  /// A walk that finds some of its limit but fewer walks again over twice the entries their
  /// share says the limit needs, instead of sorting every match: the same items as the full
  /// sort, with the full sort run only when the walk found none (or both walks fall short).
  @Test(arguments: [#"search domainIdentifier == "trails" | sort distance | limit 4"#, #"search rating >= 4.5 | sort contentModificationDate desc | limit 3"#])
  func aWalkThatFindsAFewWalksWider(_ query: String) throws {
    let executor = QueryExecutor(index: sampleIndex.index, registry: standardRegistry)
    func run(budget: Int) throws -> (ids: [String], walks: Int, sorts: Int) {
      let log = StatementLog()
      var options = QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock)
      options.statementLog = log
      var ids: [String] = []
      _ = try SQLCompiler.$sortWalkBudget.withValue(budget) {
        try executor.run(query, options: options) { ids += $0.content.resultItems.map(\.id) }
      }
      let walks = log.all.filter { $0.contains(" coalesce((SELECT ") }.count
      return (ids, walks, log.all.count - walks)
    }
    let whole = try run(budget: 1_000_000)
    #expect(whole.walks == 1 && whole.sorts == 0)
    var widened = 0
    for budget in Array(1...8) + [12, 16, 24, 32, 48, 64] {
      let walked = try run(budget: budget)
      #expect(walked.ids == whole.ids, "budget \(budget)")
      if walked.walks == 2 && walked.sorts == 0 { widened += 1 }
    }
    #expect(widened > 0, "no second walk answered")
  }

  /// The walk's entries are cut in the sort's own order (value, then rowid), so a tie at the
  /// cut never lets a later rowid in ahead of an earlier one: every budget gives the full
  /// sort's items, for a sort key with many equal values.
  @Test func aWalkCutAtATieKeepsTheSortsOrder() throws {
    let query = #"search * | sort difficulty desc | limit 3"#
    func ids(budget: Int) throws -> [String] {
      let executor = QueryExecutor(index: sampleIndex.index, registry: standardRegistry)
      let options = QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock)
      var ids: [String] = []
      _ = try SQLCompiler.$sortWalkBudget.withValue(budget) {
        try executor.run(query, options: options) { ids += $0.content.resultItems.map(\.id) }
      }
      return ids
    }
    let whole = try ids(budget: 1_000_000)
    #expect(whole.count == 3)
    for budget in 1...12 { #expect(try ids(budget: budget) == whole, "budget \(budget)") }
  }

  /// A text search sorted by one attribute with a limit takes the attribute's first index
  /// entries as a list the match probes (the match still drives), and looks the value up only
  /// for the matches among them; the sort of every visible match is the fallback. With every
  /// budget (the walk falling short, cut in the middle of equal values whose relevance orders
  /// them, or reading every entry) the items are the first k of the whole sorted list, in
  /// three scopes.
  @Test(arguments: [
    #"search "trail" | sort rating desc | limit 3"#, #"search "mist trai*" | sort title | limit 2"#,
    #"search "trail" || "password" | sort contentModificationDate desc | limit 4"#, #"search "trail" | sort difficulty desc | limit 3"#,
    #"search "trail" && keywords == "waterfall" | sort distance | limit 2"#,
  ])
  func aSortedTextSearchWalksTheIndex(_ query: String) throws {
    let statements = try statements(query)
    #expect(statements.count == 2, "\(statements.map(\.sql))")
    let walk = try #require(statements.first)
    let walkPlan = walk.plan.lines.joined(separator: "\n")
    #expect(walk.plan.loops.first.map(Self.readsFTS) == true, "the match drives\n\(walkPlan)")
    #expect(walkPlan.contains("LIST SUBQUERY"), "\(walkPlan)")
    #expect(["INDEX vals_num (attr=? AND num", "INDEX vals_fold (attr=? AND fold"].contains { walkPlan.contains("SEARCH vals USING COVERING " + $0) }, "\(walkPlan)")
    let unlimited = query.replacingOccurrences(of: #" \| limit \d+$"#, with: "", options: .regularExpression)
    let limit = Int(query.split(separator: " ").last!)!
    let executor = QueryExecutor(index: sampleIndex.index, registry: standardRegistry)
    for scope in [AccessScope(now: sampleNow), AccessScope(now: sampleNow, protectionClasses: ["private", "finance"]), AccessScope(now: utc(2037, 1, 1))] {
      let options = QueryOptions(scope: scope, clock: sampleClock)
      func ids(_ text: String, budget: Int? = nil) throws -> [String] {
        var ids: [String] = []
        _ = try SQLCompiler.$sortWalkBudget.withValue(budget) {
          try executor.run(text, options: options) { ids += $0.content.resultItems.map { "\($0.id) \($0.relevance)" } }
        }
        return ids
      }
      let whole = Array(try ids(unlimited).prefix(limit))
      #expect(!whole.isEmpty, "\(query)")
      for budget in [1, 2, 3, 5, 8, 20, 1_000_000] { #expect(try ids(query, budget: budget) == whole, "\(query) budget \(budget)") }
      #expect(try ids(query) == whole, "\(query)")
    }
  }

  /// The rows of a table reply; none for other replies.
  static func rows(_ reply: Reply) -> [[Value]] {
    if case .table(let table) = reply.content { return table.rows }
    return []
  }

  /// `query` run in `scope` with numbers read alone or not: what `describe` makes of each
  /// reply, and the statements that ran.
  static func run(
    _ query: String, executor: QueryExecutor, scope: AccessScope, readingNumbers: Bool, describe: (Reply) -> [String]
  ) throws -> (replies: [String], statements: [String], readWhole: Int) {
    var options = QueryOptions(scope: scope, clock: sampleClock)
    let log = StatementLog()
    options.statementLog = log
    var replies: [String] = []
    try ExecutionContext.$readsNumbersAlone.withValue(readingNumbers) {
      _ = try executor.run(query, options: options) { replies += describe($0) }
    }
    return (replies, log.all, log.itemsReadWhole)
  }

  /// `query` run by the standard stages and `freshness` in three scopes (`run`), with
  /// numbers read alone and through the records: what each reply holds, and what ran.
  static func numbersAndRecords(
    _ query: String
  ) throws -> [(numbers: (replies: [String], statements: [String], readWhole: Int), records: (replies: [String], statements: [String], readWhole: Int))] {
    var registry = standardRegistry
    try registry.register(.freshness())
    let executor = QueryExecutor(index: sampleIndex.index, registry: registry)
    let scopes = [AccessScope(now: sampleNow), AccessScope(now: sampleNow, protectionClasses: ["private", "finance"]), AccessScope(now: utc(2037, 1, 1))]
    return try scopes.map { scope in
      func run(numbers: Bool) throws -> (replies: [String], statements: [String], readWhole: Int) {
        try Self.run(query, executor: executor, scope: scope, readingNumbers: numbers) { reply in
          ["\(reply.content.resultItems.map { "\($0.item) \($0.relevance) \($0.score ?? -1) \($0.engagement)" })", "\(Self.rows(reply))"]
        }
      }
      return (try run(numbers: true), try run(numbers: false))
    }
  }

  /// The statements of `statements` with a full-text match.
  static func textMatches(_ statements: [String]) -> [String] { statements.filter { $0.contains("fts MATCH") } }

  /// Expects the same replies (not none) from numbers as from `other`, and one statement of
  /// numbers that reads no record: a full-text match, or with `listed` the ranked index's
  /// listing (`SQLCompiler.numericItemsOfListing`: no full-text match, no sort). Returns it.
  @discardableResult
  static func expectTheSameRepliesFromNumbers(
    _ numbers: (replies: [String], statements: [String], readWhole: Int), _ other: (replies: [String], statements: [String], readWhole: Int),
    _ query: String, listed: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
  ) -> [String] {
    #expect(numbers.replies == other.replies, "\(query)", sourceLocation: sourceLocation)
    #expect(!numbers.replies.joined().isEmpty, sourceLocation: sourceLocation)
    let matches = listed ? numbers.statements.filter { $0.contains("FROM json_each(?)) f") } : textMatches(numbers.statements)
    #expect(matches.count == 1 && !matches[0].contains("attributes"), "\(numbers.statements)", sourceLocation: sourceLocation)
    if listed { #expect(textMatches(numbers.statements).isEmpty && !matches[0].contains("ORDER BY"), "\(numbers.statements)", sourceLocation: sourceLocation) }
    return matches
  }

  /// A stage that reads only relevance after a text search that is the query's only test
  /// (`score relevance`) gets the ranked index's listing of every visible match in rank
  /// order, with no full-text match and no sort: the same items, relevance, scores and order
  /// as from the records, in three scopes.
  @Test(arguments: [
    #"search "trail" | score relevance | top 5"#,
    #"search "trail" || "lake" | score 2 * relevance + 1 | top 3"#,
    #"search "trail" || "budget" || "lake" | score relevance"#,
  ])
  func aRelevanceOnlyStageReadsTheRankedListing(_ query: String) throws {
    for (numbers, records) in try Self.numbersAndRecords(query) {
      Self.expectTheSameRepliesFromNumbers(numbers, records, query, listed: true)
    }
  }

  /// A Swift stage after a text search that reads only relevance and single numbers or dates
  /// (`freshness`, `score` without text tests) gets those values, not the records (and no
  /// item row unless it reads an item's own fields): the same items, scores and order as
  /// through the records, and every kept item whole after it, in three scopes.
  @Test(arguments: [
    #"search "trail" | freshness | top 3"#,
    #"search "trail" && rating >= 3 | score 0.5 * relevance + recency(contentModificationDate, 30d) | top 4"#,
    #"search "mist trai*" | score relevance + rating | top 2 | table title, rating, engagement"#,
    #"search "trail" | score relevance - distance(37.7, -119.5) / 100 | top 3"#,
    // Short texts come from the value table as written.
    #"search "trail" | score relevance + if(difficulty == "easy"c, 1, 0) | top 4 | table title, difficulty"#,
    // Engagement is an item's own: the items' rows are read (not their records).
    #"search "trail" | score relevance + engagement | top 3"#,
  ])
  func aNumericStageReadsNoRecord(_ query: String) throws {
    for (numbers, records) in try Self.numbersAndRecords(query) {
      // The matches' statement: fields and numbers, or the records.
      let matches = Self.expectTheSameRepliesFromNumbers(numbers, records, query)
      // No item row at all unless the stage reads an item's own fields.
      #expect(matches.first?.contains("items o") == query.contains("+ engagement"), "\(numbers.statements)")
      #expect(Self.textMatches(records.statements).count == 1 && Self.textMatches(records.statements)[0].contains("attributes"), "\(records.statements)")
    }
  }

  /// Every match of an OR search (the ranked index's listing) for a Swift stage that reads
  /// only relevance and single values gets them as an AND's matches do: one statement of
  /// rowids, relevance and values, no record, where the ranked path read every match's
  /// record. The same items, relevance, scores and order as the ranked path's, in three scopes.
  @Test(arguments: [
    #"search "trail" || "lake" | score relevance + rating | top 3"#,
    #"search "trail" || "mist" | freshness | top 4"#,
    #"search "trail" || "budget" || "lake" | score 0.5 * relevance + recency(contentModificationDate, 30d) | limit 6 | table title, rating"#,
    #"search ("trail" || "lake") && rating >= 3 | score relevance * rating"#,
  ])
  func everyMatchOfARankedSearchForANumericStageReadsNoRecord(_ query: String) throws {
    for (numbers, ranked) in try Self.numbersAndRecords(query) {
      Self.expectTheSameRepliesFromNumbers(numbers, ranked, query)
      #expect(Self.textMatches(ranked.statements).isEmpty, "\(ranked.statements)")
    }
  }

  /// A Swift stage after a predicate (no text search) that reads only single values gets
  /// them from the value table, and no item row when it reads no item field: the predicate's
  /// covering index gives the rowids. The same items, scores and order as through the
  /// records, in three scopes.
  @Test(arguments: [
    #"search domainIdentifier == "trails" | score -distance(37.7, -119.5) | top 3"#,
    #"search domainIdentifier == "trails" | score clamp(rating / 5, 0, 1) + if(difficulty == "easy", 0.2, 0) | top 4 | table title, rating"#,
    #"search domainIdentifier == "trails" | where rating > 4 || difficulty == "easy" | score rating | count"#,
    // Engagement is an item's own: the items' rows are read (not their records).
    #"search domainIdentifier == "trails" | score rating + engagement | top 3"#,
  ])
  func aStageAfterAPredicateReadsValuesByRowid(_ query: String) throws {
    let executor = QueryExecutor(index: sampleIndex.index, registry: standardRegistry)
    for scope in [AccessScope(now: sampleNow), AccessScope(now: sampleNow, protectionClasses: ["private", "finance"]), AccessScope(now: utc(2037, 1, 1))] {
      func run(numbers: Bool) throws -> (replies: [String], statements: [String], readWhole: Int) {
        try Self.run(query, executor: executor, scope: scope, readingNumbers: numbers) { reply in
          ["\(reply.content.resultItems.map { "\($0.item) \($0.score ?? -1) \($0.engagement)" })", "\(Self.rows(reply))", "\(reply.content.type)"]
        }
      }
      let numbers = try run(numbers: true)
      let records = try run(numbers: false)
      #expect(numbers.replies == records.replies, "\(query)")
      #expect(!numbers.replies.joined().isEmpty)
      let listing = try #require(numbers.statements.first { $0.contains("FROM items i") }, "\(numbers.statements)")
      #expect(!listing.contains("attributes"), "\(listing)")
      #expect(listing.contains("i.id") == query.contains("engagement"), "\(listing)")
    }
  }

  /// A statement that other statements read keeps its items without records when each of
  /// them starts with a stage that needs none (a count, a top, a limit): `merge(a, b) |
  /// count` reads no record, `| top 2` two. The same replies as through the records, in three
  /// scopes; a reader that needs records gets them read in one statement as before.
  @Test(arguments: [
    (#"a = search "trail"; b = search "lake"; merge(a, b) | count"#, 0),
    (#"a = search "trail"; b = search domainIdentifier == "notes*"; merge(a, b) | top 2"#, 2),
    (#"a = search "trail"; b = search "lake"; merge(a, b) | limit 3"#, 3),
    (#"a = search rating >= 4; a | count"#, 0),
    (#"a = search "trail"; b = search "lake"; merge(a, b) | table title"#, -1),
  ])
  func aStatementReadByCountsKeepsNoRecords(_ query: String, readWhole: Int) throws {
    let executor = QueryExecutor(index: sampleIndex.index, registry: standardRegistry)
    for scope in [AccessScope(now: sampleNow), AccessScope(now: sampleNow, protectionClasses: ["private", "finance"]), AccessScope(now: utc(2037, 1, 1))] {
      func run(numbers: Bool) throws -> (replies: [String], statements: [String], readWhole: Int) {
        try Self.run(query, executor: executor, scope: scope, readingNumbers: numbers) { reply in
          ["\(reply.content.resultItems.map { "\($0.item) \($0.relevance)" })", "\(Self.rows(reply))", "\(reply.content)".prefix(60).description]
        }
      }
      let numbers = try run(numbers: true)
      let records = try run(numbers: false)
      #expect(numbers.replies == records.replies, "\(query)")
      if readWhole >= 0 {
        #expect(numbers.readWhole <= readWhole, "\(query): \(numbers.readWhole) read whole")
        #expect(!numbers.statements.contains { $0.contains("attributes") }, "\(query): \(numbers.statements)")
      } else {
        #expect(numbers.readWhole == 0 && numbers.statements.contains { $0.contains("attributes") }, "\(query): \(numbers.statements)")
      }
    }
  }

  /// Items that carry only what `score`, `where` and `count` read are never read whole when
  /// the pipeline ends in a count (`search "budget" | score relevance | count` read and
  /// decoded a quarter of a million records at 1M): no statement reads a record, and the
  /// count is the one the records give, in three scopes.
  @Test(arguments: [
    #"search "trail" | score relevance | count"#,
    #"search "trail" | score relevance | where score > 0.5 | count"#,
    #"search "trail" | where relevance > 0.5 | count"#,
    #"search "trail" | where rating >= 4 && difficulty == "moderate"c | count"#,
    #"search "trail" | score rating + if(difficulty == "easy", 1, 0) | where score > 4 | count"#,
  ])
  func aCountAfterPartialItemsReadsNoRecord(_ query: String) throws {
    let executor = QueryExecutor(index: sampleIndex.index, registry: standardRegistry)
    for scope in [AccessScope(now: sampleNow), AccessScope(now: sampleNow, protectionClasses: ["private", "finance"]), AccessScope(now: utc(2037, 1, 1))] {
      func run(numbers: Bool) throws -> (replies: [String], statements: [String], readWhole: Int) {
        try Self.run(query, executor: executor, scope: scope, readingNumbers: numbers) { reply in
          if case .count(let count) = reply.content { return ["\(count)"] }
          return ["not a count: \(reply.content.type)"]
        }
      }
      let numbers = try run(numbers: true)
      let records = try run(numbers: false)
      #expect(numbers.replies == records.replies, "\(query)")
      #expect(numbers.replies.count == 1 && numbers.replies[0] != "0" && Int(numbers.replies[0]) != nil, "\(query): \(numbers.replies)")
      #expect(!numbers.statements.contains { $0.contains("attributes") }, "\(query): \(numbers.statements)")
      #expect(numbers.readWhole == 0, "\(query)")
    }
  }

  /// A sort (walking the sorted attribute's index or not, with or without a limit, over a
  /// predicate or a text search) followed by a Swift stage that reads only single numbers or
  /// dates selects those values, not the records: the same rows as through the records, in
  /// three scopes, whether the walk finds its items or gives way to the full sort.
  @Test(arguments: [
    #"search domainIdentifier == "trails" | sort latitude desc | limit 3 | table latitude"#,
    #"search domainIdentifier == "trails" | sort rating desc | table rating, distance"#,
    #"search "trail" | sort rating desc | limit 2 | table rating"#,
    #"search * | sort contentModificationDate | limit 4 | table contentModificationDate, rating"#,
    #"search domainIdentifier == "trails" | sort rating desc | limit 3 | table title, stateOrProvince, rating"#,
  ])
  func aSortedNumericStageReadsNoRecord(_ query: String) throws {
    let executor = QueryExecutor(index: sampleIndex.index, registry: standardRegistry)
    for scope in [AccessScope(now: sampleNow), AccessScope(now: sampleNow, protectionClasses: ["private", "finance"]), AccessScope(now: utc(2037, 1, 1))] {
      for budget in [1, 1_000_000] {
        func run(numbers: Bool) throws -> (replies: [String], statements: [String], readWhole: Int) {
          try SQLCompiler.$sortWalkBudget.withValue(budget) {
            try Self.run(query, executor: executor, scope: scope, readingNumbers: numbers) { reply in
              Self.rows(reply).map { "\($0)" }
            }
          }
        }
        let numbers = try run(numbers: true)
        let records = try run(numbers: false)
        #expect(numbers.replies == records.replies, "\(query) budget \(budget)")
        #expect(!numbers.replies.isEmpty, "\(query)")
        #expect(!numbers.statements.contains { $0.contains("attributes") }, "\(query) budget \(budget): \(numbers.statements)")
        #expect(records.statements.contains { $0.contains("attributes") }, "\(query): \(records.statements)")
      }
    }
  }

  /// Several statistics over single-valued attributes are one statement.
  @Test func statisticsShareOneStatement() throws {
    let single = try statements(#"search domainIdentifier == "trails" | stats avg(distance), max(rating), count"#)
    #expect(single.count == 1)
    #expect(single.first?.sql.contains("avg(s0.num), max(s1.num), count(DISTINCT i.rowid)") == true, "\(single.first?.sql ?? "")")
    // A median needs its values in order: a statement of its own.
    #expect(try statements(#"search domainIdentifier == "trails" | stats avg(distance), median(rating)"#).count == 2)
    // One statistic by a group is one statement too: its LEFT JOIN lists the groups whose
    // items lack the attribute (the notes have no distance), with no statement of counts.
    for query in ["search * | stats avg(distance) by domainIdentifier", #"search "trail" | stats max(rating) by keywords"#] {
      let grouped = try statements(query)
      #expect(grouped.count == 1 && grouped.first?.sql.contains("LEFT JOIN vals s0") == true, "\(query): \(grouped.map(\.sql))")
      #expect(try data(query) == (try inSwift(query)), "\(query)")
    }
    let byDomain = try data("search * | stats avg(distance) by domainIdentifier").jsonValue().compactText
    #expect(byDomain.contains(#"["notes",null]"#), "\(byDomain)")
  }

  /// A median or deviation of every item reads its values in the order of the (attr, num)
  /// index: no sort of all the values (a million at 1M items); by a group they are sorted by
  /// key and value. Either way the answer is the one computed in Swift.
  @Test(arguments: [false, true])
  func aMedianOfEveryItemWalksTheValueIndex(analyzed: Bool) throws {
    for query in ["search * | stats median(distance)", "search * | stats stddev(rating)", #"search domainIdentifier == "trails" | stats median(rating)"#] {
      let statement = try #require(try statements(query, analyzed: analyzed).first)
      let plan = statement.plan.lines.joined(separator: "\n")
      #expect(plan.contains("INDEX vals_num (attr=?") && !plan.contains("TEMP B-TREE"), "\(query)\n\(plan)")
      #expect(try data(query) == (try inSwift(query)), "\(query)")
    }
    let grouped = "search * | stats median(distance) by stateOrProvince"
    #expect(try data(grouped) == (try inSwift(grouped)))
    // By an attribute, one statement: its LEFT JOIN lists the groups whose items lack the attribute
    // (a NULL row each), with no second statement of the groups' counts.
    // (A deviation's sum runs in another order than Swift's, so its last digit may differ:
    // `PushdownEquivalenceTests` compares it within a tolerance.)
    for query in [grouped, "search * | stats median(rating) by difficulty", "search * | stats median(elevationGain) by keywords"] {
      let listed = try statements(query, analyzed: analyzed)
      #expect(listed.count == 1 && listed[0].sql.contains("LEFT JOIN vals s"), "\(query): \(listed.map(\.sql))")
      #expect(try data(query) == (try inSwift(query)), "\(query)")
    }
    #expect(try statements("search * | stats stddev(rating) by stateOrProvince", analyzed: analyzed).count == 1)
    // By an item's field the groups' counts read a covering index: cheaper than a row for
    // every item without the attribute.
    let byDomain = "search * | stats median(rating) by domainIdentifier"
    #expect(try statements(byDomain, analyzed: analyzed).count == 2)
    #expect(try data(byDomain) == (try inSwift(byDomain)))
  }

  /// A text pattern that needs the matcher (words of a name, a substring) on an attribute
  /// with many values reads only the attribute's text values, from the (attr, fold) index:
  /// never a scan of the value table.
  @Test(arguments: [false, true])
  func aTextPatternReadsTheAttributesValuesOnly(analyzed: Bool) throws {
    for query in [#"search * | people "Sam Ortiz" role from | count"#, #"search title == "*falls*"c | count"#] {
      let statement = try #require(try statements(query, analyzed: analyzed, distinctValueLimit: 0).first)
      let plan = statement.plan.lines.joined(separator: "\n")
      #expect(statement.sql.contains("fold IS NOT NULL AND "), "\(query): \(statement.sql)")
      #expect(!statement.plan.loops.contains { $0 == "SCAN vals" }, "\(query): the value table is scanned\n\(plan)")
      #expect(plan.contains("INDEX vals_fold (attr=?"), "\(query)\n\(plan)")
    }
  }

  /// A word pattern that ignores case and diacritics has SQLite find its words in the folded
  /// value (`instr`, no callback) before the matcher confirms; the answers are the matcher's.
  @Test func wordsOfAPatternAreFoundInTheFoldedValueFirst() throws {
    let fixture = try TemporaryIndex([
      item("a", domain: "mail", [("title", .string("One")), ("authorNames", .list([.string("Zoë Ängström")]))]),
      item("b", domain: "mail", [("title", .string("Two")), ("authorNames", .list([.string("ZOE angstrom-Smith")]))]),
      item("c", domain: "mail", [("title", .string("Three")), ("authorNames", .list([.string("Zoe Angstrand")]))]),
      item("d", domain: "mail", [("title", .string("Four")), ("authorNames", .list([.string("Angstrom Zoe")]))]),
      item("e", domain: "mail", [("title", .string("Five")), ("authorNames", .list([.string("ZoeAngstrom")]))]),
    ])
    let executor = QueryExecutor(index: fixture.index, registry: standardRegistry)
    var options = QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock)
    options.distinctValueLimit = 0  // as on an attribute with many values
    let query = #"search * | people "zoe ANGSTROM" role from | sort title"#
    let sql = try #require(try Explainer(executor: executor).statements(try executor.prepare(query, options: options), options: options).first?.sql)
    #expect(sql.contains("instr(fold, ?) > 0 AND instr(fold, ?) > 0 AND sl_match("), "\(sql)")
    var ids: [String] = []
    _ = try executor.run(query, options: options) { ids += $0.content.resultItems.map(\.id) }
    // Words in order, whatever their case and diacritics (a case change splits words too);
    // not a reversed pair, not a longer word.
    #expect(ids.sorted() == ["a", "b", "e"], "\(ids)")
    #expect(SQLCompiler.requiredFoldedWords(try #require(try Self.pattern(#""Zoë ång*"cdw"#))) == ["zoe", "ang"])
    #expect(SQLCompiler.requiredFoldedWords(try #require(try Self.pattern(#""Zoë ång*"cw"#))).isEmpty)
    #expect(SQLCompiler.requiredFoldedWords(try #require(try Self.pattern(#""*zoe*"cd"#))).isEmpty)
  }

  /// A pattern over an attribute with few distinct values (the names on a mailbox's
  /// messages) is matched once per distinct value, listed by seeks of the (attr, fold, str)
  /// index, and the matching values are looked up: the answers are the matcher's (one folded
  /// form written two ways, one of which matches), hidden items' values stay out of
  /// `explain`, and past `distinctValueLimit` distinct values the full-text index narrows
  /// instead.
  @Test func aPatternOverFewDistinctValuesLooksTheMatchingValuesUp() throws {
    let names = ["Zoë Ängström", "ZOE angstrom-Smith", "Zoe Angstrand", "Angstrom Zoe", "ZoeAngstrom", "Sam Ortiz", "Zoe Angstrom", "ZOE ANGSTROM"]
    var items = (0..<60).map { n in
      item("m\(n)", domain: "mail", [("title", .string("Message \(n)")), ("authorNames", .list([.string(names[n % names.count])]))])
    }
    items.append(item("secret", domain: "mail", protection: "private", [("title", .string("Hidden")), ("authorNames", .list([.string("Zoe Secretangstrom")]))]))
    let fixture = try TemporaryIndex(items)
    let executor = QueryExecutor(index: fixture.index, registry: standardRegistry)
    for protection in [Set<String>(), ["private"]] {
      let options = QueryOptions(scope: AccessScope(now: sampleNow, protectionClasses: protection), clock: sampleClock)
      let queries = [
        (#"search * | people "zoe ANGSTROM" role from"#, #""zoe ANGSTROM"cdw"#), (#"search authorNames == "*angstr*"cd"#, #""*angstr*"cd"#),
        (#"search authorNames == "sam*"cdw"#, #""sam*"cdw"#), (#"search authorNames == "*ANG*""#, #""*ANG*""#),
        (#"search authorNames == "*strom"d"#, #""*strom"d"#),
      ]
      for (query, literal) in queries {
        let statement = try #require(try Explainer(executor: executor).statements(try executor.prepare(query, options: options), options: options).first)
        #expect(statement.sql.contains("fold IN (SELECT value FROM json_each(?)) AND coalesce(str, fold) IN (SELECT value FROM json_each(?))"), "\(query): \(statement.sql)")
        #expect(!statement.sql.contains("sl_match"), "\(query): the matcher ran per value row: \(statement.sql)")
        #expect(statement.plan.lines.contains { $0.contains("INDEX vals_fold (attr=? AND fold=?)") }, "\(query)\n\(statement.plan.lines)")
        var ids: [String] = []
        _ = try executor.run(query, options: options) { ids += $0.content.resultItems.map(\.id) }
        let matcher = try PatternMatcher(try #require(try Self.pattern(literal)))
        var expected = (0..<60).filter { matcher.matches(names[$0 % names.count]) }.map { "m\($0)" }
        if !protection.isEmpty, matcher.matches("Zoe Secretangstrom") { expected.append("secret") }
        #expect(ids.sorted() == expected.sorted(), "\(query) \(protection)")
        #expect(!expected.isEmpty, "\(query)")
        let shown = try Explainer(executor: executor).explain(try executor.prepare(query, options: options), options: options)
        #expect(!shown.lowercased().contains("secret"), "\(query): \(shown)")
        #expect(shown.contains("(the values that match)"), "\(query): \(shown)")
      }
    }
    // More distinct values than the walk lists: the full-text index narrows.
    let many = try TemporaryIndex((0...SQLCompiler.distinctValueLimit).map { n in
      item("p\(n)", domain: "mail", [("title", .string("Message \(n)")), ("authorNames", .list([.string("Person\(n) Morgan")]))])
    })
    let manyExecutor = QueryExecutor(index: many.index, registry: standardRegistry)
    let options = QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock)
    let query = #"search authorNames == "person7 morgan"cdw"#
    let sql = try #require(try Explainer(executor: manyExecutor).statements(try manyExecutor.prepare(query, options: options), options: options).first?.sql)
    #expect(!sql.contains("json_each"), "\(sql)")
    #expect(sql.contains("item IN (SELECT rowid FROM fts WHERE fts MATCH ?)"), "\(sql)")
    var ids: [String] = []
    _ = try manyExecutor.run(query, options: options) { ids += $0.content.resultItems.map(\.id) }
    #expect(ids == ["p7"])
  }

  /// Beside a text search with many matches, a value test whose items are few is listed once
  /// and probed for each match (`+i.rowid IN (…)`: not handed to FTS5 as rowids to seek), and
  /// one whose items are many is looked up per match; a test that needs the matcher stays a
  /// lookup. The answers are the same either way, in a scope that hides items and one that
  /// shows them.
  @Test func aShortListBesideATextSearchIsListedOnce() throws {
    let names = ["Sam Ortiz", "Alex Morgan", "Emma Dubois"]
    let items = (0..<(2 * SQLCompiler.listingMatchFloor)).map { n in
      item("i\(n)", domain: "mail", protection: n % 10 == 0 ? "private" : nil, [
        ("title", .string("Alpha note \(n)")), ("rating", .number(Double(n % 100) / 20)),
        ("authorNames", .list([.string(n % 50 == 1 ? names[0] : names[1 + n % 2])])),
      ])
    }
    let fixture = try TemporaryIndex(items)
    let executor = QueryExecutor(index: fixture.index, registry: standardRegistry)
    let cases: [(query: String, listed: Bool, expected: (Int) -> Bool)] = [
      (#"search "alpha" && rating >= 4.9 | count"#, true, { Double($0 % 100) / 20 >= 4.9 }),
      (#"search "alpha" | people "sam ortiz" role from | count"#, true, { $0 % 50 == 1 }),
      (#"search "alpha" && authorNames == "Sam Ortiz" | count"#, true, { $0 % 50 == 1 }),
      (#"search "alpha" && rating >= 1 | count"#, false, { Double($0 % 100) / 20 >= 1 }),
      (#"search "alpha" && title == "alpha note 1*"c | count"#, false, { String($0).hasPrefix("1") }),
    ]
    for protection in [Set<String>(), ["private"]] {
      let options = QueryOptions(scope: AccessScope(now: sampleNow, protectionClasses: protection), clock: sampleClock)
      for (query, listed, expected) in cases {
        let statement = try #require(try Explainer(executor: executor).statements(try executor.prepare(query, options: options), options: options).first)
        #expect(statement.sql.contains("+i.rowid IN (") == listed, "\(query): \(statement.sql)")
        #expect(statement.plan.lines.contains { $0.contains("CORRELATED") } == !listed, "\(query)\n\(statement.plan.lines)")
        // The match drives, without a rowid constraint (`INDEX 0:=M…` would be a seek per listed item).
        let first = try #require(statement.plan.loops.first)
        #expect(Self.readsFTS(first) && !first.contains(":="), "\(query)\n\(statement.plan.lines)")
        var count: Int?
        _ = try executor.run(query, options: options) { reply in
          if case .count(let n) = reply.content { count = n }
        }
        let visible = items.indices.filter { protection.contains("private") || $0 % 10 != 0 }
        #expect(count == visible.filter(expected).count, "\(query) \(protection)")
      }
    }
  }

  /// Where no relevance is read (a count, groups, statistics), the text searches of an AND
  /// are one full-text match, which FTS5 answers by intersecting their lists; where relevance
  /// is read (the items), the ranking search's alone scores, and the others stay apart.
  @Test func textSearchesOfAnAggregateAreOneMatch() throws {
    for query in [
      #"search "trail" && "lake" | count"#, #"search "trail" && "lake" | group by domainIdentifier | count"#,
      #"search "trail" && "lake" && rating > 3 | stats avg(rating)"#, #"search ("lake" || "river") && "trail" | count"#,
    ] {
      let sql = try #require(try statements(query).first?.sql, "\(query)")
      #expect(sql.components(separatedBy: "fts MATCH").count - 1 == 1, "\(query): \(sql)")
    }
    let items = try #require(try statements(#"search "trail" && "lake""#).first?.sql)
    #expect(items.components(separatedBy: "fts MATCH").count - 1 == 2, "\(items)")
    // The same items either way.
    let counted = try data(#"search "trail" && "lake" | count"#)
    #expect(counted == .count(try ids(#"search "trail" && "lake""#).count))
    #expect(try ids(#"search "trail" && "lake""#).count > 3)
  }

  /// A pattern that keeps case and diacritics has SQLite find its ASCII runs, lowercased, in
  /// the folded value before the matcher confirms; the answers are the matcher's.
  @Test func literalRunsOfAPlainPatternAreFoundInTheFoldedValueFirst() throws {
    let fixture = try TemporaryIndex([
      item("a", domain: "pkg", [("title", .string("One")), ("homepage", .string("https://GitHub.com/x"))]),
      item("b", domain: "pkg", [("title", .string("Two")), ("homepage", .string("https://github.com/y"))]),
      item("c", domain: "pkg", [("title", .string("Three")), ("homepage", .string("https://GitHüb.com/z"))]),
      item("d", domain: "pkg", [("title", .string("Four")), ("homepage", .string("Ünïcode GitHub.com mirror"))]),
      item("e", domain: "pkg", [("title", .string("Five")), ("homepage", .string("https://gitlab.com/GitHub"))]),
    ])
    let executor = QueryExecutor(index: fixture.index, registry: standardRegistry)
    var options = QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock)
    options.distinctValueLimit = 0  // as on an attribute with many values
    let query = #"search homepage == "*GitHub.com*" | sort title"#
    let sql = try #require(try Explainer(executor: executor).statements(try executor.prepare(query, options: options), options: options).first?.sql)
    #expect(sql.contains("instr(fold, ?) > 0 AND sl_match("), "\(sql)")
    var ids: [String] = []
    _ = try executor.run(query, options: options) { ids += $0.content.resultItems.map(\.id) }
    #expect(ids.sorted() == ["a", "d"], "\(ids)")
    #expect(SQLCompiler.requiredFoldedRuns(try #require(try Self.pattern(#""*GitHub.com/*?xY*""#))) == ["github.com/", "xy"])
    #expect(SQLCompiler.requiredFoldedRuns(try #require(try Self.pattern(#""*Zoë*""#))) == ["zo"], "the ASCII run")
    #expect(SQLCompiler.requiredFoldedRuns(try #require(try Self.pattern(#""*github*"c"#))) == ["github"])
    #expect(SQLCompiler.requiredFoldedRuns(try #require(try Self.pattern(#""*Kiosks*"c"#))) == ["io"], "cut at k and s")
    #expect(SQLCompiler.requiredFoldedRuns(try #require(try Self.pattern(#""*Kiosks*""#))) == ["kiosks"])
    #expect(SQLCompiler.requiredFoldedRuns(try #require(try Self.pattern(#""*Crème*"d"#))) == ["creme"])
    #expect(SQLCompiler.requiredFoldedRuns(try #require(try Self.pattern(#""*ÅSK*"cd"#))).isEmpty)
    #expect(SQLCompiler.requiredFoldedRuns(try #require(try Self.pattern(#""Zoe Angstrom"w"#))) == ["zoe", "angstrom"], "cut where words are")
    #expect(SQLCompiler.requiredFoldedRuns(try #require(try Self.pattern(#""git*hub.com"ct"#))) == ["git", "hub", "com"])
  }

  /// The runs of a pattern that ignores case or diacritics are found in the folded value
  /// first, and the answers stay the matcher's, on values where case and diacritics are
  /// hard: the Kelvin sign and the long s (PCRE2 matches them by `k` and `s`), decomposed
  /// and precomposed accents, a dotted capital I, a sharp s, ligatures. The same answers
  /// come from the matcher run once per distinct value (`distinctValueLimit`).
  @Test(arguments: [0, SQLCompiler.distinctValueLimit])
  func literalRunsOfAnyPatternAreFoundInTheFoldedValueFirst(distinctValueLimit: Int) throws {
    let titles = [
      "Ridge Trail", "RIDGE", "ri\u{0301}dge", "rídge walk", "Kiosk", "\u{212A}iosk", "kio\u{017F}k", "KIOSKS", "Crème brûlée",
      "Cre\u{0300}me", "CREME", "İstanbul", "istanbul", "Straße", "STRASSE", "œuvre", "OEUVRE", "Zoë", "ZOE", "github.com", "GitHub.COM",
      "ZoeAngstrom", "Zoe-Angstrom",
    ]
    let fixture = try TemporaryIndex(titles.enumerated().map { item("t\($0)", domain: "x", [("title", .string($1))]) })
    let executor = QueryExecutor(index: fixture.index, registry: standardRegistry)
    var options = QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock)
    options.distinctValueLimit = distinctValueLimit
    let patterns = ["*ridge*", "*idge*", "*iosk*", "*kiosk*", "*Crème*", "*creme*", "*stanbul*", "*Straße*", "*strasse*", "*uvre*", "*zoe*",
                    "*GITHUB.com*", "r?dge*", "*e w*", "Zoe Angstrom", "zoe angstrom"]
    for text in patterns {
      for modifiers in ["", "c", "d", "cd", "w", "cw", "dw", "cdw", "t", "cdt"] {
        let literal = #""\#(text)"\#(modifiers)"#
        let pattern = try #require(try Self.pattern(literal))
        let matcher = try PatternMatcher(pattern)
        let expected = titles.enumerated().filter { matcher.matches($1) }.map { "t\($0.offset)" }.sorted()
        let query = "search title == \(literal) | sort id"
        var ids: [String] = []
        _ = try executor.run(query, options: options) { ids += $0.content.resultItems.map(\.id) }
        #expect(ids.sorted() == expected, "\(query)")
        if text.hasPrefix("*"), !SQLCompiler.requiredFoldedRuns(pattern).isEmpty {
          let sql = try #require(try Explainer(executor: executor).statements(try executor.prepare(query, options: options), options: options).first?.sql)
          #expect(sql.contains(distinctValueLimit == 0 ? "instr(fold, ?) > 0" : "coalesce(str, fold) IN (SELECT value FROM json_each(?))"), "\(query): \(sql)")
        }
      }
    }
  }

  /// An OR of item lists (value tests, text searches) is one list, the union, whose items
  /// are looked up by rowid: no scan of every item (`people "alex"` read a million records).
  /// The answers are those of the parts searched apart, and of `people` in Swift.
  @Test(arguments: [false, true])
  func anOrOfListsLooksTheUnionUp(analyzed: Bool) throws {
    let executor = QueryExecutor(index: sampleIndex.index, registry: standardRegistry)
    let options = QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock)
    func ids(_ query: String) throws -> Set<String> {
      var ids: [String] = []
      _ = try executor.run(query, options: options) { ids += $0.content.resultItems.map(\.id) }
      // An item in both lists is one match.
      #expect(Set(ids).count == ids.count, "\(query) lists an item twice")
      return Set(ids)
    }
    let parts = [#"stateOrProvince == "Utah"cd"#, #"keywords == "waterfall"c"#, #""launch""#, #"title == "*trail*"cd"#]
    for (a, b) in [(0, 1), (1, 2), (2, 3), (0, 3)] {
      let query = "search \(parts[a]) || \(parts[b])"
      let statement = try #require(try statements(query, analyzed: analyzed).first)
      #expect(statement.sql.contains(" UNION ALL SELECT * FROM ("), "\(statement.sql)")
      #expect(!statement.plan.lines.contains { $0.contains("SCAN i") }, "\(query): \(statement.plan.lines)")
      let union = try ids("search \(parts[a])").union(try ids("search \(parts[b])"))
      #expect(try ids(query) == union, "\(query)")
      #expect(try ids(query + " | count").isEmpty)
    }
    // (A listing with a limit may walk the items in order and test the union instead.)
    let people = #"search * | people "alex""#
    let counted = try #require(try statements(people + " | count", analyzed: analyzed).first)
    #expect(counted.sql.contains(" UNION ALL SELECT * FROM ("), "\(counted.sql)")
    #expect(!counted.plan.lines.contains { $0.contains("SCAN i") }, "\(counted.plan.lines)")
    #expect(try ids(people) == Set((try inSwift(people)).resultItems.map(\.id)))
    #expect(try !ids(people).isEmpty)
  }

  /// A pattern reads the text as written from `vals_fold`, which holds it: no lookup of each
  /// value's row (at 1M items, 300,000 of them for `authorNames == "Alex*"`).
  @Test(arguments: [false, true])
  func aPatternReadsTheWrittenTextFromTheFoldIndex(analyzed: Bool) throws {
    for query in [#"search authorNames == "Alex*" | count"#, #"search title == "*trail*"cd"#, #"search title == "*m?st*"c | count"#] {
      let statement = try #require(try statements(query, analyzed: analyzed).first)
      #expect(!statement.sql.contains("FROM vals w"), "\(statement.sql)")
      #expect(statement.plan.lines.joined(separator: "\n").contains("COVERING INDEX vals_fold"), "\(statement.plan.lines)")
    }
  }

  /// Counting the groups of a single-valued attribute counts rows (one per item); a
  /// list-valued attribute, whose item may repeat a value, counts distinct items.
  @Test(arguments: [false, true])
  func groupCountsOfASingleValuedAttributeCountRows(analyzed: Bool) throws {
    let single = try #require(try statements(#"search domainIdentifier == "trails" | group by stateOrProvince | count"#, analyzed: analyzed).first)
    #expect(single.sql.contains("count(*)") && !single.sql.contains("count(DISTINCT"), "\(single.sql)")
    #expect(!single.plan.lines.joined(separator: "\n").contains("FOR count(DISTINCT)"))
    let list = try #require(try statements(#"search * | group by keywords | count"#, analyzed: analyzed).first)
    #expect(list.sql.contains("count(DISTINCT g.item)"), "\(list.sql)")
    // Grouped by written form from the (attr, fold, str) index alone, in its order: no scan
    // of every value, no lookup of a value's row for its text.
    let listPlan = list.plan.lines.joined(separator: "\n")
    #expect(listPlan.contains("COVERING INDEX vals_fold") && !listPlan.contains("TEMP B-TREE FOR GROUP BY"), "\(listPlan)")
    let state = try #require(try statements(#"search rating >= 4 | group by stateOrProvince | count"#, analyzed: analyzed).first)
    #expect(state.plan.lines.joined(separator: "\n").contains("COVERING INDEX vals_fold"), "\(state.plan.lines)")
    // The counts are the items of each group, as `group` then `count` give in Swift.
    let executor = QueryExecutor(index: sampleIndex.index, registry: standardRegistry)
    let options = QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock)
    for query in [
      #"search * | group by stateOrProvince | count"#, #"search "trail" | group by difficulty | count"#,
      #"search * | group by keywords | count"#, #"search rating >= 4 | group by stateOrProvince | count"#,
    ] {
      var table: PipelineData?
      _ = try executor.run(query, options: options) { table = $0.content }
      #expect(table == (try inSwift(query)), "\(query)")
    }
  }

  /// A count or a group by domain or content type is answered by `items_domain_type_scope` or
  /// `items_type_domain_scope` alone: they hold the scope's columns (expiry, protection), so no
  /// record is read (counting the notes of a million items read 336,000 records before).
  /// A listing by domain or type still comes in rowid order from the same index and stops
  /// at its limit instead of sorting every match.
  @Test(arguments: [false, true])
  func aDomainOrTypeTestReadsTheIndexAlone(analyzed: Bool) throws {
    let counted = [
      (#"search * | count"#, "COVERING INDEX items_"),
      (#"search domainIdentifier == "notes" | count"#, "COVERING INDEX items_domain_type_scope (indexId=? AND domain=?)"),
      (#"search contentType == "note" | count"#, "COVERING INDEX items_type_domain_scope (indexId=? AND contentType=?)"),
      (#"search * | group by domainIdentifier | count"#, "COVERING INDEX items_domain_type_scope"),
      (#"search * | group by contentType | count"#, "COVERING INDEX items_type_domain_scope"),
    ]
    for (query, path) in counted {
      let plan = try plans(query, analyzed: analyzed).joined(separator: "\n")
      #expect(plan.contains(path), "\(query)\n\(plan)")
      // The same counts as the stages give in Swift, hidden items (the notes that are
      // protected or expired at `sampleNow`) left out by the index's columns.
      #expect(try data(query) == (try inSwift(query)), "\(query)")
    }
    for query in [#"search domainIdentifier == "notes" | limit 3"#, #"search contentType == "note" | limit 3"#] {
      let plan = try plans(query, analyzed: analyzed).joined(separator: "\n")
      #expect(plan.contains("_scope") && !plan.contains("TEMP B-TREE"), "\(query)\n\(plan)")
      #expect(try data(query) == (try inSwift(query)), "\(query)")
    }
  }

  /// Groups by domain of one content type (or by type of one domain) start from the index
  /// of the field held to one value, not from the grouped field's own index walked in order,
  /// which reads the row of every item of the index to test the other field; the type's
  /// index holds the domain as well (the notes of a million items by domain: 0.5 → 0.1 s).
  /// The same groups and counts as the stages give in Swift.
  @Test(arguments: [false, true])
  func groupsByOneScopeFieldOfOneValueOfTheOtherStartFromItsIndex(analyzed: Bool) throws {
    let cases = [
      // The type's index holds the domain too: no item row is read.
      (#"search contentType == "email" | stats count by domainIdentifier"#, "COVERING INDEX items_type_domain_scope (indexId=? AND contentType=?)"),
      (#"search contentType == "email" | group by domainIdentifier | count"#, "COVERING INDEX items_type_domain_scope (indexId=? AND contentType=?)"),
      (#"search domainIdentifier == "trails" | stats count by contentType"#, "COVERING INDEX items_domain_type_scope (indexId=? AND domain=?)"),
      (#"search contentType == "email" | stats avg(rating) by domainIdentifier"#, "items_type_domain_scope (indexId=? AND contentType=?)"),
    ]
    for (query, path) in cases {
      let plan = try plans(query, analyzed: analyzed).joined(separator: "\n")
      #expect(plan.contains(path), "\(query)\n\(plan)")
      #expect(try data(query) == (try inSwift(query)), "\(query)")
    }
    // With nothing else to start from, the grouped field's covering index in key order.
    let plan = try plans(#"search * | stats count by domainIdentifier"#, analyzed: analyzed).joined(separator: "\n")
    #expect(plan.contains("COVERING INDEX items_domain_type_scope") && !plan.contains("GROUP BY"), "\(plan)")
  }

  /// A stage that reads only its items' positions (`sample` without a stratum) gets their
  /// rowids from a covering index instead of the rows that hold the records (`search * |
  /// sample 5` at 1M read 3.4 GB); the items it keeps are read whole, and the answers are
  /// those of whole items.
  @Test(arguments: [false, true])
  func aStageThatReadsOnlyPositionsGetsRowidsFromAnIndex(analyzed: Bool) throws {
    let index = (analyzed ? Self.analyzedIndex : sampleIndex).index
    for query in [
      #"search * | sample 5 seed 3"#, #"search domainIdentifier == "notes" | sample 2 seed 1"#,
      #"search contentType == "note" | sample 3 seed 9"#,
    ] {
      let statement = try #require(try statements(query, analyzed: analyzed).first)
      #expect(statement.sql.hasPrefix("SELECT i.rowid FROM items i WHERE "), "\(query)\n\(statement.sql)")
      let plan = statement.plan.lines.joined(separator: "\n")
      #expect(plan.contains("COVERING INDEX items_"), "\(query)\n\(plan)")
      let answer = try data(query, in: index)
      #expect(!answer.resultItems.isEmpty && answer.resultItems.allSatisfy { !$0.id.isEmpty }, "\(query)")
      #expect(answer == (try inSwift(query, in: index)), "\(query)")
    }
    // Value tests alone list their items from the value indexes; no item row is read.
    for query in [
      #"search rating >= 4 | sample 3 seed 2"#, #"search keywords == "waterfall" && contentType == "trail" | sample 2 seed 5"#,
      // Hidden (protected and expired) items have creation dates too.
      #"search contentCreationDate >= $time.iso(2000-01-01T00:00:00Z) | sample 6 seed 3"#,
    ] {
      let statement = try #require(try statements(query, analyzed: analyzed).first)
      #expect(statement.sql.contains("sl_visible(d.item)") && !statement.sql.contains("FROM items i"), "\(query)\n\(statement.sql)")
      #expect(!statement.plan.loops.contains { $0.hasPrefix("SEARCH i") || $0.hasPrefix("SCAN i") }, "\(query)\n\(statement.plan.lines)")
      for protection in [Set<String>(), ["private", "finance"]] {
        let answer = try data(query, in: index, protection: protection)
        #expect(!answer.resultItems.isEmpty, "\(query)")
        #expect(answer == (try inSwift(query, in: index, protection: protection)), "\(query) \(protection)")
      }
    }
    // A stratified sample reads the stratum: whole rows, as before.
    let stratified = try #require(try statements(#"search * | sample 3 by stateOrProvince"#, analyzed: analyzed).first)
    #expect(!stratified.sql.hasPrefix("SELECT i.rowid FROM"), "\(stratified.sql)")
  }

  /// The match pattern of `title == LITERAL`.
  static func pattern(_ literal: String) throws -> MatchPattern? {
    let graph = try prepare("search title == \(literal)")
    guard case .search(let predicate) = graph.statements.first?.source, case .test(let test) = predicate,
      case .match(let pattern) = test.kind else { return nil }
    return pattern
  }
}
