import Foundation
@testable import QueryEngine
import Testing
@testable import SearchIndex

/// OR-ranked text searches through the public query path (`QueryExecutor`): they take
/// the ranked index, return exactly its exhaustive top k with BM25F relevance, combine
/// with predicates and the access scope, and leave every other search on FTS5.
@Suite struct RankedQueryTests {
  static func dsl(_ words: [String], _ rest: String = "") -> String {
    "search (" + words.map { "\"\($0)\"" }.joined(separator: " || ") + ")" + rest
  }

  @Test func orSearchesTakeTheRankedIndexAndOthersStayOnFTS5() throws {
    let fixture = try RankedTestIndex()
    var generator = RandomItems(seed: 1, vocabularySize: 100)
    try fixture.upsert((0..<50).map { generator.item("item-\($0)") })
    for query in [#"search "water" || "trail" | top 5"#, #"search ("water" || "trail") && rating > 2"#] {
      let explanation = try fixture.explain(query)
      #expect(explanation.contains("ranked index: exact BM25F"), "\(query)\n\(explanation)")
      #expect(!explanation.contains("fts MATCH"), "\(query)\n\(explanation)")
    }
    // An AND of words with a limit too, scored as the full-text index scores it.
    for query in [
      #"search "water trail" | top 5"#, #"search "water" | top 5"#, #"search "water"s && rating > 2 | limit 3"#, #"search "water trail"^2 | top 5"#,
    ] {
      let explanation = try fixture.explain(query)
      #expect(explanation.contains("scored as the full-text index scores them"), "\(query)\n\(explanation)")
      #expect(!explanation.contains("fts MATCH"), "\(query)\n\(explanation)")
    }
    for query in [
      #"search "water trail""#, #"search 'water trail' | top 5"#, #"search "wat*" || "trail" | top 5"#, #"search "wat* trail" | top 5"#,
      #"search "water" || "trail" | sort rating | top 5"#, #"search "e-mail trail" | top 5"#,
      #"search "water" || "trail" | count"#, #"search "e-mail" || "trail" | top 5"#,
    ] {
      let explanation = try fixture.explain(query)
      #expect(!explanation.contains("ranked index"), "\(query)\n\(explanation)")
    }
  }

  /// `count` random items, every `protectedEvery`th protected ("hr"), every `expired.every`th
  /// from `expired.first` on expired, and the items numbered `deleted` deleted (their postings
  /// awaiting compaction).
  static func hiddenAndDeleted(
    _ generator: inout RandomItems, count: Int, protectedEvery: Int, expired: (first: Int, every: Int), deleted: [Int]
  ) throws -> RankedTestIndex {
    let fixture = try RankedTestIndex()
    var items = (0..<count).map { generator.item("item-\($0)") }
    for index in stride(from: 0, to: items.count, by: protectedEvery) { items[index].protectionClass = "hr" }
    for index in stride(from: expired.first, to: items.count, by: expired.every) { items[index].expirationDate = Date(timeIntervalSince1970: 1_767_225_600) }
    try fixture.upsert(items)
    try fixture.delete(deleted.map { "item-\($0)" })
    return fixture
  }

  /// A ranked index of 300 random items, every `protected.every`th of them protected by
  /// `protected.class` and every `expiredEvery`th expired, with the generator that made them.
  static func randomItemsWithHiddenOnes(
    seed: UInt64, vocabularySize: Int, protected: (every: Int, class: String), expiredEvery: Int
  ) throws -> (RankedTestIndex, RandomItems) {
    let fixture = try RankedTestIndex()
    var generator = RandomItems(seed: seed, vocabularySize: vocabularySize)
    var items = (0..<300).map { generator.item("item-\($0)") }
    for position in items.indices {
      if position % protected.every == 0 { items[position].protectionClass = protected.class }
      if position % expiredEvery == 0 { items[position].expirationDate = RankedTestIndex.now.addingTimeInterval(-60) }
    }
    try fixture.upsert(items)
    return (fixture, generator)
  }

  /// A scope that hides the protected items and one that grants them.
  static let bothScopes = [AccessScope(now: RankedTestIndex.now), AccessScope(now: RankedTestIndex.now, protectionClasses: ["hr"])]

