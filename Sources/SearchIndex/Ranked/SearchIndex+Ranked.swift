import Foundation

/// The ranked index as the rest of Searchlight sees it: exact BM25F top-k for an OR of
/// words without scoring every match (see `RankedSchema` for the tables, `RankedWriter`
/// for maintenance and `RankedReader` for queries).
extension SearchIndex {
  /// Whether writes in this task maintain the ranked index. Benchmarks turn it off to
  /// measure ingest without the postings; the postings of a file written that way are
  /// stale (queries use FTS5) until the next writable open rebuilds them.
  @TaskLocal package static var maintainsRankedIndex = true

  /// Exact top-`k` of the weighted OR of `terms` (ranked-index terms, see
  /// `RankedAnalysis.queryTerms(of:)`) among live documents accepted by `filter`, read
  /// through `connection`, a reader inside an open read transaction.
  ///
  /// Hits are ordered by score, then ascending rowid. Returns nil when this file has no
  /// current ranked index (an older file opened read-only); callers fall back to FTS5.
  ///
  /// - Parameter algorithm: the pruning algorithm; nil scores every match (the
  ///   exhaustive reference the pruned algorithms must reproduce).
  ///
  /// - Parameter hidden: ascending rowids the caller may not see. They are left out of the
  ///   collection statistics too (N, field lengths, document frequencies), so the scores of
  ///   what the caller sees are the scores of an index without them; `filter` must reject
  ///   them as well.
  package func rankedSearch(
    _ terms: [QueryTerm], k: Int, filter: CandidateFilter = .none, excluding hidden: [DocID] = [],
    hiddenStatistics: RankedStatistics? = nil, in connection: Connection, algorithm: RetrievalAlgorithm? = .automatic
  ) throws -> [SearchHit]? {
    var counters = SearchCounters()
    return try rankedSearch(
      terms, k: k, filter: filter, excluding: hidden, hiddenStatistics: hiddenStatistics, in: connection, algorithm: algorithm,
      counters: &counters)
  }

  /// `rankedSearch` that also reports how much work pruning left.
  ///
  /// - Parameter hiddenStatistics: what the live documents among `hidden` add to the
  ///   statistics, when the caller keeps it (`hiddenRankedStatistics(for:hidden:in:generation:)`);
  ///   otherwise it is summed from their pages.
  package func rankedSearch(
    _ terms: [QueryTerm], k: Int, filter: CandidateFilter = .none, excluding hidden: [DocID] = [],
    hiddenStatistics: RankedStatistics? = nil, in connection: Connection, algorithm: RetrievalAlgorithm? = .automatic,
    counters: inout SearchCounters
  ) throws -> [SearchHit]? {
    guard indexID >= 0 else { return nil }
    let reader = RankedReader(store: RankedStore(db: connection, indexID: indexID), cache: rankedCache)
    return try reader.search(
      terms, k: k, filter: filter, excluding: hidden, hiddenStatistics: hiddenStatistics, algorithm: algorithm, counters: &counters)
  }

  /// The exact top `k` (by score, then ascending rowid) of the visible items holding every one
  /// of `terms` (ranked-index terms, one per word of the full-text query's AND, in its order),
  /// with the score the full-text statement gives them (`sl_bm25` with `columnWeights`, over
  /// the rows `hiddenFullText` does not hide), among those `filter` accepts and that hold every
  /// one of `required` too (unscored). `hidden` are the scope's hidden rowids
  /// (`queryHiddenRows`). Nil when the ranked index is unavailable or the full-text totals
  /// unreadable (run the statement instead).
  package func everyTermSearch(
    _ terms: [String], required: [String] = [], k: Int, columnWeights: [Double], filter: CandidateFilter = .none,
    excluding hidden: [DocID] = [], hiddenFullText: HiddenFullTextRows?, in connection: Connection
  ) throws -> [SearchHit]? {
    guard indexID >= 0, let totals = try Self.fullTextTotals(in: connection) else { return nil }
    let reader = RankedReader(store: RankedStore(db: connection, indexID: indexID), cache: rankedCache)
    let visible = RankedReader.FullTextTotals(
      rows: max(1, totals.rows - (hiddenFullText?.rows ?? 0)), tokens: max(0, totals.tokens - (hiddenFullText?.tokens ?? 0)))
    return try reader.everyTermSearch(
      terms, required: required, k: k, columnWeights: columnWeights, filter: filter, excluding: hidden, totals: visible)
  }

