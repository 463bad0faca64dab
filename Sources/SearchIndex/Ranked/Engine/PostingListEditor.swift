/// Computes the block edits that apply removals and insertions to one posting
/// list, rewriting only the blocks they touch.
///
/// Every rewritten block also drops postings of documents that are no longer live
/// (opportunistic compaction), and gets a fresh `maxPseudoTF` computed from the
/// current document lengths at the bound basis.
struct PostingListEditor {
  let fieldCount: Int
  let documents: DocumentTable
  /// Scorer at the `ScoreBoundBasis` averages: computes stored block maxima.
  let basisScorer: BM25FScorer

  /// Edits in ascending, non-overlapping block ranges; apply them back to front.
  /// `removals` must be sorted; `insertions` are live documents, ascending.
  func edits(for list: PostingList?, removing removals: [DocID], inserting insertions: PostingBuffer) -> [BlockEdit] {
    let blocks = list?.blocks ?? []
    guard !blocks.isEmpty else {
      return insertions.isEmpty ? [] : [BlockEdit(range: 0..<0, blocks: makeBlocks(insertions, packTail: true))]
    }
    // Mark every block an operation lands in. Removals outside every block's
    // range are no-ops; insertions past the end go to the last block.
    var affected = Array(repeating: false, count: blocks.count)
    var index = 0
    for doc in removals {
      while index < blocks.count && blocks[index].lastDoc < doc { index += 1 }
      if index == blocks.count { break }
      if blocks[index].firstDoc <= doc { affected[index] = true }
    }
    index = 0
    for doc in insertions.docs {
      while index < blocks.count - 1 && blocks[index].lastDoc < doc { index += 1 }
      affected[index] = true
    }
    var edits: [BlockEdit] = []
    var removalCursor = 0
    var insertionCursor = 0
    var start = 0
    while start < blocks.count {
      guard affected[start] else {
        start += 1
        continue
      }
      var end = start
      while end + 1 < blocks.count && affected[end + 1] { end += 1 }
      let isTail = end == blocks.count - 1
      let upper = isTail ? DocID.max : blocks[end].lastDoc
      var old = PostingBuffer(fieldCount: fieldCount)
      for block in blocks[start...end] { BlockCodec.decode(block, fieldCount: fieldCount, appendingTo: &old) }
      var merged = PostingBuffer(fieldCount: fieldCount)
      merged.reserveCapacity(old.count + 8)
      var o = 0
      while true {
        let oldDoc = o < old.count ? old.docs[o] : DocID.max
        let newDoc = insertionCursor < insertions.count && insertions.docs[insertionCursor] <= upper
          ? insertions.docs[insertionCursor] : DocID.max
        if oldDoc == DocID.max && newDoc == DocID.max { break }
        if newDoc <= oldDoc {
          merged.append(from: insertions, at: insertionCursor)
          insertionCursor += 1
          if newDoc == oldDoc { o += 1 }  // The new version replaces the old posting.
          continue
        }
        while removalCursor < removals.count && removals[removalCursor] < oldDoc { removalCursor += 1 }
        let removed = removalCursor < removals.count && removals[removalCursor] == oldDoc
        if !removed && documents.contains(oldDoc) { merged.append(from: old, at: o) }
        o += 1
      }
      edits.append(BlockEdit(range: start..<(end + 1), blocks: makeBlocks(merged, packTail: isTail)))
      start = end + 1
    }
    return edits
  }

  /// Splits postings into blocks. A list's tail is packed greedily (appends are
  /// the common case, so earlier blocks end up full); an interior run is split
  /// evenly, leaving room for further inserts in the middle.
  func makeBlocks(_ postings: PostingBuffer, packTail: Bool) -> [PostingBlock] {
    let total = postings.count
    guard total > 0 else { return [] }
    let capacity = BlockCodec.capacity
    let blockCount = (total + capacity - 1) / capacity
    var result: [PostingBlock] = []
    result.reserveCapacity(blockCount)
    var lower = 0
    for blockIndex in 0..<blockCount {
      let size = packTail ? min(capacity, total - lower) : (total - lower) / (blockCount - blockIndex)
      let range = lower..<(lower + size)
      result.append(BlockCodec.encode(postings, range: range, maxPseudoTF: maxPseudoTF(postings, range: range)))
      lower += size
    }
    return result
  }

  /// Largest basis pseudo-frequency among live postings in `range`, rounded up.
  func maxPseudoTF(_ postings: PostingBuffer, range: Range<Int>) -> Float {
    var best = 0.0
    let norms = UnsafeMutablePointer<Double>.allocate(capacity: fieldCount)
    defer { norms.deallocate() }
    postings.frequencies.withUnsafeBufferPointer { frequencies in
      for index in range {
        // Dead postings (only possible during a rebase) cannot be scored, so
        // they need no bound.
        guard let location = documents.location(of: postings.docs[index]) else { continue }
        basisScorer.norms(location: location, documents: documents, into: norms)
        let ptf = basisScorer.pseudoFrequency(
          frequencies: frequencies.baseAddress! + index * fieldCount, norms: norms)
        best = max(best, ptf)
      }
    }
    return BM25FScorer.roundedUp(best)
  }
}
