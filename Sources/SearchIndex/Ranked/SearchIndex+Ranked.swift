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
  package func rankedSearch(
    _ terms: [QueryTerm], k: Int, filter: CandidateFilter = .none, in connection: Connection,
    algorithm: RetrievalAlgorithm? = .automatic
  ) throws -> [SearchHit]? {
    var counters = SearchCounters()
    return try rankedSearch(terms, k: k, filter: filter, in: connection, algorithm: algorithm, counters: &counters)
  }

  /// `rankedSearch` that also reports how much work pruning left.
  package func rankedSearch(
    _ terms: [QueryTerm], k: Int, filter: CandidateFilter = .none, in connection: Connection,
    algorithm: RetrievalAlgorithm? = .automatic, counters: inout SearchCounters
  ) throws -> [SearchHit]? {
    guard indexID >= 0 else { return nil }
    let reader = RankedReader(store: RankedStore(db: connection, indexID: indexID), cache: rankedCache)
    return try reader.search(terms, k: k, filter: filter, algorithm: algorithm, counters: &counters)
  }

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