  /// The rowids of this index's items whose ranked postings hold every one of `terms`
  /// (ranked-index terms), ascending; nil when the ranked index is unavailable.
  package func documents(holdingEvery terms: [String], in connection: Connection) throws -> [DocID]? {
    guard indexID >= 0 else { return nil }
    return try RankedReader(store: RankedStore(db: connection, indexID: indexID), cache: rankedCache).documents(holdingEvery: terms)
  }

  /// What the items `scope` hides (`hidden`, its `queryHiddenRows`) add to the ranked
  /// statistics (`RankedReader.hiddenStatistics`): nil when it hides none or the ranked index
  /// is unavailable.
  ///
  /// Summing them reads one scattered length per hidden document and field in every process
  /// (30,000 protected items at 1M: 4 ms of cache misses in a query's 40), so the file keeps
  /// them per generation and scope in `summary_cache` (under `hiddenRankedKey`), stored by
  /// the first reader that computes them, as the full-text totals are.
  package func hiddenRankedStatistics(
    for scope: AccessScope, hidden: [DocID], in db: Connection, generation: Int64
  ) throws -> RankedStatistics? {
    guard !hidden.isEmpty, indexID >= 0 else { return nil }
    return try cachedForScope("hidden-ranked", scope: scope, generation: generation, in: db) { () throws -> RankedStatistics? in
      let fieldCount = RankedSchema.parameters.fieldCount
      let key = Self.hiddenRankedKey(scope)
      let now = scope.now.timeIntervalSince1970
      if let stored = Self.storedCacheRow(db, indexID: indexID, key: key, generation: generation, now: now),
        let sums = Self.decodeHiddenRankedStatistics(stored, fieldCount: fieldCount, generation: generation)
      {
        return sums
      }
      let reader = RankedReader(store: RankedStore(db: db, indexID: indexID), cache: rankedCache)
      guard let sums = try reader.hiddenStatistics(hidden) else { return nil }
      let window = try Self.expiryWindow(db, now: now)
      let numbers = [sums.documentCount] + sums.totalFieldLengths + sums.fieldDocumentCounts
      storeCacheRow(
        key: key, generation: generation, validFrom: window.from, validUntil: window.until,
        value: .text(JSONValue.array(numbers.map { .number(Double($0)) }).compactText))
      return sums
    }
  }

  /// The `summary_cache` key of a scope's hidden ranked statistics.
  static func hiddenRankedKey(_ scope: AccessScope) -> String { "hidden-ranked " + summaryKey(scope) }

  /// A stored `[documents, field lengths..., fields with text...]`; nil for text of another
  /// shape (a damaged or foreign row is computed again).
  static func decodeHiddenRankedStatistics(_ text: String, fieldCount: Int, generation: Int64) -> RankedStatistics? {
    guard let values = (try? JSONParser.parse(text))?.arrayValue, values.count == 1 + 2 * fieldCount else { return nil }
    var numbers: [Int] = []
    for value in values {
      guard let number = value.numberValue, number >= 0, number <= 1e15, number.rounded() == number else { return nil }
      numbers.append(Int(number))
    }
    var sums = RankedStatistics(fieldCount: fieldCount, generation: generation)
    sums.documentCount = numbers[0]
    sums.totalFieldLengths = Array(numbers[1...fieldCount])
    sums.fieldDocumentCounts = Array(numbers[(1 + fieldCount)...])
    guard sums.fieldDocumentCounts.allSatisfy({ $0 <= sums.documentCount }) else { return nil }
    return sums
  }

  /// The number of items visible to `scope` whose text holds each of `terms` (terms of the
  /// ranked index: a word's exact term, or `"\u{1}stem"` for every form of it, see
  /// `RankedAnalysis.queryTerms(of:)`), as FTS5 would count the items matching each: the
  /// term's document frequency less the hidden items among its postings. Nil when the
  /// ranked index is unavailable (count with FTS5 instead, `itemCounts(matching:scope:)`).
  package func visibleDocumentFrequencies(ofTerms terms: [String], scope: AccessScope) throws(SearchIndexError) -> [Int]? {
    guard indexID >= 0 else { return nil }
    return try read { db in
      let reader = RankedReader(store: RankedStore(db: db, indexID: indexID), cache: rankedCache)
      guard try reader.snapshot() != nil else { return nil }
      let hidden = try queryHiddenRows(for: scope, in: db, generation: Self.generation(in: db))
      return try reader.documentFrequencies(terms, excluding: hidden)
    }
  }

