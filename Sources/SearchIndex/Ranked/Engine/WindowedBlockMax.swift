/// Exact top-k by window-at-a-time block-max bounding (windows as in Lucene's
/// `MaxScoreBulkScorer`).
///
/// The doc-id space is cut into windows of `windowSize` ids. Per window, each
/// term's bound is the largest block bound overlapping the window. If the sum
/// of all bounds cannot beat the current k-th score (the MaxScore test with every
/// term non-essential), the window is skipped without decoding. Otherwise the
/// lists are walked term-at-a-time (no per-candidate loop over all query terms,
/// which is what makes long queries slow document-at-a-time): a bounding pass
/// sums, per document, the window bounds of the terms it actually matches and
/// records the postings; only documents whose bound sum can beat the threshold
/// are checked for liveness / filter, get length norms, and are scored exactly
/// from the recorded postings. With OR queries most documents match one term,
/// whose bound alone is below the threshold, so most postings are never scored.
/// Fixed-point sums make the term-at-a-time order irrelevant to the result.
///
/// A predicate filter (a test per document, e.g. an SQL statement per candidate) runs
/// last: only for a document whose exact score would enter the top k, since scoring from
/// the recorded postings costs far less than the test. An allowed-id set, a bit test, is
/// applied before scoring.
enum WindowedBlockMax {
  static let windowSize = 2048
  private static let wordCount = windowSize / 64

