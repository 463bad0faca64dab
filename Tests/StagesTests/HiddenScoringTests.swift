import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex
@testable import Stages

/// A score never depends on an item the caller may not see: with protected or expired items
/// containing the query's words, a visible item scores exactly as in an index without them,
/// through FTS5's scoring (`sl_bm25`) and through the ranked index alike.
@Suite struct HiddenScoringTests {
  static let visible = [
    item("a", domain: "notes", [("title", .string("Quokka sighting")), ("textContent", .string("A quokka near the ferry, smiling."))]),
    item("b", domain: "notes", [("title", .string("Ferry times")), ("textContent", .string("The ferry leaves at nine; a quokka tour follows."))]),
    item("c", domain: "notes", [("title", .string("Groceries")), ("textContent", .string("Bread, milk and tea."))]),
  ] + (0..<20).map { number in
    // Notes without the words, so that the words are rare among the visible items.
    item("n\(number)", domain: "notes", [("title", .string("Errand \(number)")), ("textContent", .string("Post office, bank and bakery."))])
  }
  /// 31 items that mention "quokka" again and again: protected, or expired.
  static let hidden = (0..<31).map { number in
    item(
      "h\(number)", domain: "private", expiration: number % 2 == 0 ? nil : utc(2026, 1, 1), protection: number % 2 == 0 ? "hr" : nil,
      [("title", .string("Quokka quokka report \(number)")), ("textContent", .string(String(repeating: "quokka ferry island ", count: 12)))])
  }
  static let alone: TemporaryIndex = try! TemporaryIndex.lingering(visible)
  static let mixed: TemporaryIndex = try! TemporaryIndex.lingering(visible + hidden)

  /// Each visible item's relevance for `query`, by id.
  static func relevance(_ query: String, in index: SearchIndex, protection: Set<String> = []) throws -> [String: Double] {
    var found: [String: Double] = [:]
    for reply in try replies(query, in: index, protection: protection) {
      for result in reply.content.resultItems { found[result.item.uniqueIdentifier] = result.relevance }
    }
    return found
  }

  @Test(arguments: [
    #"search "quokka""#,  // one word: FTS5, every match scored
    #"search "quokka ferry""#,  // all words: FTS5
    #"search "quokka" || "ferry""#,  // any word: the ranked index
    #"search "quokka" || "ferry" | top 1"#,  // ranked, pruned
    #"search ("quokka" || "ferry") && domainIdentifier == "notes""#,  // ranked with a predicate
  ])
  func visibleScoresIgnoreHiddenItems(_ query: String) throws {
    let expected = try Self.relevance(query, in: Self.alone.index)
    let found = try Self.relevance(query, in: Self.mixed.index)
    #expect(!expected.isEmpty)
    #expect(Set(found.keys) == Set(expected.keys), "\(found)")
    for (id, score) in expected {
      #expect(score > 0.01, "\(id): \(score)")
      #expect(abs((found[id] ?? -1) - score) <= 1e-9 * max(1, abs(score)), "\(id): \(found[id] ?? -1) vs \(score)")
    }
  }

