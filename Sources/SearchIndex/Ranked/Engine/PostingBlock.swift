/// Up to `BlockCodec.capacity` postings of one term: a small fixed header (kept
/// decoded so cursors can skip and bound blocks without touching the payload) plus
/// the compressed payload. Persisted as one row per (term, block), keyed by
/// (term, lastDoc) which is unique and stable under inserts elsewhere in the list.
package struct PostingBlock: Sendable, Equatable {
  /// First doc id, stored verbatim so each block decodes on its own.
  package var firstDoc: DocID
  /// Last doc id: the skip key.
  package var lastDoc: DocID
  package var count: Int32
  /// Max BM25F pseudo-frequency of the block's postings at the `ScoreBoundBasis`,
  /// rounded up. A pre-saturation, pre-idf quantity so that current idf and
  /// averages can be applied at query time (see `ScoreBoundBasis`).
  package var maxPseudoTF: Float
  /// Doc-id gaps then frequencies; layout in `BlockCodec`.
  package var payload: [UInt8]

  package init(firstDoc: DocID, lastDoc: DocID, count: Int32, maxPseudoTF: Float, payload: [UInt8]) {
    self.firstDoc = firstDoc
    self.lastDoc = lastDoc
    self.count = count
    self.maxPseudoTF = maxPseudoTF
    self.payload = payload
  }

  package var postingCount: Int { Int(count) }

  /// Bytes when persisted: payload + firstDoc, lastDoc (8 each), count (2), bound (4).
  package var persistedByteCount: Int { payload.count + 22 }
}
