/// One term's postings: blocks in ascending doc order plus a list-wide bound (the
/// max of block bounds) used as the term's MaxScore/WAND upper bound.
package struct PostingList: Sendable, Equatable {
  package private(set) var blocks: [PostingBlock] = []
  /// >= every block's `maxPseudoTF`. Kept as a running max on edits (a stale,
  /// larger value is still a valid bound); `recomputeBound` tightens it.
  package private(set) var maxPseudoTF: Float = 0

  package init() {}

  package init(blocks: [PostingBlock]) {
    self.blocks = blocks
    recomputeBound()
  }

  package var isEmpty: Bool { blocks.isEmpty }

  /// Postings including not-yet-compacted deleted documents.
  package var postingCount: Int { blocks.reduce(0) { $0 + $1.postingCount } }

  package mutating func replaceBlocks(in range: Range<Int>, with newBlocks: [PostingBlock]) {
    let fullRewrite = range == blocks.indices
    blocks.replaceSubrange(range, with: newBlocks)
    if fullRewrite {
      recomputeBound()
    } else {
      for block in newBlocks { maxPseudoTF = max(maxPseudoTF, block.maxPseudoTF) }
    }
  }

  package mutating func recomputeBound() {
    maxPseudoTF = blocks.reduce(0) { max($0, $1.maxPseudoTF) }
  }
}
