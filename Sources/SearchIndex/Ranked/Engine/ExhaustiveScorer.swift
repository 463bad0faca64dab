/// Reference scorer: document-at-a-time union of all query terms, scoring every
/// live, allowed document that matches any term (no pruning). Same statistics
/// snapshot and fixed-point summation as the pruned algorithms, so its top-k is
/// the exact answer they must reproduce.
enum ExhaustiveScorer {
  static func run(
    _ query: inout PreparedQuery, k: Int, documents: DocumentTable, filter: CandidateFilter,
    counters: inout SearchCounters
  ) -> [SearchHit] {
    var heap = TopKHeap(k: k)
    let arena = query.arena
    let norms = arena.norms
    let scorer = query.scorer
    let scale = query.scale
    withExtendedLifetime(arena) {
      query.cursors.withUnsafeMutableBufferPointer { cursors in
        let n = cursors.count
        var hint = 0
        while true {
          var candidate = TermCursor.exhausted
          for i in 0..<n where cursors[i].doc < candidate { candidate = cursors[i].doc }
          if candidate == TermCursor.exhausted { break }
          counters.candidates += 1
          var accepted: Bool
          switch filter {
          case .none: accepted = true
          case .predicate(let test): accepted = test(candidate)
          case .allowed(let set): accepted = set.nextGreaterOrEqual(candidate, hint: &hint) == candidate
          }
          if accepted, let location = documents.location(of: candidate) {
            counters.scoredDocuments += 1
            counters.fullyScored += 1
            scorer.norms(location: location, documents: documents, into: norms)
            var score: Int64 = 0
            for i in 0..<n where cursors[i].doc == candidate {
              score += Int64(cursors[i].score(norms: norms) * scale)
            }
            heap.insert(score: Double(score) / scale, id: candidate)
          }
          for i in 0..<n where cursors[i].doc == candidate { cursors[i].next() }
        }
      }
    }
    return heap.sortedHits()
  }
}