  @Test func aGrantCountsTheItemsItShows() throws {
    // Granted "hr", the protected half is visible and moves the statistics, as it should;
    // the expired half still does not.
    let granted = try Self.relevance(#"search "quokka""#, in: Self.mixed.index, protection: ["hr"])
    let alone = try Self.relevance(#"search "quokka""#, in: Self.alone.index)
    #expect(granted.count == 2 + 16)
    #expect(granted["a"] != alone["a"])
  }

  /// The hidden rows' full-text totals cost a lookup per hidden item, so the file keeps
  /// them per generation and scope: the next process reads one row, and a write (a new
  /// generation) makes them computed again.
  @Test func theHiddenFullTextTotalsAreKeptInTheFilePerGeneration() throws {
    let fixture = try TemporaryIndex(Self.visible + Self.hidden)
    let scope = AccessScope(now: utc(2026, 6, 1))
    let expected = try fixture.index.read { db in try fixture.index.hiddenFullTextRows(for: scope, in: db) }
    let exact = try #require(expected)
    #expect(exact.rows == 31)
    let first = try fixture.index.read { db in
      try fixture.index.hiddenFullTextTotals(for: scope, in: db, generation: SearchIndex.generation(in: db))
    }
    #expect(first.rows == exact.rows && first.tokens == exact.tokens)
    // Stored: a stand-in value there is what a new process reads.
    let db = try Connection(path: fixture.index.path, readOnly: false, create: false)
    let key = SearchIndex.hiddenTotalsKey(scope)
    #expect(try db.scalar("SELECT summary FROM summary_cache WHERE scope = ?", [.text(key)])?.stringValue == "[31,\(exact.tokens)]")
    try db.run("UPDATE summary_cache SET summary = '[7,99]' WHERE scope = ?", [.text(key)])
    let reopened = try SearchIndex(path: fixture.index.path)
    let stored = try reopened.read { db in try reopened.hiddenFullTextTotals(for: scope, in: db, generation: SearchIndex.generation(in: db)) }
    #expect(stored.rows == 7 && stored.tokens == 99)
    // After a write the totals are computed again, and the scores are exact.
    try reopened.indexSearchableItems([item("z", domain: "notes", [("title", .string("Quokka again"))])])
    let again = try reopened.read { db in try reopened.hiddenFullTextTotals(for: scope, in: db, generation: SearchIndex.generation(in: db)) }
    #expect(again.rows == exact.rows && again.tokens == exact.tokens)
  }

  /// What the hidden documents add to the ranked statistics (their number and field lengths)
  /// cost a length lookup per hidden document and field in every process, so the file keeps
  /// them per generation and scope: a new process reads the stored sums and its OR searches
  /// score as in an index without the hidden items; a damaged row and a write make them
  /// summed again.
  @Test func theHiddenRankedStatisticsAreKeptInTheFilePerGeneration() throws {
    let fixture = try TemporaryIndex(Self.visible + Self.hidden)
    let scope = AccessScope(now: sampleClock.now)
    let query = #"search "quokka" || "ferry" | top 3"#
    // What the hidden items add: the difference between the two indexes' statistics.
    let withHidden = try #require(try fixture.index.read { db in try fixture.index.rankedStatistics(in: db) })
    let without = try #require(try Self.alone.index.read { db in try Self.alone.index.rankedStatistics(in: db) })
    let difference = zip(withHidden.totalFieldLengths, without.totalFieldLengths).map { $0 - $1 }
    let fieldDifference = zip(withHidden.fieldDocumentCounts, without.fieldDocumentCounts).map { $0 - $1 }
    #expect(withHidden.documentCount - without.documentCount == 31)
    #expect(difference.reduce(0, +) > 31 * 12)
    func sums(_ index: SearchIndex) throws -> RankedStatistics? {
      try index.read { db in
        let generation = try SearchIndex.generation(in: db)
        let hidden = try index.queryHiddenRows(for: scope, in: db, generation: generation)
        return try index.hiddenRankedStatistics(for: scope, hidden: hidden, in: db, generation: generation)
      }
    }
    let expected = try Self.relevance(query, in: Self.alone.index)
    #expect(expected.count == 2)
    let first = try #require(try sums(fixture.index))
    #expect(first.documentCount == 31 && first.totalFieldLengths == difference && first.fieldDocumentCounts == fieldDifference)
    // Stored: a new process reads them, and its scores are those of the index without the hidden items.
    let db = try Connection(path: fixture.index.path, readOnly: false, create: false)
    let key = SearchIndex.hiddenRankedKey(scope)
    let stored = try #require(try db.scalar("SELECT summary FROM summary_cache WHERE scope = ?", [.text(key)])?.stringValue)
    #expect(stored == "[31," + (difference + fieldDifference).map(String.init).joined(separator: ",") + "]")
    func relevanceInANewProcess() throws -> [String: Double] {
      try Self.relevance(query, in: try SearchIndex(path: fixture.index.path))
    }
    let reread = try relevanceInANewProcess()
    #expect(Set(reread.keys) == Set(expected.keys))
    for (id, score) in expected { #expect(abs((reread[id] ?? -1) - score) <= 1e-9 * max(1, score), "\(id)") }
    // A stand-in there is what the search takes away (so the scores move) ...
    let standIn = "[1" + String(repeating: ",0", count: 2 * difference.count) + "]"
    try db.run("UPDATE summary_cache SET summary = ? WHERE scope = ?", [.text(standIn), .text(key)])
    #expect(try sums(try SearchIndex(path: fixture.index.path))?.documentCount == 1)
    let moved = try relevanceInANewProcess()
    #expect(expected.contains { id, score in abs((moved[id] ?? -1) - score) > 1e-6 })
    // ... text it did not write is summed again ...
    for damaged in ["[1,2]", "[-1" + String(repeating: ",0", count: 2 * difference.count) + "]", "{}", "[1.5" + String(repeating: ",0", count: 2 * difference.count) + "]"] {
      try db.run("UPDATE summary_cache SET summary = ? WHERE scope = ?", [.text(damaged), .text(key)])
      #expect(try sums(try SearchIndex(path: fixture.index.path))?.totalFieldLengths == difference, "\(damaged)")
    }
    // ... and so is a new generation's.
    try db.run("UPDATE summary_cache SET summary = ? WHERE scope = ?", [.text(standIn), .text(key)])
    let reopened = try SearchIndex(path: fixture.index.path)
    try reopened.indexSearchableItems([item("z", domain: "private", protection: "hr", [("title", .string("Island"))])])
    let again = try #require(try sums(reopened))
    #expect(again.documentCount == 32 && again.totalFieldLengths[0] == difference[0] + 1)
  }

  /// Many hidden rowids cost every process a read of the partial indexes, so the file keeps
  /// them per generation and scope: a new process reads the stored set, a damaged one is
  /// read again from the items, the clock passing an expiration and a write both make them
  /// read again.
  @Test func manyHiddenRowidsAreKeptInTheFile() throws {
    let minimum = SearchIndex.storedHiddenRowsMinimum
    let protected = (0..<minimum).map { number in
      item("p\(number)", domain: "private", protection: "hr", [("title", .string("Quokka \(number)"))])
    }
    let expiring = item("e", domain: "private", expiration: utc(2026, 9, 1), [("title", .string("Quokka later"))])
    let fixture = try TemporaryIndex(Self.visible + protected + [expiring])
    let june = AccessScope(now: utc(2026, 6, 1))
    func hiddenIDs(_ index: SearchIndex, _ scope: AccessScope) throws -> Set<String> {
      try index.read { db in
        let rowids = try index.queryHiddenRows(for: scope, in: db, generation: SearchIndex.generation(in: db))
        #expect(rowids == rowids.sorted())
        return Set(try rowids.map { rowid in try #require(try db.scalar("SELECT id FROM items WHERE rowid = ?", [.integer(rowid)])?.stringValue) })
      }
    }
    let expected = Set(protected.map(\.uniqueIdentifier))
    #expect(try hiddenIDs(fixture.index, june) == expected)
    let db = try Connection(path: fixture.index.path, readOnly: false, create: false)
    let key = SearchIndex.hiddenRowsKey(june)
    let stored = try #require(try db.scalar("SELECT summary FROM summary_cache WHERE scope = ?", [.text(key)]))
    guard case .blob(let bytes) = stored else {
      Issue.record("stored as \(stored)")
      return
    }
    #expect(SearchIndex.decodeRowids(bytes).map { $0.count } == minimum)
    // A stand-in set there is what a new process reads.
    let standIn = try db.scalar("SELECT rowid FROM items WHERE id = 'a'")?.int64Value ?? -1
    try db.run("UPDATE summary_cache SET summary = ? WHERE scope = ?", [.blob(SearchIndex.encodeRowids([standIn])), .text(key)])
    #expect(try hiddenIDs(try SearchIndex(path: fixture.index.path), june) == ["a"])
    // Bytes it did not write are read from the items instead.
    try db.run("UPDATE summary_cache SET summary = ? WHERE scope = ?", [.blob([0x80]), .text(key)])
    #expect(try hiddenIDs(try SearchIndex(path: fixture.index.path), june) == expected)
    // Once the expiring item has expired it is hidden too, stored set or not.
    let october = AccessScope(now: utc(2026, 10, 1))
    #expect(try hiddenIDs(try SearchIndex(path: fixture.index.path), october) == expected.union(["e"]))
    #expect(try hiddenIDs(try SearchIndex(path: fixture.index.path), june) == expected)
    // A write makes them read again.
    try db.run("UPDATE summary_cache SET summary = ? WHERE scope = ?", [.blob(SearchIndex.encodeRowids([standIn])), .text(key)])
    let reopened = try SearchIndex(path: fixture.index.path)
    try reopened.indexSearchableItems([item("q", domain: "private", protection: "hr", [("title", .string("Quokka too"))])])
    #expect(try hiddenIDs(reopened, june) == expected.union(["q"]))
  }

  @Test func fewHiddenRowidsAreNotStored() throws {
    let fixture = try TemporaryIndex(Self.visible + Self.hidden)
    let scope = AccessScope(now: utc(2026, 6, 1))
    let rowids = try fixture.index.read { db in
      try fixture.index.queryHiddenRows(for: scope, in: db, generation: SearchIndex.generation(in: db))
    }
    #expect(rowids.count == 31)
    let db = try Connection(path: fixture.index.path, readOnly: false, create: false)
    let stored = try? db.scalar("SELECT count(*) FROM summary_cache WHERE scope = ?", [.text(SearchIndex.hiddenRowsKey(scope))])
    #expect((stored?.int64Value ?? 0) == 0)
  }

  /// The planner's term weights and the ranked search of the same words count the hidden
  /// documents among the words' postings once per process: whichever comes first keeps the
  /// counts for the other, and both stay those of an index without the hidden items.
  @Test(arguments: [true, false])
  func plannerWeightsAndTheSearchShareTheirHiddenCounts(weightsFirst: Bool) throws {
    let fixture = try TemporaryIndex(Self.visible + Self.hidden)  // a new index: nothing kept yet
    let scope = AccessScope(now: sampleClock.now)
    let terms = try ["quokka", "ferry", "island"].flatMap { try #require(RankedAnalysis.queryTerms(of: $0)) }
    let query = #"search "quokka" || "ferry" || "island""#
    let expectedFrequencies = try #require(try Self.alone.index.visibleDocumentFrequencies(ofTerms: terms, scope: scope))
    let expectedScores = try Self.relevance(query, in: Self.alone.index)
    #expect(expectedFrequencies.contains { $0 > 0 } && !expectedScores.isEmpty)
    for _ in 0..<2 {
      if weightsFirst {
        #expect(try fixture.index.visibleDocumentFrequencies(ofTerms: terms, scope: scope) == expectedFrequencies)
      }
      let found = try Self.relevance(query, in: fixture.index)
      #expect(Set(found.keys) == Set(expectedScores.keys))
      for (id, score) in expectedScores {
        #expect(abs((found[id] ?? -1) - score) <= 1e-9 * max(1, abs(score)), "\(id): \(found[id] ?? -1) vs \(score)")
      }
      if !weightsFirst {
        #expect(try fixture.index.visibleDocumentFrequencies(ofTerms: terms, scope: scope) == expectedFrequencies)
      }
    }
  }

  @Test func aPhraseCountLeavesHiddenRowsOutInAnyOrder() {
    var ascending = VisibleBM25.PhraseCount(hidden: [3, 5, 9])
    for rowid: Int64 in [1, 3, 4, 5, 9, 10, 12] { ascending.count(rowid) }
    #expect(ascending.hits == 4)
    var shuffled = VisibleBM25.PhraseCount(hidden: [3, 5, 9])
    for rowid: Int64 in [10, 3, 2, 9, 4, 5, 1] { shuffled.count(rowid) }
    #expect(shuffled.hits == 4)
    var nothingHidden = VisibleBM25.PhraseCount(hidden: [])
    for rowid: Int64 in [-4, 7, 2] { nothingHidden.count(rowid) }
    #expect(nothingHidden.hits == 3)
  }

  @Test func storedRowidsReadBackOrNotAtAll() {
    for rowids: [Int64] in [[], [1], [-5, -1, 0, 3, 1 << 40], [Int64.min, 0, Int64.max], Array(stride(from: 7, to: 100_000, by: 13))] {
      #expect(SearchIndex.decodeRowids(SearchIndex.encodeRowids(rowids)) == rowids)
    }
    // A repeated rowid (a gap of zero), a gap past the largest rowid, a cut varint.
    #expect(SearchIndex.decodeRowids([2, 0]) == nil)
    #expect(SearchIndex.decodeRowids(SearchIndex.encodeRowids([Int64.max - 1]) + [2]) == nil)
    #expect(SearchIndex.decodeRowids([2, 0x81]) == nil)
  }

  @Test func withNothingHiddenTheScoreIsFTS5sOwn() throws {
    let index = Self.alone.index
    let ours = try Self.relevance(#"search "quokka ferry""#, in: index)
    let theirs = try index.read { connection in
      let statement = try connection.makeStatement(
        "SELECT i.id, -bm25(fts, 4.0, 3.0, 2.0, 1.0, 1.0) FROM fts JOIN items i ON i.rowid = fts.rowid WHERE fts MATCH '\"quokka\" AND \"ferry\"'")
      var scores: [String: Double] = [:]
      while try statement.step() { scores[statement.string(0) ?? ""] = statement.double(1) }
      statement.reset()
      return scores
    }
    #expect(!theirs.isEmpty)
    #expect(ours == theirs)
  }
}
