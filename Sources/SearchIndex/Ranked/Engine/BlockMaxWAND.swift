/// Exact top-k by Block-Max WAND (Ding & Suel 2011, following PISA's
/// `block_max_wand_query`). Cursors are kept sorted by current doc; the pivot is
/// the first position where summed list bounds could beat the threshold; block
/// maxima of the lists up to the pivot then either confirm the pivot (score it)
/// or let one list jump past the whole block region.
enum BlockMaxWAND {
  static func run(
    _ query: inout PreparedQuery, k: Int, documents: DocumentTable, filter: CandidateFilter,
    counters: inout SearchCounters
  ) -> [SearchHit] {
    var heap = TopKHeap(k: k)
    let arena = query.arena
    let blockBounds = arena.blockBounds
    let norms = arena.norms
    let scorer = query.scorer
    let tolerance = query.tolerance
    let scale = query.scale
    let predicate = filter.predicate
    let allowed = filter.allowedSet
    let n = query.cursors.count
    let order = UnsafeMutablePointer<Int>.allocate(capacity: max(1, n))
    defer { order.deallocate() }
    for i in 0..<n { order[i] = i }
    withExtendedLifetime(arena) {
      query.cursors.withUnsafeMutableBufferPointer { cursors in
        // Insertion sort by doc: n is small and the order is mostly sorted.
        func resort() {
          guard n > 1 else { return }
          for i in 1..<n {
            let item = order[i]
            let doc = cursors[item].doc
            var j = i
            while j > 0 && cursors[order[j - 1]].doc > doc {
              order[j] = order[j - 1]
              j -= 1
            }
            order[j] = item
          }
        }
        // Moves the cursor at `position` right after it advanced.
        func bubble(from position: Int) {
          let item = order[position]
          let doc = cursors[item].doc
          var j = position
          while j + 1 < n && cursors[order[j + 1]].doc < doc {
            order[j] = order[j + 1]
            j += 1
          }
          order[j] = item
        }
        resort()
        var threshold = -Double.infinity
        var hint = 0
        while true {
          var upper = 0.0
          var pivot = -1
          var pivotDoc = TermCursor.exhausted
          for p in 0..<n {
            let doc = cursors[order[p]].doc
            if doc == TermCursor.exhausted { break }
            upper += cursors[order[p]].maxScore
            if upper + tolerance > threshold {
              pivot = p
              pivotDoc = doc
              break
            }
          }
          if pivot < 0 { break }
          while pivot + 1 < n && cursors[order[pivot + 1]].doc == pivotDoc { pivot += 1 }
          if let allowed {
            let next = allowed.nextGreaterOrEqual(pivotDoc, hint: &hint)
            if next != pivotDoc {
              if next == TermCursor.exhausted { break }
              for p in 0...pivot { cursors[order[p]].advance(to: next) }
              resort()
              continue
            }
          }
          var blockBound = 0.0
          for p in 0...pivot {
            let bound = cursors[order[p]].blockMaxScore(at: pivotDoc)
            blockBounds[p] = bound
            blockBound += bound
          }
          if blockBound + tolerance > threshold {
            if cursors[order[0]].doc == pivotDoc {
              // Every cursor in 0...pivot sits on pivotDoc; later ones are past it.
              counters.candidates += 1
              var location: Int?
              if predicate?(pivotDoc) ?? true { location = documents.location(of: pivotDoc) }
              if let location {
                counters.scoredDocuments += 1
                scorer.norms(location: location, documents: documents, into: norms)
                var bound = blockBound
                var viable = true
                var exact: Int64 = 0
                for p in 0...pivot {
                  let termScore = cursors[order[p]].score(norms: norms)
                  exact += Int64(termScore * scale)
                  bound += termScore - blockBounds[p]
                  if !(bound + tolerance > threshold) {
                    viable = false
                    break
                  }
                }
                if viable {
                  counters.fullyScored += 1
                  if heap.insert(score: Double(exact) / scale, id: pivotDoc) { threshold = heap.threshold }
                }
              }
              for p in 0...pivot { cursors[order[p]].next() }
              resort()
            } else {
              var p = pivot
              while cursors[order[p]].doc == pivotDoc { p -= 1 }
              cursors[order[p]].advance(to: pivotDoc)
              bubble(from: p)
            }
          } else {
            // No document before `next` can beat the threshold using these blocks.
            var next = TermCursor.exhausted
            for p in 0...pivot { next = min(next, cursors[order[p]].boundValidThrough(pivotDoc)) }
            if next != TermCursor.exhausted { next += 1 }
            if pivot + 1 < n { next = min(next, cursors[order[pivot + 1]].doc) }
            if next <= pivotDoc { next = pivotDoc + 1 }
            var best = 0
            for p in 1..<(pivot + 1) where cursors[order[p]].maxScore > cursors[order[best]].maxScore {
              best = p
            }
            cursors[order[best]].advance(to: next)
            bubble(from: best)
          }
        }
      }
    }
    return heap.sortedHits()
  }
}
