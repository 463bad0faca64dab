import Foundation
import Testing
@testable import SearchIndex

/// The ranked index stored in the index file: exact against exhaustive scoring and the
/// reference model while items are added, updated and deleted; the same after reopening;
/// consistent with the items after failed writes, stale files and compaction.
@Suite struct RankedIndexTests {
  @Test(arguments: [UInt64(1), 2, 3])
  func prunedTopKStaysExactUnderUpdatesAndDeletes(seed: UInt64) throws {
    let fixture = try RankedTestIndex()
    var generator = RandomItems(seed: seed, vocabularySize: [80, 400, 2_000][Int(seed - 1)])
    var live: [String] = []
    var next = 0
    func newItems(_ count: Int) -> [SearchableItem] {
      (0..<count).map { _ in
        next += 1
        live.append("item-\(next)")
        return generator.item("item-\(next)")
      }
    }
    try fixture.upsert(newItems(600))
    #expect(try fixture.consistencyProblems() == [])
    for step in 0..<12 {
      for _ in 0..<4 { try fixture.expectExact(generator.query(), k: generator.k(), "seed \(seed) step \(step)") }
      switch step % 4 {
      case 0:
        // Updates: new text for existing items (same rowids).
        let ids = (0..<20).map { _ in live.randomElement(using: &generator.random)! }
        try fixture.upsert(Array(Set(ids)).sorted().map { generator.item($0) })
      case 1:
        // Deletes.
        var doomed: [String] = []
        for _ in 0..<25 where live.count > 100 { doomed.append(live.remove(at: Int.random(in: 0..<live.count, using: &generator.random))) }
        try fixture.delete(doomed)
      case 2:
        // A mixed batch in one transaction: adds, updates and deletes.
        let batch = fixture.index.beginBatch()
        let added = newItems(15)
        let updated = (0..<10).map { _ in generator.item(live[Int.random(in: 0..<(live.count - 15), using: &generator.random)]) }
        var doomed: [String] = []
        for _ in 0..<10 { doomed.append(live.remove(at: Int.random(in: 0..<(live.count - 15), using: &generator.random))) }
        let doomedRowids = try doomed.compactMap(fixture.rowid)
        batch.indexSearchableItems(added + updated)
        batch.deleteSearchableItems(withIdentifiers: doomed)
        try batch.endBatch(clientState: Data([UInt8(step)]))
        for rowid in try doomed.compactMap(fixture.rowid) { Issue.record("deleted item still stored: \(rowid)") }
        fixture.deleteFromModel(doomedRowids)
        try fixture.refresh((added + updated).map(\.uniqueIdentifier))
      default:
        try fixture.upsert(newItems(40))
      }
      #expect(try fixture.consistencyProblems() == [], "seed \(seed) step \(step)")
    }
    try fixture.index.compactRankedIndex()
    #expect(try fixture.consistencyProblems() == [])
    for _ in 0..<6 { try fixture.expectExact(generator.query(), k: generator.k(), "after compaction") }
  }

  /// Large transactions flush many times before they commit (here every 400 postings).
  @Test func intermediateFlushesOfLargeTransactionsStayExact() throws {
    try RankedWriter.$flushThreshold.withValue(400) {
      let fixture = try RankedTestIndex()
      var generator = RandomItems(seed: 31, vocabularySize: 300)
      try fixture.upsert((0..<400).map { generator.item("item-\($0)") })
      #expect(try fixture.consistencyProblems() == [])
      try replaceAndDelete(in: fixture, upserts: 120, with: &generator)
    }
  }

  /// Three rounds of `upserts` items written over random ids (new and stored) and 30
  /// deletes, each checked for consistency and against exhaustive ranking.
  func replaceAndDelete(in fixture: RankedTestIndex, upserts: Int, with generator: inout RandomItems) throws {
    for step in 0..<3 {
      try fixture.upsert((0..<upserts).map { _ in generator.item("item-\(Int.random(in: 0..<600, using: &generator.random))") })
      try fixture.delete((0..<30).map { _ in "item-\(Int.random(in: 0..<600, using: &generator.random))" })
      #expect(try fixture.consistencyProblems() == [], "step \(step)")
      for _ in 0..<4 { try fixture.expectExact(generator.query(), k: generator.k(), "step \(step)") }
    }
  }