  static func run(
    _ query: inout PreparedQuery, k: Int, documents: DocumentTable, filter: CandidateFilter,
    counters: inout SearchCounters
  ) -> [SearchHit] {
    var heap = TopKHeap(k: k)
    let arena = query.arena
    let scorer = query.scorer
    let scale = query.scale
    let tolerance = query.tolerance
    let fieldCount = scorer.fieldCount
    let predicate = filter.predicate
    let allowed = filter.allowedSet
    let n = query.cursors.count
    let accumulator = UnsafeMutablePointer<Int64>.allocate(capacity: windowSize)
    let norms = UnsafeMutablePointer<Double>.allocate(capacity: windowSize * fieldCount)
    let boundSum = UnsafeMutablePointer<Double>.allocate(capacity: windowSize)
    // touched | survivors | allowed bitsets, one bit per window slot.
    let bits = UnsafeMutablePointer<UInt64>.allocate(capacity: 3 * wordCount)
    bits.initialize(repeating: 0, count: 3 * wordCount)
    let touched = bits
    let survivors = bits + wordCount
    let allowedBits = bits + 2 * wordCount
    var entries = WindowPostings(fieldCount: fieldCount)
    // The terms of a window by ascending window bound.
    let order = UnsafeMutablePointer<Int>.allocate(capacity: max(1, n))
    let windowBound = arena.blockBounds
    defer {
      order.deallocate()
      entries.deallocate()
      boundSum.deallocate()
      accumulator.deallocate()
      norms.deallocate()
      bits.deallocate()
    }
    withExtendedLifetime(arena) {
      query.cursors.withUnsafeMutableBufferPointer { cursors in
        var threshold = -Double.infinity
        var allowedHint = 0
        var base = TermCursor.exhausted
        for i in 0..<n { base = min(base, cursors[i].doc) }
        while base != TermCursor.exhausted {
          let end = base < TermCursor.exhausted - DocID(windowSize) ? base + DocID(windowSize)
            : TermCursor.exhausted
          var windowTotal = 0.0
          for i in 0..<n {
            windowBound[i] = cursors[i].doc >= end ? 0 : cursors[i].maxScore(from: base, to: end)
            windowTotal += windowBound[i]
          }
          if windowTotal + tolerance > threshold {
            if let allowed {
              allowedBits.update(repeating: 0, count: wordCount)
              let ids = allowed.ids
              var doc = allowed.nextGreaterOrEqual(base, hint: &allowedHint)
              while doc < end {
                let offset = Int(doc - base)
                allowedBits[offset >> 6] |= 1 << UInt64(offset & 63)
                allowedHint += 1
                doc = allowedHint < ids.count ? ids[allowedHint] : TermCursor.exhausted
              }
            }
            // MaxScore split (Turtle and Flood): the terms of smallest window bounds whose
            // bounds together cannot beat the threshold are non-essential. A document
            // matching only those cannot enter the top k, so their postings count only for
            // documents an essential term matched; the rest are stepped over unrecorded.
            // (At least one term is essential: the window's total beats the threshold.)
            var ordered = 0
            for c in 0..<n where windowBound[c] > 0 {
              var position = ordered
              while position > 0 && windowBound[order[position - 1]] > windowBound[c] {
                order[position] = order[position - 1]
                position -= 1
              }
              order[position] = c
              ordered += 1
            }
            // The non-essential terms are the first `nonEssential` of `order`.
            var nonEssential = 0
            var nonEssentialTotal = 0.0
            while nonEssential < ordered,
              nonEssentialTotal + windowBound[order[nonEssential]] + tolerance <= threshold
            {
              nonEssentialTotal += windowBound[order[nonEssential]]
              nonEssential += 1
            }
            // Pass 1 (bounding): record every posting of the essential terms in the window
            // and add its list's window bound to the document, then the non-essential
            // terms' postings of documents already recorded. No scoring, no length lookups.
            entries.count = 0
            for position in stride(from: ordered - 1, through: 0, by: -1) {
              let c = order[position]
              let termBound = windowBound[c]
              let essential = position >= nonEssential
              cursors[c].advance(to: base)
              while cursors[c].doc < end {
                let offset = Int(cursors[c].doc - base)
                let word = offset >> 6
                let bit: UInt64 = 1 << UInt64(offset & 63)
                if touched[word] & bit == 0 {
                  guard essential else {
                    cursors[c].next()
                    continue
                  }
                  touched[word] |= bit
                  boundSum[offset] = 0
                }
                boundSum[offset] += termBound
                entries.append(offset: offset, cursor: c, frequencies: cursors[c].currentFrequencies())
                cursors[c].next()
              }
            }
            // Survivors: documents whose matched-term bound can beat the
            // threshold, that are live and pass the filter. Only these get
            // length norms and exact scores.
            var survivorCount = 0
            for word in 0..<wordCount {
              var pending = touched[word]
              touched[word] = 0
              while pending != 0 {
                let offset = word << 6 | pending.trailingZeroBitCount
                pending &= pending - 1
                counters.candidates += 1
                guard boundSum[offset] + tolerance > threshold else { continue }
                let bit: UInt64 = 1 << UInt64(offset & 63)
                let doc = base + DocID(offset)
                guard allowed == nil || allowedBits[word] & bit != 0, let location = documents.location(of: doc) else { continue }
                survivors[word] |= bit
                survivorCount += 1
                scorer.norms(location: location, documents: documents, into: norms + offset * fieldCount)
                accumulator[offset] = 0
              }
            }
            counters.scoredDocuments += survivorCount
            if survivorCount > 0 {
              // Pass 2 (scoring): exact fixed-point scores of surviving postings.
              for e in 0..<entries.count {
                let offset = Int(entries.offsets[e])
                guard survivors[offset >> 6] & (1 << UInt64(offset & 63)) != 0 else { continue }
                let termScore = scorer.termScore(
                  weightedIDF: cursors[Int(entries.cursorIndices[e])].weightedIDF,
                  frequencies: entries.frequencies + e * fieldCount, norms: norms + offset * fieldCount)
                accumulator[offset] += Int64(termScore * scale)
              }
              // Pass 3: offer survivors to the heap in doc order (ascending
              // ids make "equal score never displaces" the id tie-break).
              for word in 0..<wordCount {
                var pending = survivors[word]
                survivors[word] = 0
                while pending != 0 {
                  let offset = word << 6 | pending.trailingZeroBitCount
                  pending &= pending - 1
                  counters.fullyScored += 1
                  let score = Double(accumulator[offset]) / scale
                  let doc = base + DocID(offset)
                  if let predicate, !(heap.admits(score: score, id: doc) && predicate(doc)) { continue }
                  if heap.insert(score: score, id: doc) && heap.isFull {
                    threshold = heap.threshold
                  }
                }
              }
            }
          }
          // Next window starts at the first posting at or after `end`.
          var next = TermCursor.exhausted
          for i in 0..<n {
            cursors[i].advance(to: end)
            next = min(next, cursors[i].doc)
          }
          base = next
        }
      }
    }
    return heap.sortedHits()
  }
}