  /// An AND of words with a limit takes the ranked index and gives exactly what the full-text
  /// statement gives for every match: the same items in the same order with the same
  /// relevance, bit for bit. Random words (stemmed, repeated, folded, camelCase parts, words
  /// no item has), beside predicates (an allowed set, and a check per candidate), in scopes
  /// that hide protected and expired items or grant them, and after deletes whose postings
  /// await compaction.
  @Test func anAndOfWordsWithALimitScoresAsTheFullTextIndex() throws {
    var generator = RandomItems(seed: 11, vocabularySize: 36)
    let fixture = try Self.hiddenAndDeleted(&generator, count: 160, protectedEvery: 7, expired: (3, 11), deleted: (0..<8).map { $0 * 13 + 1 })
    var compared = 0
    for round in 0..<60 {
      var words: [String] = []
      for _ in 0..<(1 + round % 3) {
        var word = generator.word()
        if round % 5 == 0 { word = word.uppercased() }
        words.append(word)
      }
      if round % 9 == 0 { words.append(words[0]) }  // a word twice counts twice
      if round == 17 { words.append("nowhere") }
      // Weights on some (they change no score of an AND, on either path).
      let text = "\"" + words.joined(separator: " ") + (round % 4 == 1 ? "\"s" : "\"") + (round % 7 == 3 ? "^2" : round % 7 == 5 ? "^0.5" : "")
      // A predicate beside it: a value test, or another word (a full-text test that filters).
      let rest = round % 3 == 0 ? " && rating >= 3" : round % 6 == 5 ? " && \"\(generator.word())\"" : ""
      let k = [1, 3, 10][round % 3]
      for (offset, scope) in Self.bothScopes.enumerated() {
        // Every match through FTS5 alone, in relevance order; its first k are the answer.
        let listed = try fixture.query("search \(text)\(rest) | sort relevance desc", scope: scope, usingRankedIndex: false)
        let expected = listed.prefix(k).map { "\($0.id) \($0.relevance.bitPattern)" }
        for limit in [1, 20_000] {
          let found = try SQLCompiler.$allowedSetLimit.withValue(limit) {
            try fixture.query("search \(text)\(rest) | top \(k)", scope: scope).map { "\($0.id) \($0.relevance.bitPattern)" }
          }
          #expect(found == Array(expected), "round \(round), scope \(offset), allowed-set limit \(limit): \(text)\(rest)")
        }
        if !listed.isEmpty { compared += 1 }
      }
    }
    #expect(compared > 60)
    #expect(try fixture.explain(#"search "water" && "trail" | top 3"#).contains("every one of"))
  }

