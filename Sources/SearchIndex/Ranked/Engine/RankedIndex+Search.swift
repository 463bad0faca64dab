extension RankedIndex {
  /// Exact top-`k` for the weighted OR of `query`, ordered by score descending
  /// then id ascending, restricted to live documents accepted by `filter`.
  package func search(
    _ query: [QueryTerm], k: Int, filter: CandidateFilter = .none,
    algorithm: RetrievalAlgorithm = .automatic
  ) -> [SearchHit] {
    var counters = SearchCounters()
    return search(query, k: k, filter: filter, algorithm: algorithm, counters: &counters)
  }

  /// `search` that also reports how much work pruning left.
  package func search(
    _ query: [QueryTerm], k: Int, filter: CandidateFilter = .none,
    algorithm: RetrievalAlgorithm = .automatic, counters: inout SearchCounters
  ) -> [SearchHit] {
    guard k > 0 else { return [] }
    var prepared = PreparedQuery(terms: query, index: self)
    return TopKSearch.run(&prepared, k: k, documents: documents, filter: filter, algorithm: algorithm, counters: &counters)
  }

  /// Reference answer: scores every live, allowed document matching any term.
  package func searchExhaustive(_ query: [QueryTerm], k: Int, filter: CandidateFilter = .none) -> [SearchHit] {
    var counters = SearchCounters()
    return searchExhaustive(query, k: k, filter: filter, counters: &counters)
  }

  package func searchExhaustive(
    _ query: [QueryTerm], k: Int, filter: CandidateFilter = .none, counters: inout SearchCounters
  ) -> [SearchHit] {
    guard k > 0 else { return [] }
    var prepared = PreparedQuery(terms: query, index: self)
    return ExhaustiveScorer.run(&prepared, k: k, documents: documents, filter: filter, counters: &counters)
  }
}

/// Picks and runs a pruning algorithm over a prepared query; shared by the
/// in-memory index and the persistent one.
enum TopKSearch {
  static func run(
    _ prepared: inout PreparedQuery, k: Int, documents: DocumentTable, filter: CandidateFilter,
    algorithm: RetrievalAlgorithm, counters: inout SearchCounters
  ) -> [SearchHit] {
    guard k > 0 else { return [] }
    var algorithm = algorithm
    if algorithm == .automatic {
      algorithm = .windowedBlockMax
      if case .allowed(let set) = filter, set.ids.count * 8 < prepared.totalDocumentFrequency {
        algorithm = .blockMaxMaxScore
      }
    }
    switch algorithm {
    case .automatic, .windowedBlockMax:
      return WindowedBlockMax.run(&prepared, k: k, documents: documents, filter: filter, counters: &counters)
    case .blockMaxMaxScore:
      return BlockMaxMaxScore.run(&prepared, k: k, documents: documents, filter: filter, counters: &counters)
    case .blockMaxWAND:
      return BlockMaxWAND.run(&prepared, k: k, documents: documents, filter: filter, counters: &counters)
    }
  }
}