  /// The document frequency of each of `terms` (ranked-index terms, as for
  /// `visibleDocumentFrequencies`) with hidden and deleted items still counted: a bound on
  /// the items that hold them, cheap to read. Nil when the ranked index is not current.
  package func documentFrequencies(ofTerms terms: [String], in connection: Connection) throws -> [Int]? {
    guard indexID >= 0 else { return nil }
    let reader = RankedReader(store: RankedStore(db: connection, indexID: indexID), cache: rankedCache)
    guard try reader.snapshot() != nil else { return nil }
    return try reader.documentFrequencies(terms, excluding: [])
  }

  /// The full-text terms of this index that contain `piece` (folded ASCII letters and
  /// digits), with every term long enough to have been cut at `TextAnalyzer.maxTokenBytes`
  /// (the piece may lie in the part cut off), stems left out; each is one term when quoted in
  /// an FTS5 query. Nil when the ranked index, whose lexicon lists the terms, is not current
  /// for the generation `connection` reads, when a listed term would not be one term in a query,
  /// or when more than `limit` terms hold the piece or more than `cutTermLimit` may have been cut.
  package func fullTextTerms(containing piece: String, limit: Int, in connection: Connection) throws -> [String]? {
    guard indexID >= 0, try RankedReader(store: RankedStore(db: connection, indexID: indexID), cache: rankedCache).snapshot() != nil
    else { return nil }
    let statement = try connection.cachedStatement(
      "SELECT term, instr(term, ?2) > 0 FROM rk_terms WHERE indexId = ?1 AND (instr(term, ?2) > 0 OR length(CAST(term AS BLOB)) > ?3)")
    try statement.bind(int: indexID, at: 1)
    try statement.bind(text: piece, at: 2)
    // A cut ends at a scalar boundary: up to three bytes short of the limit.
    try statement.bind(int: Int64(TextAnalyzer.maxTokenBytes - 4), at: 3)
    defer { statement.reset() }
    var terms: [String] = []
    var (holding, cut) = (0, 0)
    while try statement.step() {
      guard let term = statement.string(0) else { continue }
      if term.utf8.first == TextAnalyzer.stemMarker { continue }
      if statement.int64(1) != 0 { holding += 1 } else { cut += 1 }
      guard holding <= limit, cut <= Self.cutTermLimit, RankedAnalysis.queryTerms(of: term) == [term] else { return nil }
      terms.append(term)
    }
    return terms
  }

  /// The most terms that may have been cut at the longest token `fullTextTerms` lists: a
  /// collection of documentation has thousands (hashes, encoded data, long paths), each in few
  /// documents; past this many, reading every record costs less than asking FTS5 for them.
  package static let cutTermLimit = 20_000

  /// The ranked statistics (N, average field lengths, tombstones) as a reader sees them,
  /// nil when the ranked index is unavailable.
  package func rankedStatistics(in connection: Connection) throws -> RankedStatistics? {
    guard indexID >= 0 else { return nil }
    return try RankedReader(store: RankedStore(db: connection, indexID: indexID), cache: rankedCache).snapshot()?.statistics
  }

  /// Drops the ranked snapshot this process cached (benchmarks measure cold queries
  /// with it; queries never need it, the cache follows the file's generation).
  package func clearRankedCache() { rankedCache.clear() }

  /// Compacts the ranked postings: physically removes the postings of deleted items,
  /// repacks fragmented posting lists and recomputes block bounds at the current
  /// average lengths. Queries are exact without it; it keeps them fast and the file
  /// small. Writes also compact on their own once a quarter of the items were deleted.
  public func compactRankedIndex() throws(SearchIndexError) {
    try writeTyped { writer in try writer.compactRankedIndex() }
  }

  /// Rebuilds the ranked postings from the FTS5 rows of this index.
  public func rebuildRankedIndex() throws(SearchIndexError) {
    try writeTyped { writer in try writer.rebuildRankedIndex() }
  }

