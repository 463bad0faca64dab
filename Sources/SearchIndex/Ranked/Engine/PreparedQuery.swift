/// A query resolved against one index snapshot: per-term weighted idf from
/// current statistics, cursors and their decode buffers, and the fixed-point
/// scale used to sum term scores.
///
/// Why fixed point: pruned algorithms visit a document's terms in a different
/// order than the exhaustive scorer (and windowed MaxScore accumulates term at a
/// time), and Double addition is not associative. Each term score is truncated to
/// an integer multiple of 1/scale (2^-36 normally, error < 1.5e-11 per term) and
/// the integers are summed, so every algorithm produces bit-identical document
/// scores regardless of visiting order.
struct PreparedQuery {
  var cursors: [TermCursor]
  let arena: CursorArena
  let scorer: BM25FScorer
  /// Absolute slack for pruning comparisons: bounds and partial sums are Doubles
  /// formed in varying order, so they may be off by a few ulps; pruning only when
  /// "bound + tolerance <= threshold" stays safe.
  let tolerance: Double
  /// Term score in fixed point (truncation: never above the real score, so real-valued
  /// upper bounds stay valid).
  @inline(__always)
  func fixed(_ score: Double) -> Int64 { Int64(score * scale) }

  /// Fixed-point scale: score units per 1.0 (a power of two).
  let scale: Double
  /// Sum of the query terms' document frequencies (cost estimate for planning).
  let totalDocumentFrequency: Int

  /// A query term resolved against a snapshot: its posting list, summed query
  /// weight and live document frequency.
  struct ResolvedTerm {
    var list: PostingList
    var weight: Double
    var documentFrequency: Int
  }

  /// Merges duplicate terms (summing weights) in first-occurrence order and drops
  /// terms whose weight is not positive and finite.
  static func merged(_ terms: [QueryTerm]) -> [QueryTerm] {
    var merged: [QueryTerm] = []
    var slots: [String: Int] = [:]
    for queryTerm in terms where queryTerm.weight > 0 && queryTerm.weight.isFinite {
      if let slot = slots[queryTerm.term] {
        merged[slot].weight += queryTerm.weight
      } else {
        slots[queryTerm.term] = merged.count
        merged.append(queryTerm)
      }
    }
    return merged
  }

  init<Store: PostingStore>(terms: [QueryTerm], index: RankedIndex<Store>) {
    var resolved: [ResolvedTerm] = []
    for queryTerm in Self.merged(terms) {
      guard let term = index.lexicon.id(for: queryTerm.term) else { continue }
      let df = index.statistics.documentFrequency(of: term)
      guard df > 0, let list = index.store.postingList(for: term) else { continue }
      resolved.append(ResolvedTerm(list: list, weight: queryTerm.weight, documentFrequency: df))
    }
    self.init(
      terms: resolved, parameters: index.parameters, documentCount: index.statistics.documentCount,
      averageFieldLengths: index.statistics.averageFieldLengths, basis: index.basis)
  }

  /// Prepares resolved terms (distinct, df > 0) under the given statistics.
  init(
    terms resolved: [ResolvedTerm], parameters: BM25FParameters, documentCount: Int,
    averageFieldLengths averages: [Double], basis: ScoreBoundBasis?
  ) {
    let scorer = BM25FScorer(parameters: parameters, averageFieldLengths: averages)
    let inflation = basis?.inflation(currentAverages: averages, parameters: parameters) ?? 1
    let arena = CursorArena(termCount: resolved.count, fieldCount: parameters.fieldCount)
    var cursors: [TermCursor] = []
    cursors.reserveCapacity(resolved.count)
    var totalBound = 0.0
    var totalDocumentFrequency = 0
    for (canonical, entry) in resolved.enumerated() {
      let idf = CollectionStatistics.idf(documentCount: documentCount, documentFrequency: entry.documentFrequency)
      let cursor = TermCursor(
        list: entry.list, canonicalIndex: canonical, weightedIDF: entry.weight * idf, scorer: scorer,
        inflation: inflation, docBuffer: arena.docBuffer(for: canonical),
        frequencyBuffer: arena.frequencyBuffer(for: canonical))
      totalBound += cursor.maxScore
      totalDocumentFrequency += entry.documentFrequency
      cursors.append(cursor)
    }
    self.cursors = cursors
    self.arena = arena
    self.scorer = scorer
    self.totalDocumentFrequency = totalDocumentFrequency
    self.tolerance = 1e-9 * max(totalBound, .leastNormalMagnitude)
    // 2^36 unless the largest possible sum would not fit in 62 bits.
    var exponent = 36
    while exponent > -60 && totalBound * Double(sign: .plus, exponent: exponent, significand: 1) >= 0x1p62 {
      exponent -= 1
    }
    self.scale = Double(sign: .plus, exponent: exponent, significand: 1)
  }
}
