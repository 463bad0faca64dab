/// Exact top-k by document-at-a-time MaxScore with block-max refinement (Turtle &
/// Flood's MaxScore; block-max variant as in PISA's `block_max_maxscore`). Costs
/// O(query terms) per candidate, but leapfrogs over a sparse allowed-id set,
/// which makes it the choice for selective filters.
///
/// Terms are sorted by list bound. The longest prefix whose summed bounds cannot
/// beat the current k-th score is "non-essential": a document matching only those
/// terms cannot enter, so candidates are drawn from the essential lists alone.
/// For a candidate, essential terms are scored, then non-essential terms are
/// bounded by their block maxima (shallow pointer, no decoding) and only probed
/// while partial score + remaining bounds can still beat the threshold.
enum BlockMaxMaxScore {
  static func run(
    _ query: inout PreparedQuery, k: Int, documents: DocumentTable, filter: CandidateFilter,
    counters: inout SearchCounters
  ) -> [SearchHit] {
    var heap = TopKHeap(k: k)
    let arena = query.arena
    let blockBounds = arena.blockBounds
    let prefix = arena.prefixBounds
    let norms = arena.norms
    let scorer = query.scorer
    let tolerance = query.tolerance
    let scale = query.scale
    let predicate = filter.predicate
    let allowed = filter.allowedSet
    query.cursors.sort {
      $0.maxScore < $1.maxScore || ($0.maxScore == $1.maxScore && $0.canonicalIndex < $1.canonicalIndex)
    }
    withExtendedLifetime(arena) {
      query.cursors.withUnsafeMutableBufferPointer { cursors in
        let n = cursors.count
        var running = 0.0
        for i in 0..<n {
          running += cursors[i].maxScore
          prefix[i] = running
        }
        var firstEssential = 0
        var threshold = -Double.infinity
        var hint = 0
        while firstEssential < n {
          var candidate = TermCursor.exhausted
          for i in firstEssential..<n where cursors[i].doc < candidate { candidate = cursors[i].doc }
          if candidate == TermCursor.exhausted { break }
          if let allowed {
            let next = allowed.nextGreaterOrEqual(candidate, hint: &hint)
            if next != candidate {
              if next == TermCursor.exhausted { break }
              // No allowed document in [candidate, next): skip it wholesale.
              for i in firstEssential..<n { cursors[i].advance(to: next) }
              continue
            }
          }
          counters.candidates += 1
          var location: Int?
          if predicate?(candidate) ?? true { location = documents.location(of: candidate) }
          guard let location else {
            for i in firstEssential..<n where cursors[i].doc == candidate { cursors[i].next() }
            continue
          }
          counters.scoredDocuments += 1
          scorer.norms(location: location, documents: documents, into: norms)
          var score = 0.0
          var exact: Int64 = 0
          for i in firstEssential..<n where cursors[i].doc == candidate {
            let termScore = cursors[i].score(norms: norms)
            exact += Int64(termScore * scale)
            score += termScore
            cursors[i].next()
          }
          var viable = true
          if firstEssential > 0 {
            var bound = score + prefix[firstEssential - 1]
            viable = bound + tolerance > threshold
            if viable {
              // Replace list bounds by block bounds, biggest terms first.
              var j = firstEssential - 1
              while j >= 0 {
                let blockBound = cursors[j].doc > candidate ? 0 : cursors[j].blockMaxScore(at: candidate)
                blockBounds[j] = blockBound
                bound -= cursors[j].maxScore - blockBound
                if !(bound + tolerance > threshold) {
                  viable = false
                  break
                }
                j -= 1
              }
            }
            if viable {
              // Probe, replacing each block bound by the real score.
              var j = firstEssential - 1
              while j >= 0 {
                let blockBound = blockBounds[j]
                if blockBound > 0 {
                  cursors[j].advance(to: candidate)
                  if cursors[j].doc == candidate {
                    let termScore = cursors[j].score(norms: norms)
                    exact += Int64(termScore * scale)
                    bound += termScore - blockBound
                  } else {
                    bound -= blockBound
                  }
                  if !(bound + tolerance > threshold) {
                    viable = false
                    break
                  }
                }
                j -= 1
              }
            }
          }
          if viable {
            counters.fullyScored += 1
            if heap.insert(score: Double(exact) / scale, id: candidate) && heap.isFull {
              threshold = heap.threshold
              while firstEssential < n && !(prefix[firstEssential] + tolerance > threshold) {
                firstEssential += 1
              }
            }
          }
        }
      }
    }
    return heap.sortedHits()
  }
}
