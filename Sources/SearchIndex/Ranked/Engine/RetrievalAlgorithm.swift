/// Dynamic-pruning strategy for `RankedIndex.search`. All return exactly the
/// exhaustive top-k.
package enum RetrievalAlgorithm: Sendable, CaseIterable {
  /// Windowed block-max, except document-at-a-time MaxScore when an allowed-id set
  /// is much smaller than the query's postings (leapfrogging then wins).
  case automatic
  /// Window-at-a-time block-max bounding (`WindowedBlockMax`).
  case windowedBlockMax
  /// Document-at-a-time MaxScore with block-max refinement.
  case blockMaxMaxScore
  /// Block-max WAND (Ding & Suel 2011).
  case blockMaxWAND
}