  /// Past a number of distinct terms, an intermediate flush writes out what the writer keeps
  /// per term (open tails, frequency deltas, the term table) and looks it up again after:
  /// here at every flush, with items replaced and deleted in between.
  @Test func spillingPerTermStateKeepsLargeTransactionsExact() throws {
    try RankedWriter.$flushThreshold.withValue(300) {
      try RankedWriter.$termsKept.withValue(20) {
        let fixture = try RankedTestIndex()
        var generator = RandomItems(seed: 47, vocabularySize: 300)
        try fixture.upsert((0..<400).map { generator.item("item-\($0)") })
        #expect(try fixture.consistencyProblems() == [])
        // Appends only: every list is packed, a short block only at its end (a spilled tail is
        // found again and filled, not followed by a second short block).
        let fragmented = try fixture.index.read { db in
          try db.rows(
            """
            SELECT term FROM rk_blocks b WHERE count < ? AND lastDoc < (SELECT max(lastDoc) FROM rk_blocks WHERE term = b.term)
            """, [.integer(Int64(BlockCodec.capacity))]) { $0.int64(0) }
        }
        #expect(fragmented == [])
        try replaceAndDelete(in: fixture, upserts: 150, with: &generator)
      }
    }
  }

  /// The per-term state is bounded by the terms collected, not only checked when the postings
  /// fill their budget: a transaction of short items over a large vocabulary (no posting
  /// budget reached) spills as soon as the term table passes `termsKept`, and stays exact.
  @Test func aLargeVocabularySpillsBeforeThePostingsFillTheirBudget() throws {
    try RankedWriter.$termsKept.withValue(40) {
      let fixture = try RankedTestIndex()
      var generator = RandomItems(seed: 53, vocabularySize: 600)
      let items = (0..<300).map { generator.item("item-\($0)") }
      var mostHeld = 0
      try fixture.index.write { writer in
        for item in items { try writer.upsert(item) }
        mostHeld = writer.ranked.mostTermsHeld
      }
      let vocabulary = try fixture.index.read { db in try db.scalar("SELECT count(*) FROM rk_terms")?.int64Value ?? 0 }
      // An item has at most 6 + 3 + 10 + 40 + 5 words and a state: with their stems, at most
      // 130 entries over the 40 kept.
      #expect(vocabulary > 300, "the vocabulary is larger than the bound, so the bound is tested")
      #expect(mostHeld > 0)
      #expect(mostHeld <= 40 + 130)
      try fixture.refresh(items.map(\.uniqueIdentifier))
      #expect(try fixture.consistencyProblems() == [])
      for _ in 0..<12 { try fixture.expectExact(generator.query(), k: generator.k(), "large vocabulary") }
    }
  }

  /// A text of thousands of words has its occurrences merged while it is analysed (here
  /// after every run of tokens); postings and rankings stay those of the texts.
  @Test func hugeTextsCollapseTheirKeysAndStayExact() throws {
    try TermResolver.$keysBeforeCollapse.withValue(16) {
      let fixture = try RankedTestIndex()
      var generator = RandomItems(seed: 41, vocabularySize: 60)
      var items = (0..<30).map { generator.item("item-\($0)") }
      for index in [3, 11, 17] {
        var attributes = items[index].attributeSet
        attributes["textContent"] = .string(generator.words(9_000...12_000))
        attributes["title"] = .string(generator.words(5_000...5_000))
        items[index].attributeSet = attributes
      }
      try fixture.upsert(items)
      #expect(try fixture.consistencyProblems() == [])
      for _ in 0..<12 { try fixture.expectExact(generator.query(), k: generator.k(), "huge texts") }
    }
  }