  /// Adds the ranked tables to a file written before they existed and rebuilds stale
  /// postings (missing, from another generation or another fingerprint), so a crash or
  /// an older writer never leaves postings and items disagreeing. Called by a writable
  /// open; failures (another process holding the write lock) leave queries on FTS5
  /// until the next write rebuilds.
  static func prepareRankedIndex(_ db: Connection, indexID: Int64) {
    guard indexID >= 0 else { return }
    do {
      if try !RankedSchema.exists(db) { try db.execute(RankedSchema.createStatements) }
      let store = RankedStore(db: db, indexID: indexID)
      func current() throws -> Bool {
        guard let stats = try store.statistics() else { return false }
        return stats.generation == (try store.generation()) && stats.fingerprint == RankedSchema.fingerprint
      }
      guard try !current() else { return }
      try db.transaction(.immediate) {
        guard try !current() else { return }
        try RankedWriter(connection: db, indexID: indexID).rebuild()
      }
    } catch {
      // Queries fall back to FTS5 while the postings are unavailable.
    }
  }
}

extension SearchIndex {
  /// `searchlight check`'s view of the ranked index: current for this generation, and
  /// its document count, pages and tombstones agreeing with each other and
  /// with the items that have full-text rows, every posting list under a known term, and
  /// every term's document frequency equal to FTS5's. Returns report lines and whether they are
  /// healthy; stale postings are not a fault (the next writable open rebuilds them).
  /// Rewrites every page of field lengths stored as varints that `DocumentPage.encoded()`
  /// now stores fixed-width (schema version 8); a page that does not decode is left for
  /// `check` to report.
  static func rewriteRankedPages(_ db: Connection) throws {
    guard try RankedSchema.exists(db) else { return }
    let pages = try db.rows("SELECT indexId, page, data FROM rk_pages", []) { ($0.int64(0), $0.int64(1), $0.blob(2)) }
    for (indexID, number, bytes) in pages {
      guard let page = DocumentPage.decode(number: number, fieldCount: RankedSchema.parameters.fieldCount, bytes: bytes) else { continue }
      let encoded = page.encoded()
      guard encoded != bytes else { continue }
      try db.run("UPDATE rk_pages SET data = ? WHERE indexId = ? AND page = ?", [.blob(encoded), .integer(indexID), .integer(number)])
    }
  }

  static func rankedIntegrity(_ db: Connection, indexID: Int64) throws -> (lines: [String], healthy: Bool) {
    guard indexID >= 0, try RankedSchema.exists(db) else { return (["ranked index: none yet (added by the next writable open)"], true) }
    let store = RankedStore(db: db, indexID: indexID)
    guard let stats = try store.statistics(), stats.generation == (try store.generation()),
      stats.fingerprint == RankedSchema.fingerprint
    else { return (["ranked index: stale (rebuilt by the next writable open; queries use FTS5 meanwhile)"], true) }
    let dead = try db.scalar("SELECT count(*) FROM rk_dead WHERE indexId = ?", [.integer(indexID)])?.int64Value ?? 0
    let texts = try db.scalar(
      "SELECT count(*) FROM fts WHERE rowid IN (SELECT rowid FROM items WHERE indexId = ?)", [.integer(indexID)])?.int64Value ?? 0
    var live = 0
    for (number, bytes) in try db.rows("SELECT page, data FROM rk_pages WHERE indexId = ?", [.integer(indexID)], { ($0.int64(0), $0.blob(1)) }) {
      guard let page = DocumentPage.decode(number: number, fieldCount: RankedSchema.parameters.fieldCount, bytes: bytes) else {
        return (["ranked index: page \(number) is malformed (run rebuild)"], false)
      }
      live += page.liveCount
    }
    var problems: [String] = []
    if stats.documentCount != live { problems.append("\(stats.documentCount) documents, \(live) live in pages") }
    if Int64(stats.documentCount) > texts { problems.append("\(stats.documentCount) documents but \(texts) items with text") }
    if Int64(stats.tombstones) != dead { problems.append("\(stats.tombstones) tombstones counted, \(dead) stored") }
    let unknownTerms = try db.scalar("SELECT count(DISTINCT term) FROM rk_blocks WHERE term NOT IN (SELECT id FROM rk_terms)")?.int64Value ?? 0
    if unknownTerms > 0 { problems.append("\(unknownTerms) posting lists under term ids missing from the lexicon") }
    let differing = try documentFrequenciesDiffer(db, indexID: indexID, wholeFullTextIndex: texts == (try db.scalar("SELECT count(*) FROM fts")?.int64Value ?? 0))
    if differing > 0 { problems.append("\(differing) terms whose document frequency differs from the full-text index") }
    if problems.isEmpty {
      return (["ranked index: \(stats.documentCount) documents, \(stats.tombstones) deleted awaiting compaction, consistent"], true)
    }
    return (problems.map { "ranked index: \($0) (run rebuild)" }, false)
  }