  /// Every match of an AND, listed in relevance order or sorted by another key, has the
  /// relevance FTS5 gives it, bit for bit, read from the ranked postings instead of FTS5's
  /// bm25 per match (`ExecutionContext.rankedRelevance`).
  @Test func anAndListingTakesItsRelevanceFromTheRankedIndex() throws {
    var generator = RandomItems(seed: 23, vocabularySize: 30)
    let fixture = try Self.hiddenAndDeleted(&generator, count: 140, protectedEvery: 6, expired: (2, 13), deleted: (0..<6).map { $0 * 17 + 4 })
    var compared = 0
    for round in 0..<30 {
      let words = (0..<(1 + round % 2)).map { _ in generator.word() }
      let text = "\"" + words.joined(separator: " ") + (round % 3 == 1 ? "\"s" : "\"")
      for suffix in ["", " | sort rating desc", " && rating >= 2 | sort relevance desc"] {
        for scope in Self.bothScopes {
          let ranked = try fixture.query("search \(text)\(suffix)", scope: scope).map { "\($0.id) \($0.relevance.bitPattern)" }
          let fullText = try fixture.query("search \(text)\(suffix)", scope: scope, usingRankedIndex: false)
            .map { "\($0.id) \($0.relevance.bitPattern)" }
          #expect(ranked == fullText, "round \(round): \(text)\(suffix)")
          if !ranked.isEmpty { compared += 1 }
        }
      }
    }
    #expect(compared > 60)
    let explained = try fixture.explain(#"search "water" && "trail" | sort rating desc"#)
    #expect(explained.contains("sl_similarity(") && !explained.contains("sl_bm25("), "\(explained)")
  }

  /// A sample of a text search alone takes its positions from the ranked index's listing of
  /// every match (no item row read to order them): the same items with the same relevance as
  /// the sample of the same search with a limit past its matches (read by a statement or the
  /// ranked top k), hidden and deleted items never among them, for an AND and an OR; a test
  /// beside the search keeps the statement.
  @Test func aSampleOfATextSearchTakesItsPositionsFromTheRankedIndex() throws {
    var generator = RandomItems(seed: 29, vocabularySize: 30)
    let fixture = try Self.hiddenAndDeleted(&generator, count: 140, protectedEvery: 5, expired: (3, 11), deleted: (0..<5).map { $0 * 19 + 2 })
    var compared = 0
    for round in 0..<20 {
      let (a, b) = (generator.word(), generator.word())
      for search in ["\"\(a)\"", "\"\(a)\"s || \"\(b)\"", "\"\(a) \(b)\""] {
        let sample = "sample \(1 + round % 5) seed \(round)"
        let query = "search \(search) | \(sample)"
        for scope in Self.bothScopes {
          let ranked = try fixture.query(query, scope: scope)
          let limited = try fixture.query("search \(search) | limit 100000 | \(sample)", scope: scope)
          #expect(ranked.map { "\($0.id) \($0.relevance.bitPattern)" } == limited.map { "\($0.id) \($0.relevance.bitPattern)" }, "\(query)")
          // Whole items: their records were read after the sample.
          #expect(ranked.allSatisfy { $0.item.uniqueIdentifier == $0.id && !$0.item.attributeSet.isEmpty }, "\(query)")
          if !ranked.isEmpty { compared += 1 }
        }
      }
    }
    #expect(compared > 60)
    #expect(try fixture.explain(#"search "water" | sample 3"#).contains("positions only: every visible match in rank order from the ranked index"))
    #expect(!(try fixture.explain(#"search "water" | limit 100000 | sample 3"#)).contains("from the ranked index's listing"))
    #expect(!(try fixture.explain(#"search "water" && rating >= 2 | sample 3"#)).contains("from the ranked index's listing"))
  }

  /// An item's relevance is its BM25F score whatever stage follows the OR search: a sort by
  /// an attribute (SQLite orders the matches) gives each item the relevance of the ranked
  /// top k, and keeps relevance order among equal keys. Before, that statement scored with
  /// FTS5's bm25, so `| sort rating` changed every item's relevance.
  @Test func anOrSearchsRelevanceIsTheSameWhateverFollowsIt() throws {
    let fixture = try RankedTestIndex()
    var generator = RandomItems(seed: 7, vocabularySize: 60)
    try fixture.upsert((0..<80).map { generator.item("item-\($0)") })
    for words in [#""water" || "trail""#, #""water"s || "trail"s^2 || "lake""#] {
      let ranked = try fixture.query("search \(words)")
      try #require(ranked.count > 5, "\(words)")
      let relevance = Dictionary(uniqueKeysWithValues: ranked.map { ($0.id, $0.relevance) })
      let sorted = try fixture.query("search \(words) | sort rating desc")
      #expect(sorted.count == ranked.count)
      for item in sorted { #expect(item.relevance == relevance[item.id], "\(words): \(item.id)") }
      // Equal ratings keep relevance order, as a stable sort of the ranked items would.
      let rank = Dictionary(uniqueKeysWithValues: ranked.enumerated().map { ($1.id, $0) })
      let expected = ranked.enumerated().sorted { a, b in
        let (x, y) = (a.element.item.attributeSet["rating"]?.numericValue ?? -1, b.element.item.attributeSet["rating"]?.numericValue ?? -1)
        return x != y ? x > y : a.offset < b.offset
      }.map(\.element.id)
      #expect(sorted.map(\.id) == expected, "\(words)")
      #expect(rank.count == ranked.count)
      let explanation = try fixture.explain("search \(words) | sort rating desc")
      #expect(explanation.contains("sl_similarity"), "\(explanation)")
    }
  }

  @Test func termWeightsOrderTheResults() throws {
    let fixture = try RankedTestIndex()
    // Equally long titles with one distinct word each: only the weights decide the order.
    try fixture.upsert(["alpha", "beta", "gamma"].map { word in
      SearchableItem(uniqueIdentifier: word, attributeSet: AttributeSet([("title", .string(word + " report"))]))
    })
    #expect(try fixture.query(#"search "alpha"^0.2 || "beta"^3 || "gamma" | top 3"#).map(\.id) == ["beta", "gamma", "alpha"])
    #expect(try fixture.query(#"search "alpha"^3 || "beta"^0.2 || "gamma" | top 3"#).map(\.id) == ["alpha", "gamma", "beta"])
    let scores = try fixture.query(#"search "alpha"^2 || "beta" | top 2"#).map(\.relevance)
    #expect(scores.count == 2 && abs(scores[0] / scores[1] - 2) < 1e-9, "twice the weight, twice the score: \(scores)")
  }

  /// A search for every form of a word scores its forms as one term, as FTS5 scores the
  /// alternatives of one query position: an item that has the word as written ("cell", its
  /// own stem) and one that has another form ("cells") weigh the same, and the term's
  /// document frequency counts both (before, the bare word was a second, rarer term).
  @Test func everyFormOfAWordIsOneTerm() throws {
    let fixture = try RankedTestIndex()
    let texts = ["written": "cell report", "plural": "cells report", "other": "tissue report", "more": "tissue sample"]
    try fixture.upsert(texts.sorted(by: { $0.key < $1.key }).map { id, text in
      SearchableItem(uniqueIdentifier: id, attributeSet: AttributeSet([("title", .string(text))]))
    })
    #expect(try fixture.explain(#"search "cell"s || "zzz" | top 5"#).contains("ranked index"))
    let items = try fixture.query(#"search "cell"s || "zzz" | top 5"#)
    #expect(Set(items.map(\.id)) == ["written", "plural"])
    #expect(items.count == 2 && items[0].relevance == items[1].relevance, "\(items.map(\.relevance))")
    #expect(try fixture.consistencyProblems() == [])
    #expect(try fixture.index.checkIntegrity().isHealthy)
  }

  @Test func weightedQueriesEqualExhaustiveWeightedScoring() throws {
    let fixture = try RankedTestIndex()
    var generator = RandomItems(seed: 7, vocabularySize: 150)
    try fixture.upsert((0..<300).map { generator.item("item-\($0)") })
    var checked = 0
    for _ in 0..<16 {
      let words = (0..<Int.random(in: 2...5, using: &generator.random)).map { _ in generator.word() }
        .filter { RankedAnalysis.queryTerms(of: $0) != nil }
      guard words.count >= 2 else { continue }
      let weights = words.map { _ in Double(Int.random(in: 1...40, using: &generator.random)) / 10 }
      let k = generator.k()
      let query = "search (" + zip(words, weights).map { "\"\($0)\"^\($1)" }.joined(separator: " || ") + ") | top \(k)"
      let items = try fixture.query(query)
      let terms = zip(words, weights).flatMap { word, weight in RankedAnalysis.queryTerms(of: word)!.map { QueryTerm($0, weight: weight) } }
      let expected = try fixture.expectExact(terms, k: k, query)
      #expect(items.map(\.rowid) == expected.map(\.id), "\(query)")
      #expect(items.map(\.relevance) == expected.map(\.score), "\(query)")
      checked += 1
    }
    #expect(checked >= 8)
  }

  @Test(arguments: [UInt64(1), 2])
  func queryResultsEqualExhaustiveScoringWithUpdatesBetweenQueries(seed: UInt64) throws {
    let fixture = try RankedTestIndex()
    var generator = RandomItems(seed: seed + 40, vocabularySize: 250)
    try fixture.upsert((0..<500).map { generator.item("item-\($0)") })
    var next = 500
    for step in 0..<8 {
      for _ in 0..<4 {
        // At least two words: a single bare word is an AND search, which stays on FTS5.
        let words = (0..<Int.random(in: 2...6, using: &generator.random)).map { _ in generator.word() }
          .filter { RankedAnalysis.queryTerms(of: $0) != nil }
        guard words.count >= 2 else { continue }
        let k = generator.k()
        let items = try fixture.query(Self.dsl(words, " | top \(k)"))
        let terms = words.flatMap { word in RankedAnalysis.queryTerms(of: word)!.map { QueryTerm($0) } }
        let expected = try fixture.expectExact(terms, k: k, "step \(step) \(words)")
        #expect(items.map(\.rowid) == expected.map(\.id), "step \(step) \(words)")
        #expect(items.map(\.relevance) == expected.map(\.score), "step \(step) \(words)")
      }
      try fixture.upsert((0..<10).map { _ in generator.item("item-\(Int.random(in: 0..<next, using: &generator.random))") })
      try fixture.delete((0..<8).map { _ in "item-\(Int.random(in: 0..<next, using: &generator.random))" })
      try fixture.upsert((0..<10).map { _ in
        next += 1
        return generator.item("item-\(next)")
      })
    }
  }

  @Test func withoutALimitEveryMatchComesBackInRankOrder() throws {
    let fixture = try RankedTestIndex()
    var generator = RandomItems(seed: 9, vocabularySize: 60)
    try fixture.upsert((0..<120).map { generator.item("item-\($0)") })
    let items = try fixture.query(#"search "trail" || "runs""#)
    let expected = try fixture.ranked([QueryTerm("trail"), QueryTerm("runs")], k: 1_000, algorithm: nil)
    #expect(items.map(\.rowid) == expected.map(\.id))
    // The same items FTS5 matches for the two words.
    let fts = try fixture.index.read { db in
      try db.rows(
        #"SELECT rowid FROM fts WHERE fts MATCH '"trail" OR "runs"' ORDER BY rowid"#, [], { $0.int64(0) })
    }
    #expect(items.map(\.rowid).sorted() == fts)
  }

  @Test func predicatesAndDateRangesFilterBeforeRanking() throws {
    let fixture = try RankedTestIndex()
    var generator = RandomItems(seed: 13, vocabularySize: 150)
    let items = (0..<600).map { generator.item("item-\($0)") }
    try fixture.upsert(items)
    var states: [Int64: String] = [:]
    var dates: [Int64: Double] = [:]
    var ratings: [Int64: Double] = [:]
    for item in items {
      let rowid = try #require(try fixture.rowid(item.uniqueIdentifier))
      if case .string(let state)? = item.attributeSet["stateOrProvince"] { states[rowid] = state }
      if case .date(let date)? = item.attributeSet["contentCreationDate"] { dates[rowid] = date.timeIntervalSince1970 }
      if case .number(let rating)? = item.attributeSet["rating"] { ratings[rowid] = rating }
    }
    let start = ISO8601.parse("2026-03-01T00:00:00Z")!.timeIntervalSince1970
    let end = ISO8601.parse("2026-06-01T00:00:00Z")!.timeIntervalSince1970
    let cases: [(String, (Int64) -> Bool)] = [
      (#" && stateOrProvince == "Oregon""#, { states[$0] == "Oregon" }),
      (#" && contentCreationDate >= $time.iso(2026-03-01T00:00:00Z) && contentCreationDate < $time.iso(2026-06-01T00:00:00Z)"#,
       { dates[$0].map { $0 >= start && $0 < end } ?? false }),
      (" && rating >= 2", { (ratings[$0] ?? 0) >= 2 }),
    ]
    for (rest, allow) in cases {
      for limit in [20_000, 3] {
        // Small allowed-set limits make the executor check candidates one at a time.
        try SQLCompiler.$allowedSetLimit.withValue(limit) {
          for words in [["trail", "water"], ["w1", "w2", "w3", "connected", "budget"], ["runs", "runs"]] {
            let query = "search (" + words.map { "\"\($0)\"" }.joined(separator: " || ") + ")" + rest + " | top 10"
            let got = try fixture.query(query)
            let expected = try fixture.expectExact(words.map { QueryTerm($0) }, k: 10, allow: allow, query)
            #expect(got.map(\.rowid) == expected.map(\.id), "\(query) limit \(limit)")
            #expect(got.map(\.relevance) == expected.map(\.score), "\(query) limit \(limit)")
            #expect(got.allSatisfy { allow($0.rowid) }, "\(query)")
          }
        }
      }
    }
  }

  @Test func expiredAndProtectedItemsAreNeverReturned() throws {
    let fixture = try RankedTestIndex()
    func item(_ id: String, _ title: String, expiration: Date? = nil, protection: String? = nil) -> SearchableItem {
      SearchableItem(
        uniqueIdentifier: id, expirationDate: expiration, protectionClass: protection,
        attributeSet: AttributeSet([("title", .string(title))]))
    }
    let past = RankedTestIndex.now.addingTimeInterval(-60)
    let future = RankedTestIndex.now.addingTimeInterval(3_600)
    try fixture.upsert((0..<30).map { item("plain-\($0)", "filler \($0)") } + [
      item("expired", "secret secret secret", expiration: past),
      item("later", "secret plain", expiration: future),
      item("private", "secret secret", protection: "vault"),
      item("open", "secret filler"),
    ])
    func ids(_ query: String, scope: AccessScope = AccessScope(now: RankedTestIndex.now)) throws -> [String] {
      try fixture.query(query, scope: scope).map(\.item.uniqueIdentifier)
    }
    let query = #"search "secret" || "nothing" | top 10"#
    #expect(try Set(ids(query)) == ["later", "open"])
    #expect(try Set(ids(query, scope: AccessScope(now: RankedTestIndex.now, protectionClasses: ["vault"]))) == ["later", "open", "private"])
    #expect(try Set(ids(query, scope: AccessScope(now: future.addingTimeInterval(1)))) == ["open"])
    #expect(try Set(ids(#"search ("secret" || "nothing") && title == "*secret*" | top 10"#)) == ["later", "open"])
    try fixture.index.deleteSearchableItems(withIdentifiers: ["open"])
    #expect(try ids(query) == ["later"])
  }

  /// Items of three content types, some expired or protected, for the candidate filters
  /// of `contentType` tests.
  static func typedItems(_ fixture: RankedTestIndex) throws -> (types: [Int64: String], hidden: Set<Int64>) {
    var generator = RandomItems(seed: 21, vocabularySize: 80)
    let types = ["note", "trail", "email"]
    var items: [SearchableItem] = []
    for number in 0..<400 {
      var item = generator.item("item-\(number)")
      item.contentType = types[number % 3]
      if number % 7 == 0 { item.protectionClass = "vault" }
      if number % 11 == 0 { item.expirationDate = RankedTestIndex.now.addingTimeInterval(-60) }
      items.append(item)
    }
    try fixture.upsert(items)
    var byRowid: [Int64: String] = [:]
    var hidden = Set<Int64>()
    for (number, item) in items.enumerated() {
      let rowid = try #require(try fixture.rowid(item.uniqueIdentifier))
      byRowid[rowid] = item.contentType
      if number % 7 == 0 || number % 11 == 0 { hidden.insert(rowid) }
    }
    return (byRowid, hidden)
  }

  /// The candidates of a `contentType` test come from the (indexId, contentType, ...) index
  /// alone: the statement tests the predicate, not the scope, whose hidden rows the
  /// executor leaves out itself (it reads them anyway, for the statistics).
  @Test func aContentTypeFilterReadsItsCandidatesFromTheIndexAlone() throws {
    let fixture = try RankedTestIndex()
    _ = try Self.typedItems(fixture)
    let explanation = try fixture.explain(Self.dsl(["trail", "water"], #" && contentType == "note" | top 10"#))
    let candidates = try #require(explanation.split(separator: "\n").first { $0.contains("candidates:") })
    #expect(!candidates.contains("expiration") && !candidates.contains("protection"), "\(candidates)")
    #expect(explanation.contains("COVERING INDEX items_type_domain_scope (indexId=? AND contentType=?)"), "\(explanation)")
    #expect(!explanation.contains("SCAN i"), "\(explanation)")
  }

  /// With the scope applied by leaving out the hidden rows, a predicate's top k is still
  /// exactly the exhaustive top k of the visible items that pass it, with the hidden
  /// items out of the statistics, whether the candidates are read up front or checked one
  /// at a time.
  @Test func aPredicateWithHiddenItemsRanksExactlyTheVisibleItemsThatPassIt() throws {
    let fixture = try RankedTestIndex()
    let (types, hidden) = try Self.typedItems(fixture)
    var generator = RandomItems(seed: 22, vocabularySize: 80)
    for limit in [20_000, 3] {
      try SQLCompiler.$allowedSetLimit.withValue(limit) {
        for _ in 0..<8 {
          // Two words or more: one word alone is an FTS5 search.
          let words = (0..<Int.random(in: 2...4, using: &generator.random)).map { _ in generator.word() }
          let terms = words.flatMap { RankedAnalysis.queryTerms(of: $0) ?? [] }.map { QueryTerm($0) }
          for type in ["note", "trail"] {
            let query = Self.dsl(words, " && contentType == \"\(type)\" | top 10")
            #expect(try fixture.explain(query).contains("ranked index: exact BM25F top 10"), "\(query)")
            let got = try fixture.query(query)
            let allow: (Int64) -> Bool = { types[$0] == type && !hidden.contains($0) }
            let expected = try fixture.index.read { db in
              try #require(try fixture.index.rankedSearch(
                terms, k: 10, filter: .predicate(allow), excluding: hidden.sorted(), in: db, algorithm: nil))
            }
            #expect(got.map(\.rowid) == expected.map(\.id), "\(query) limit \(limit)")
            #expect(got.map(\.relevance) == expected.map(\.score), "\(query) limit \(limit)")
            #expect(got.allSatisfy { allow($0.rowid) }, "\(query) limit \(limit)")
          }
        }
      }
    }
  }

  /// The planner weighs terms by how many visible items hold them; the ranked index answers
  /// that from a term's document frequency less the hidden items among its postings, and
  /// must give FTS5's counts exactly: with protected and expired items, deleted items whose
  /// postings await compaction, and a hidden item whose text went away.
  @Test func visibleDocumentFrequenciesAreTheFullTextCounts() throws {
    let (fixture, made) = try Self.randomItemsWithHiddenOnes(seed: 23, vocabularySize: 60, protected: (5, "vault"), expiredEvery: 13)
    var generator = made
    try fixture.delete((1..<20).map { "item-\($0 * 7)" })
    try fixture.upsert([SearchableItem(uniqueIdentifier: "item-5", protectionClass: "vault")])
    #expect(try fixture.index.read { db in try fixture.index.rankedStatistics(in: db)?.tombstones } ?? 0 > 0)
    let words = (0..<40).map { _ in generator.word() } + ["absent"]
    let terms = words.flatMap { [$0, "\u{1}" + $0] }
    let rankedTerms = try terms.map { try #require(RankedAnalysis.queryTerms(of: $0)?.first) }
    for scope in [AccessScope(now: RankedTestIndex.now), AccessScope(now: RankedTestIndex.now, protectionClasses: ["vault"])] {
      let ranked = try #require(try fixture.index.visibleDocumentFrequencies(ofTerms: rankedTerms, scope: scope))
      let counted = try fixture.index.itemCounts(matching: terms.map { "\"" + $0 + "\"" }, scope: scope)
      #expect(ranked == counted, "\(scope.protectionClasses)")
      #expect(counted.contains { $0 > 0 })
    }
  }

  /// A ranked search beside value tests checks a candidate (when too many items pass them to
  /// list) by looking its values and words up by rowid, never by building the tests' lists:
  /// in the list form SQLite built the whole list again for every candidate checked, and a
  /// top 10 of an OR beside `rating >= 4` took 153 s at 1M. The answers stay those of the
  /// listing.
  @Test func aCandidateCheckLooksTheCandidatesValuesUp() throws {
    let fixture = try RankedTestIndex()
    var generator = RandomItems(seed: 5, vocabularySize: 40)
    try fixture.upsert((0..<120).map { generator.item("item-\($0)") })
    let executor = QueryExecutor(index: fixture.index, registry: RankedTestIndex.registry)
    let options = QueryOptions(scope: AccessScope(now: RankedTestIndex.now), clock: QueryClock(now: RankedTestIndex.now, timeZone: TimeZone(identifier: "UTC")!))
    let queries = [
      #"search ("water" || "trail") && rating >= 3 | top 5"#, #"search "water" && rating >= 2 && stateOrProvince == "Utah"cd | top 5"#,
      #"search ("water"s || "run") && title == "*er*" | top 5"#, #"search "trail" && !(rating == 1) | top 5"#,
      // An OR at the top of the tests stays in parentheses (it took the index test and the
      // candidate's rowid with it: every candidate passed).
      #"search ("water" || "trail") && (rating == 1 || stateOrProvince == "Utah"cd) | top 5"#,
      #"search "water" && (rating == 5 || stateOrProvince == "Oregon"cd) | top 5"#,
      // A phrase beside the ranked search is looked up in the full-text index for the
      // candidate (a word is found in the ranked index: `wordsBesideASearchAreFoundInTheRankedIndex`).
      #"search ("water" || "run") && 'trail' && rating >= 2 | top 5"#,
    ]
    for query in queries {
      let checks = try fixture.index.read { db -> [SQLCompiler.Compiled] in
        let context = try executor.makeContext(db, options: options)
        let plan = try context.plan(try executor.prepare(query, options: options))
        var checks: [SQLCompiler.Compiled] = []
        for case .sql(let step) in plan.statements.flatMap(\.pipeline.steps) {
          if case .ranked(let ranked, _) = try context.compile(step), case .predicate(let allowed, let check, _) = ranked.filter {
            try context.run(allowed) { _ in }
            try context.installFunctions(for: check)  // the pattern matchers the check calls
            checks.append(check)
          }
        }
        for check in checks {
          let lines = try db.rows("EXPLAIN QUERY PLAN " + check.sql, [.integer(1)] + check.arguments) { $0.string(3) ?? "" }
          #expect(!lines.contains { $0.contains("LIST SUBQUERY") }, "\(query): \(check.sql)\n\(lines)")
          #expect(check.sql.contains(query.contains("'trail'") ? "fts MATCH ? AND rowid = i.rowid" : "item = i.rowid"), "\(query): \(check.sql)")
        }
        return checks
      }
      #expect(checks.count == 1, "\(query)")
      // Checked one candidate at a time, the answers are those of the listing.
      let listed = try fixture.query(query.replacingOccurrences(of: " | top 5", with: " | sort relevance desc | limit 5"))
      let checked = try SQLCompiler.$allowedSetLimit.withValue(1) { try fixture.query(query) }
      #expect(checked.map(\.id) == listed.map(\.id), "\(query)")
      #expect(!listed.isEmpty, "\(query)")
    }
  }

  /// An AND beside tests that many items pass checks its best matches in rank order until k
  /// pass; when the first `everyTermChecks(k:)` hold fewer and more remain, it reads the items
  /// that pass instead. Both give the listing's first k, and `explain` names both.
  @Test func anAndBesideTestsChecksItsBestMatchesFirst() throws {
    let fixture = try RankedTestIndex()
    // Every item says "alpha"; the longer its text, the lower it ranks. The low-rated items
    // (rating 1) are the longest, so none of the best 64 pass `rating == 1`.
    let items = (0..<200).map { number in
      SearchableItem(
        uniqueIdentifier: "item-\(number)", domainIdentifier: "test",
        attributeSet: AttributeSet([
          ("title", .string("alpha report \(number)")),
          ("textContent", .string("alpha " + String(repeating: "filler words ", count: number % 50 + (number % 7 == 0 ? 60 : 0)))),
          ("rating", .number(number % 7 == 0 ? 1 : Double(2 + number % 4))),
        ]))
    }
    try fixture.upsert(items)
    #expect(try fixture.explain(#"search "alpha" && rating >= 2 | top 3"#).contains("matches in rank order, each checked until 3 pass"))
    #expect(ExecutionContext.everyTermChecks(k: 3) == 64)
    for (query, passing) in [
      (#"search "alpha" && rating >= 2"#, 171), (#"search "alpha" && rating == 1"#, 29), (#"search "alpha report" && rating <= 2"#, 71),
      (#"search "alpha" && title == "*9""#, 20), (#"search "alpha" && title == "*4" && rating == 4"#, 8),
    ] {
      let listed = try fixture.query(query + " | sort relevance desc")
      #expect(listed.count == passing, "\(query)")
      for k in [1, 3, 10] {
        for limit in [1, 20_000] {
          let found = try SQLCompiler.$allowedSetLimit.withValue(limit) { try fixture.query(query + " | top \(k)") }
          #expect(found.map { "\($0.id) \($0.relevance.bitPattern)" } == listed.prefix(k).map { "\($0.id) \($0.relevance.bitPattern)" },
                  "\(query) top \(k), allowed-set limit \(limit)")
        }
      }
    }
    // Two of the best 64 pass: a second round checks twice what their share says 4 need
    // (here every match), and the items that pass are not read. None of the best 64 is rated
    // 1: those are read.
    func readsThePassingItems(_ query: String) throws -> Bool {
      let log = StatementLog()
      var options = QueryOptions(scope: AccessScope(now: RankedTestIndex.now), clock: QueryClock(now: RankedTestIndex.now, timeZone: TimeZone(identifier: "UTC")!))
      options.statementLog = log
      _ = try QueryExecutor(index: fixture.index, registry: RankedTestIndex.registry).run(query, options: options) { _ in }
      return log.all.contains { $0.hasPrefix("SELECT i.rowid FROM items i") }
    }
    #expect(try !readsThePassingItems(#"search "alpha" && title == "*4" && rating == 4 | top 4"#))
    #expect(try readsThePassingItems(#"search "alpha" && rating == 1 | top 10"#))
  }

  /// Words beside a ranked search (`"water" && "trail"`) are found in the ranked index,
  /// unscored, instead of each candidate looked up in FTS5 (0.2 ms each for a common word:
  /// 1,600 of them for a top 100 at 1M): intersected with an AND's words, or the items an OR
  /// may score. The answers are FTS5's for an AND (the same items with the same relevance) and
  /// those of the same word looked up in FTS5 (as a phrase) for an OR, with items hidden,
  /// deleted and changed, in both scopes.
  @Test func wordsBesideASearchAreFoundInTheRankedIndex() throws {
    let (fixture, made) = try Self.randomItemsWithHiddenOnes(seed: 29, vocabularySize: 30, protected: (6, "hr"), expiredEvery: 11)
    var generator = made
    try fixture.delete((1..<10).map { "item-\($0 * 13)" })
    try fixture.upsert((0..<20).map { generator.item("item-\($0 * 3)") })
    #expect(try fixture.explain(#"search "water" && "trail" | top 5"#).contains(#"of every one of "water", among those that also hold "trail""#))
    let queries = [
      #"search "water" && "trail""#, #"search "water run" && "trail""#, #"search "water" && "trail" && "run""#,
      #"search "water" && "trail run""#, #"search "water" && "water""#, #"search "water" && "trail" && rating >= 3"#,
      #"search "water" && "trail"s"#, #"search "water" && "nosuchword""#,
    ]
    var found = 0
    for query in queries {
      for scope in RankedQueryTests.bothScopes {
        let listed = try fixture.query(query + " | sort relevance desc", scope: scope, usingRankedIndex: false)
        for k in [1, 5, 50] {
          let ranked = try fixture.query(query + " | top \(k)", scope: scope)
          #expect(ranked.map { "\($0.id) \($0.relevance.bitPattern)" } == listed.prefix(k).map { "\($0.id) \($0.relevance.bitPattern)" },
                  "\(query) top \(k), \(scope.protectionClasses)")
        }
        found += listed.count
      }
    }
    #expect(found > 100)
    #expect(try fixture.query(#"search "water" && "nosuchword" | top 5"#).isEmpty)
    #expect(try fixture.explain(#"search ("water" || "run") && "trail" | top 5"#).contains(#"among those that also hold "trail" (block-max"#))
    var orFound = 0
    for (query, lookedUp) in [
      (#"search ("water" || "run") && "trail""#, #"search ("water" || "run") && 'trail'"#),
      (#"search ("water" || "run") && "trail" && rating >= 3"#, #"search ("water" || "run") && 'trail' && rating >= 3"#),
      (#"search ("water" || "run") && "trail" && "road""#, #"search ("water" || "run") && 'trail' && 'road'"#),
      (#"search ("water" || "run") && "nosuchword""#, #"search ("water" || "run") && 'nosuchword'"#),
    ] {
      #expect(try !fixture.explain(lookedUp + " | top 5").contains("also hold"), "\(lookedUp)")
      for scope in RankedQueryTests.bothScopes {
        for k in [1, 5, 50] {
          for limit in [1, 20_000] {
            let (found, expected) = try SQLCompiler.$allowedSetLimit.withValue(limit) {
              (try fixture.query(query + " | top \(k)", scope: scope), try fixture.query(lookedUp + " | top \(k)", scope: scope))
            }
            #expect(found.map { "\($0.id) \($0.relevance.bitPattern)" } == expected.map { "\($0.id) \($0.relevance.bitPattern)" },
                    "\(query) top \(k), \(scope.protectionClasses), allowed-set limit \(limit)")
            orFound += expected.count
          }
        }
      }
    }
    #expect(orFound > 100)
  }

  @Test func termWeightsComeFromTheTextSearch() throws {
    let attributes = SQLCompiler.AttributeMap(ids: [:], textualIDs: [])
    var compiler = SQLCompiler(attributes: attributes, scope: AccessScope(), indexID: 1)
    let search = TextSearch(
      terms: [.init(text: "Water", isPrefix: false), .init(text: "\u{1}running", isPrefix: false)], requireAll: false,
      weights: [2, 0.5])
    let plan = try #require(try compiler.rankedPlan(SQLPlan(predicate: .textSearch(search))))
    #expect(plan.terms == [QueryTerm("water", weight: 2), QueryTerm("\u{1}run", weight: 0.5)])
    let zero = TextSearch(terms: [.init(text: "a", isPrefix: false), .init(text: "b", isPrefix: false)], requireAll: false, weights: [1, 0])
    let zeroPlan = try compiler.rankedPlan(SQLPlan(predicate: .textSearch(zero)))
    #expect(zeroPlan == nil)
  }

  @Test func weightedTermsRankExactly() throws {
    let fixture = try RankedTestIndex()
    var generator = RandomItems(seed: 17, vocabularySize: 120)
    try fixture.upsert((0..<300).map { generator.item("item-\($0)") })
    for _ in 0..<10 {
      try fixture.expectExact(generator.query(), k: 10, "weighted")
    }
  }
}