  /// A text longer than `TokenCapture.largestCapturedText` is analysed again by the ranked
  /// writer a run of tokens at a time (here every text, in runs that collapse): the same
  /// postings as the texts', exact rankings.
  @Test func textsTooLongToCaptureAreAnalysedInRuns() throws {
    try TokenCapture.$largestCapturedText.withValue(0) {
      try TermResolver.$keysBeforeCollapse.withValue(16) {
        let fixture = try RankedTestIndex()
        var generator = RandomItems(seed: 43, vocabularySize: 80)
        var items = (0..<30).map { generator.item("item-\($0)") }
        for index in [2, 9] {
          var attributes = items[index].attributeSet
          attributes["textContent"] = .string(generator.words(10_000...12_000))
          items[index].attributeSet = attributes
        }
        try fixture.index.write { writer in
          for item in items { try writer.upsert(item) }
          #expect(writer.ranked.reanalysedColumns > 30, "every text analysed again")
        }
        try fixture.refresh(items.map(\.uniqueIdentifier))
        #expect(try fixture.consistencyProblems() == [])
        for _ in 0..<12 { try fixture.expectExact(generator.query(), k: generator.k(), "texts analysed in runs") }
      }
    }
  }

  @Test func collapsedKeysKeepEveryOccurrence() {
    var random = SplitMix64(seed: 5)
    var keys: [UInt64] = (0..<5_000).map { _ in
      PostingKey.make(term: TermID(Int.random(in: 0..<40, using: &random)), field: UInt64(Int.random(in: 0..<5, using: &random)))
    }
    func counts(_ keys: [UInt64]) -> [UInt64: UInt32] {
      keys.reduce(into: [:]) { $0[PostingKey.make(term: PostingKey.term($1), field: UInt64(PostingKey.field($1))), default: 0] += PostingKey.occurrences($1) }
    }
    let before = counts(keys)
    PostingKey.collapse(&keys)
    #expect(counts(keys) == before)
    #expect(keys.count == before.count)
    #expect(keys == keys.sorted())
    // More occurrences than one key holds (2^24) take two keys.
    let full = PostingKey.make(term: 7, field: 2) | (1 << 24 - 1)
    var many = [full, full, PostingKey.make(term: 7, field: 2)]
    PostingKey.collapse(&many)
    #expect(many.map(PostingKey.occurrences) == [1 << 24, 1 << 24, 1])
    #expect(Set(many.map(PostingKey.term)) == [7])
  }

  @Test func reopeningAnswersIdenticallyWithoutRebuilding() throws {
    let fixture = try RankedTestIndex()
    var generator = RandomItems(seed: 11, vocabularySize: 300)
    try fixture.upsert((0..<500).map { generator.item("item-\($0)") })
    try fixture.delete((0..<40).map { "item-\($0 * 3)" })
    let queries = (0..<15).map { _ in (generator.query(), generator.k()) }
    let before = try queries.map { try fixture.ranked($0.0, k: $0.1) }
    let statisticsBefore = try fixture.index.read { try RankedStore(db: $0, indexID: fixture.index.indexID).statistics() }
    try fixture.reopen()
    let statisticsAfter = try fixture.index.read { try RankedStore(db: $0, indexID: fixture.index.indexID).statistics() }
    #expect(statisticsAfter == statisticsBefore)
    #expect(try queries.map { try fixture.ranked($0.0, k: $0.1) } == before)
    // And once more with the snapshot cached.
    #expect(try queries.map { try fixture.ranked($0.0, k: $0.1) } == before)
  }