  /// How many terms have a different number of live documents in the ranked lexicon
  /// (`rk_terms.df`) than in FTS5's vocabulary over this index's rows: the two are built
  /// from the same tokens, so any difference is a posting filed under the wrong term.
  /// When every full-text row belongs to this index (`wholeFullTextIndex`), FTS5's per-term
  /// row counts answer directly; otherwise the term instances are counted per document.
  private static func documentFrequenciesDiffer(_ db: Connection, indexID: Int64, wholeFullTextIndex: Bool) throws -> Int64 {
    // The stem term of a word that is its own stem also counts the documents where FTS5 holds
    // only the bare word (see `RankedAnalysis`): its expected frequency is what FTS5 matches for
    // every form of the word. Those terms are compared one by one, the rest through the vocabulary.
    let stems = try db.rows(
      "SELECT term, df FROM rk_terms WHERE indexId = ? AND df > 0 AND substr(term, 1, 1) = char(1)", [.integer(indexID)]
    ) { ($0.string(0) ?? "", $0.int64(1)) }
    let ownStems = stems.filter { term, _ in
      let word = String(term.dropFirst())
      return !word.isEmpty && PorterStemmer.stem(word) == word
    }
    try db.execute("DROP TABLE IF EXISTS temp.rk_check_own_stems; CREATE TABLE temp.rk_check_own_stems(term TEXT PRIMARY KEY)")
    try db.execute(
      wholeFullTextIndex
        ? "CREATE VIRTUAL TABLE IF NOT EXISTS temp.rk_check_vocab USING fts5vocab(main, fts, 'row')"
        : "CREATE VIRTUAL TABLE IF NOT EXISTS temp.rk_check_vocab USING fts5vocab(main, fts, 'instance')")
    defer { try? db.execute("DROP TABLE IF EXISTS temp.rk_check_vocab; DROP TABLE IF EXISTS temp.rk_check_own_stems") }
    var differing: Int64 = 0
    let match =
      wholeFullTextIndex
      ? "SELECT count(*) FROM fts WHERE fts MATCH ?"
      : "SELECT count(*) FROM fts WHERE fts MATCH ? AND rowid IN (SELECT rowid FROM items WHERE indexId = ?)"
    for (term, df) in ownStems {
      try db.run("INSERT INTO temp.rk_check_own_stems(term) VALUES (?)", [.text(term)])
      let phrase = "\"" + term + "\""  // the marker and the word: every form of it
      let arguments: [SQLValue] = wholeFullTextIndex ? [.text(phrase)] : [.text(phrase), .integer(indexID)]
      if try db.scalar(match, arguments)?.int64Value ?? 0 != df { differing += 1 }
    }
    let vocabulary =
      wholeFullTextIndex
      ? "SELECT term, doc AS df FROM temp.rk_check_vocab"
      : "SELECT term, count(DISTINCT doc) AS df FROM temp.rk_check_vocab WHERE doc IN (SELECT rowid FROM items WHERE indexId = ?1) GROUP BY term"
    return differing
      + (try db.scalar(
        """
        WITH lexicon AS (SELECT term, df FROM rk_terms WHERE indexId = ?1 AND df > 0 AND term NOT IN temp.rk_check_own_stems),
          vocabulary AS (SELECT * FROM (\(vocabulary)) WHERE term NOT IN temp.rk_check_own_stems)
        SELECT count(DISTINCT term) FROM (
          SELECT * FROM (SELECT * FROM lexicon EXCEPT SELECT * FROM vocabulary)
          UNION ALL
          SELECT * FROM (SELECT * FROM vocabulary EXCEPT SELECT * FROM lexicon))
        """, [.integer(indexID)])?.int64Value ?? 0)
  }

}
