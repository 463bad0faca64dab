/// Forward-only document-at-a-time cursor over one query term's posting list,
/// with a separate "shallow" block pointer for block-max bounds (moving it never
/// decodes anything).
struct TermCursor {
  static let exhausted = DocID.max

  /// Position of the term in the query (stable tie-break when sorting cursors).
  let canonicalIndex: Int
  /// qw · idf under current statistics.
  let weightedIDF: Double
  /// Upper bound of this term's score over the whole list.
  let maxScore: Double
  private let blocks: [PostingBlock]
  private let scorer: BM25FScorer
  private let inflation: Double
  private let fieldCount: Int
  private let docBuffer: UnsafeMutablePointer<DocID>
  private let frequencyBuffer: UnsafeMutablePointer<UInt32>

  /// Current doc id, `exhausted` at the end.
  private(set) var doc: DocID = TermCursor.exhausted
  private var blockIndex = 0
  private var position = 0
  private var count = 0
  private var frequencyOffset = 0
  private var frequenciesDecoded = false
  private var shallowIndex = 0
  private var boundBlock = -1
  private var boundScore = 0.0

  init(
    list: PostingList, canonicalIndex: Int, weightedIDF: Double, scorer: BM25FScorer, inflation: Double,
    docBuffer: UnsafeMutablePointer<DocID>, frequencyBuffer: UnsafeMutablePointer<UInt32>
  ) {
    self.canonicalIndex = canonicalIndex
    self.weightedIDF = weightedIDF
    self.blocks = list.blocks
    self.scorer = scorer
    self.inflation = inflation
    self.fieldCount = scorer.fieldCount
    self.docBuffer = docBuffer
    self.frequencyBuffer = frequencyBuffer
    self.maxScore = scorer.bound(weightedIDF: weightedIDF, maxPseudoTF: list.maxPseudoTF, inflation: inflation)
    if !blocks.isEmpty { load(0) }
  }

  @inline(__always)
  private mutating func load(_ index: Int) {
    blockIndex = index
    count = blocks[index].postingCount
    frequencyOffset = BlockCodec.decodeDocIDs(of: blocks[index], into: docBuffer)
    frequenciesDecoded = false
    position = 0
    doc = docBuffer[0]
  }

  /// Moves to the next posting.
  @inline(__always)
  mutating func next() {
    position += 1
    if position < count {
      doc = docBuffer[position]
    } else if blockIndex + 1 < blocks.count {
      load(blockIndex + 1)
    } else {
      doc = Self.exhausted
    }
  }

  /// Moves to the first posting with doc >= `target` (no-op if already there).
  @inline(__always)
  mutating func advance(to target: DocID) {
    if target <= doc { return }
    if blocks[blockIndex].lastDoc < target {
      var index = blockIndex + 1
      let blockCount = blocks.count
      while index < blockCount && blocks[index].lastDoc < target { index += 1 }
      if index == blockCount {
        doc = Self.exhausted
        return
      }
      load(index)
    }
    var p = position
    // Terminates: the block's last doc is >= target.
    while docBuffer[p] < target { p += 1 }
    position = p
    doc = docBuffer[p]
  }

  /// Exact score of the current posting given the document's field norms.
  @inline(__always)
  mutating func score(norms: UnsafePointer<Double>) -> Double {
    scorer.termScore(weightedIDF: weightedIDF, frequencies: currentFrequencies(), norms: norms)
  }

  /// Frequencies (one per field) of the current posting, valid until the cursor
  /// leaves its block.
  @inline(__always)
  mutating func currentFrequencies() -> UnsafeMutablePointer<UInt32> {
    if !frequenciesDecoded {
      BlockCodec.decodeFrequencies(
        of: blocks[blockIndex], from: frequencyOffset, fieldCount: fieldCount, into: frequencyBuffer)
      frequenciesDecoded = true
    }
    return frequencyBuffer + position * fieldCount
  }

  /// Moves the shallow pointer to the block that could hold `target`.
  @inline(__always)
  private mutating func shallowSeek(_ target: DocID) -> Int {
    var index = shallowIndex
    // Targets are normally non-decreasing; step back if one is not, so a bound
    // is never taken from a later block.
    while index > 0 && blocks[index - 1].lastDoc >= target { index -= 1 }
    let blockCount = blocks.count
    while index < blockCount && blocks[index].lastDoc < target { index += 1 }
    shallowIndex = index
    return index
  }

  /// Upper bound of this term's score for document `target`: the bound of the
  /// block whose range covers it, 0 if no block does.
  @inline(__always)
  mutating func blockMaxScore(at target: DocID) -> Double {
    let index = shallowSeek(target)
    if index == blocks.count || blocks[index].firstDoc > target { return 0 }
    if index != boundBlock {
      boundBlock = index
      boundScore = scorer.bound(
        weightedIDF: weightedIDF, maxPseudoTF: blocks[index].maxPseudoTF, inflation: inflation)
    }
    return boundScore
  }

  /// Largest block bound among blocks overlapping [base, end): the term's bound
  /// for a window of documents.
  @inline(__always)
  mutating func maxScore(from base: DocID, to end: DocID) -> Double {
    var index = shallowSeek(base)
    var best = 0.0
    let blockCount = blocks.count
    while index < blockCount && blocks[index].firstDoc < end {
      best = max(best, scorer.bound(
        weightedIDF: weightedIDF, maxPseudoTF: blocks[index].maxPseudoTF, inflation: inflation))
      index += 1
    }
    return best
  }

  /// Last doc id up to which `blockMaxScore(at: target)` stays valid (end of the
  /// block, or the end of the gap before the next block).
  @inline(__always)
  mutating func boundValidThrough(_ target: DocID) -> DocID {
    let index = shallowSeek(target)
    if index == blocks.count { return Self.exhausted }
    return blocks[index].firstDoc > target ? blocks[index].firstDoc - 1 : blocks[index].lastDoc
  }
}