  @Test func aWriteThatFailsHalfWayLeavesPostingsAndItemsConsistent() throws {
    struct Failure: Error {}
    let fixture = try RankedTestIndex()
    var generator = RandomItems(seed: 5, vocabularySize: 200)
    try fixture.upsert((0..<300).map { generator.item("item-\($0)") })
    let query = [QueryTerm("connect"), QueryTerm("trail"), QueryTerm("w3")]
    let before = try fixture.ranked(query, k: 20)
    #expect(throws: Failure.self) {
      try fixture.index.write { writer in
        for index in 0..<200 { try writer.upsert(generator.item("new-\(index)")) }
        for index in 0..<50 { try writer.upsert(generator.item("item-\(index)")) }
        _ = try writer.delete(identifiers: (100..<150).map { "item-\($0)" })
        throw Failure()
      }
    }
    #expect(try fixture.ranked(query, k: 20) == before)
    #expect(try fixture.consistencyProblems() == [])
    // A failure inside SQLite (the file cannot grow) in a large bulk write.
    try fixture.index.pool.withWriter { db in
      let pages = try #require(try db.scalar("PRAGMA page_count")?.int64Value)
      try db.setMaxPageCount(Int(pages) + 20)
    }
    #expect(throws: SearchIndexError.self) {
      try fixture.index.indexSearchableItems((0..<3_000).map { generator.item("bulk-\($0)") })
    }
    try fixture.index.pool.withWriter { db in try db.setMaxPageCount(1 << 30) }
    #expect(try fixture.ranked(query, k: 20) == before)
    #expect(try fixture.consistencyProblems() == [])
    try fixture.reopen()
    #expect(try fixture.ranked(query, k: 20) == before)
  }

  @Test func stalePostingsAreRebuiltOnOpen() throws {
    let fixture = try RankedTestIndex()
    var generator = RandomItems(seed: 8, vocabularySize: 150)
    try fixture.upsert((0..<200).map { generator.item("item-\($0)") })
    let doomed = try ["item-1", "item-2"].compactMap(fixture.rowid)
    // A writer without the ranked index: items change, the generation moves, postings do not.
    let texts = try fixture.index.fullTextColumns(ofItems: doomed)
    try fixture.index.pool.withWriter { db in
      try db.transaction {
        for (rowid, columns) in texts { try FullTextColumns.delete(rowid, columns, from: db) }
        try db.run("DELETE FROM items WHERE id IN ('item-1', 'item-2')")
        try db.run("UPDATE meta SET value = value + 1 WHERE key = 'generation'")
      }
    }
    fixture.deleteFromModel(doomed)
    // The open index sees the postings are stale and answers through FTS5 (nil here).
    let unavailable = try fixture.index.read { db in try fixture.index.rankedSearch([QueryTerm("trail")], k: 5, in: db) }
    #expect(unavailable == nil)
    try fixture.reopen()
    #expect(try fixture.consistencyProblems() == [])
    try fixture.expectExact([QueryTerm("trail"), QueryTerm("connect")], k: 10, "after rebuild")
    // A file from before the ranked index: no ranked tables at all.
    try fixture.index.pool.withWriter { db in
      try db.execute("DROP TABLE rk_stats; DROP TABLE rk_terms; DROP TABLE rk_blocks; DROP TABLE rk_dead; DROP TABLE rk_pages")
    }
    try fixture.reopen()
    #expect(try fixture.consistencyProblems() == [])
    try fixture.expectExact([QueryTerm("water"), QueryTerm("fall")], k: 10, "after migration")
  }

  @Test func deletedItemsNeverMatchAndReusedRowidsLoseOldTerms() throws {
    let fixture = try RankedTestIndex()
    func item(_ id: String, _ title: String) -> SearchableItem {
      SearchableItem(uniqueIdentifier: id, attributeSet: AttributeSet([("title", .string(title))]))
    }
    try fixture.upsert((0..<50).map { item("filler-\($0)", "common filler \($0 % 5)") })
    try fixture.upsert([item("last", "uniqueold common")])
    let rowid = try #require(try fixture.rowid("last"))
    #expect(try fixture.ranked([QueryTerm("uniqueold")], k: 5).map(\.id) == [rowid])
    try fixture.delete(["last"])
    #expect(try fixture.ranked([QueryTerm("uniqueold")], k: 5).isEmpty)
    #expect(try fixture.ranked([QueryTerm("common")], k: 100).allSatisfy { $0.id != rowid })
    // SQLite hands the largest rowid out again: the new item must not inherit old postings.
    try fixture.upsert([item("again", "uniquenew")])
    #expect(try fixture.rowid("again") == rowid)
    #expect(try fixture.ranked([QueryTerm("uniqueold"), QueryTerm("common")], k: 100).allSatisfy { $0.id != rowid })
    #expect(try fixture.ranked([QueryTerm("uniquenew")], k: 5).map(\.id) == [rowid])
    #expect(try fixture.consistencyProblems() == [])
  }

  @Test func compactionRemovesTombstonesAndKeepsAnswers() throws {
    let fixture = try RankedTestIndex()
    var generator = RandomItems(seed: 21, vocabularySize: 120)
    try fixture.upsert((0..<400).map { generator.item("item-\($0)") })
    try fixture.delete((0..<40).map { "item-\($0 * 2)" })
    let tombstones = try fixture.index.read { db in try fixture.index.rankedStatistics(in: db)?.tombstones }
    #expect(tombstones == 40)
    let queries = (0..<10).map { _ in generator.query() }
    let before = try queries.map { try fixture.ranked($0, k: 10) }
    try fixture.index.compactRankedIndex()
    #expect(try fixture.index.read { db in try fixture.index.rankedStatistics(in: db)?.tombstones } == 0)
    #expect(try fixture.index.read { db in try db.scalar("SELECT count(*) FROM rk_dead")?.int64Value } == 0)
    #expect(try queries.map { try fixture.ranked($0, k: 10) } == before)
    #expect(try fixture.consistencyProblems() == [])
    // Deleting enough items compacts on its own.
    try fixture.delete((0..<150).map { "item-\($0 * 2 + 1)" })
    #expect(try fixture.index.read { db in try fixture.index.rankedStatistics(in: db)?.tombstones } == 0)
    #expect(try fixture.consistencyProblems() == [])
  }

  @Test func deletingEverythingEmptiesTheRankedIndex() throws {
    let fixture = try RankedTestIndex()
    var generator = RandomItems(seed: 3, vocabularySize: 50)
    try fixture.upsert((0..<100).map { generator.item("item-\($0)") })
    let rowids = try (0..<100).compactMap { try fixture.rowid("item-\($0)") }
    try fixture.index.deleteAllSearchableItems()
    fixture.deleteFromModel(rowids)
    #expect(try fixture.ranked([QueryTerm("w1"), QueryTerm("trail")], k: 10).isEmpty)
    #expect(try fixture.consistencyProblems() == [])
    try fixture.upsert((0..<30).map { generator.item("again-\($0)") })
    try fixture.expectExact([QueryTerm("w1"), QueryTerm("trail")], k: 10, "after refill")
  }

  /// `searchlight check` reports the ranked index, and a disagreement makes it unhealthy.
  @Test func integrityCheckReportsTheRankedIndex() throws {
    let fixture = try RankedTestIndex()
    var generator = RandomItems(seed: 17, vocabularySize: 120)
    try fixture.upsert((0..<150).map { generator.item("item-\($0)") })
    try fixture.delete(["item-3", "item-4"])
    let healthy = try fixture.index.checkIntegrity()
    #expect(healthy.isHealthy, "\(healthy.lines)")
    #expect(healthy.lines.contains("ranked index: 148 documents, 2 deleted awaiting compaction, consistent"), "\(healthy.lines)")
    // A document's lengths and liveness (a page) lost behind the writer's back.
    try fixture.index.pool.withWriter { db in
      try db.run("DELETE FROM rk_pages WHERE rowid IN (SELECT rowid FROM rk_pages LIMIT 1)")
    }
    let broken = try fixture.index.checkIntegrity()
    #expect(!broken.isHealthy)
    #expect(broken.lines.contains { $0.hasPrefix("ranked index: 148 documents, 0 live in pages") && $0.hasSuffix("(run rebuild)") }, "\(broken.lines)")
    try fixture.index.rebuildRankedIndex()
    #expect(try fixture.index.checkIntegrity().isHealthy)
  }

  /// A posting list filed under an unknown term, or a term whose document frequency
  /// disagrees with FTS5's vocabulary, makes `check` unhealthy.
  @Test func integrityCheckComparesTermsWithTheFullTextVocabulary() throws {
    let fixture = try RankedTestIndex()
    var generator = RandomItems(seed: 23, vocabularySize: 80)
    try fixture.upsert((0..<60).map { generator.item("item-\($0)") })
    #expect(try fixture.index.checkIntegrity().isHealthy)
    try fixture.index.pool.withWriter { db in
      try db.run("UPDATE rk_blocks SET term = 4000000000 WHERE term = (SELECT id FROM rk_terms ORDER BY df DESC LIMIT 1)")
    }
    let misfiled = try fixture.index.checkIntegrity()
    #expect(!misfiled.isHealthy)
    #expect(misfiled.lines.contains("ranked index: 1 posting lists under term ids missing from the lexicon (run rebuild)"), "\(misfiled.lines)")
    try fixture.index.rebuildRankedIndex()
    #expect(try fixture.index.checkIntegrity().isHealthy)
    try fixture.index.pool.withWriter { db in
      try db.run("UPDATE rk_terms SET df = df + 1 WHERE id IN (SELECT id FROM rk_terms ORDER BY df DESC LIMIT 2)")
    }
    let counted = try fixture.index.checkIntegrity()
    #expect(!counted.isHealthy)
    #expect(counted.lines.contains("ranked index: 2 terms whose document frequency differs from the full-text index (run rebuild)"), "\(counted.lines)")
  }

  /// Regression: when adding a word's stem made the term table double, the stem's id was
  /// read from the table's old storage, so the word's documents were filed under a garbage
  /// term (found at 170,000 generated items, where it also blew the next flush's memory).
  /// New words with new stems, in both parities, push the table through doubling.
  @Test(arguments: [0, 1])
  func stemsAddedWhileTheTermTableGrowsKeepTheirIds(offset: Int) throws {
    let fixture = try RankedTestIndex()
    func letters(_ number: Int) -> String {
      var number = number
      var text = ""
      repeat {
        text.append(Character(UnicodeScalar(UInt8(ascii: "a") + UInt8(number % 26))))
        number /= 26
      } while number > 0
      return text
    }
    let fillers = (0..<offset).map { "filler\($0)x9" }
    let words = (0..<9_000).map { "va\(letters($0))ing" }
    try fixture.upsert([
      SearchableItem(
        uniqueIdentifier: "many-words", domainIdentifier: "test",
        attributeSet: AttributeSet([("textContent", .string((fillers + words).joined(separator: " ")))]))
    ])
    #expect(try fixture.consistencyProblems() == [])
    let report = try fixture.index.checkIntegrity()
    #expect(report.isHealthy, "\(report.lines)")
  }

  @Test func fieldLengthsCountPositionsNotStemsOrParts() throws {
    var terms: [String] = []
    let length = RankedAnalysis.appendTerms(of: "Running MyWindowClass café", to: &terms)
    #expect(length == 3)
    #expect(terms.contains("running") && terms.contains("\u{1}run") && terms.contains("window") && terms.contains("cafe"))
    // A word that is its own stem gets its stem term too: every form of a word is one term.
    #expect(terms.contains("\u{1}cafe") && terms.contains("\u{1}window"))
    #expect(RankedAnalysis.queryTerms(of: "Café") == ["cafe"])
    #expect(RankedAnalysis.queryTerms(of: "e-mail") == nil)
    #expect(RankedAnalysis.queryTerms(of: "\u{1}running") == ["\u{1}run"])
  }
}

