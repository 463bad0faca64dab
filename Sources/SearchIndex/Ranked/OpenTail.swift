/// The last block of a posting list while a large write is still adding to it: the
/// block's two payload sections (`BlockCodec`) kept apart, so each new posting appends
/// its own bytes and the block is assembled once, when it is full or the write ends.
///
/// An intermediate flush of `RankedWriter` used to keep a short last block encoded, then
/// decode it, merge the new postings and encode it again at every later flush that
/// touched the term (a tenth of a million-item ingest). The bytes are the same either way.
struct OpenTail {
  private(set) var firstDoc: DocID
  private(set) var lastDoc: DocID
  private(set) var count: Int
  /// The bound of the postings an earlier flush added (see `RankedWriter`): a block
  /// holding any of them is bounded by at least this.
  var bound: Float
  private var gaps: [UInt8] = []
  private var frequencies: [UInt8] = []

  /// A tail holding one posting.
  init(doc: DocID, frequencies row: UnsafeBufferPointer<UInt32>, bound: Float = 0) {
    firstDoc = doc
    lastDoc = doc
    count = 1
    self.bound = bound
    frequencies.reserveCapacity(16)
    BlockCodec.appendFrequencies(row, to: &frequencies)
  }

  /// Adds a posting after the last one.
  mutating func append(doc: DocID, frequencies row: UnsafeBufferPointer<UInt32>) {
    precondition(count < BlockCodec.capacity, "an open tail holds less than a block")
    BlockCodec.appendGap(from: lastDoc, to: doc, to: &gaps)
    BlockCodec.appendFrequencies(row, to: &frequencies)
    lastDoc = doc
    count += 1
  }

  /// The block these postings make, bounded by `maxPseudoTF`.
  func block(maxPseudoTF: Float) -> PostingBlock {
    PostingBlock(
      firstDoc: firstDoc, lastDoc: lastDoc, count: Int32(count), maxPseudoTF: maxPseudoTF, payload: gaps + frequencies)
  }
}

extension OpenTail {
  /// A tail holding the postings `docs` with `fieldCount` frequencies each (1..<capacity).
  init(docs: UnsafeBufferPointer<DocID>, frequencies: UnsafeBufferPointer<UInt32>, fieldCount: Int, bound: Float) {
    precondition((1..<BlockCodec.capacity).contains(docs.count), "an open tail holds less than a block")
    self.init(doc: docs[0], frequencies: UnsafeBufferPointer(rebasing: frequencies[0..<fieldCount]), bound: bound)
    for index in 1..<docs.count {
      append(doc: docs[index], frequencies: UnsafeBufferPointer(rebasing: frequencies[(index * fieldCount)..<((index + 1) * fieldCount)]))
    }
  }
}
