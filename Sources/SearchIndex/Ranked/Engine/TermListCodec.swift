/// Encodes a document's sorted, distinct term ids as delta varints. This is the
/// forward index: deletes need it to decrement document frequencies and to know
/// which posting lists hold the document, without re-tokenizing stored text.
package enum TermListCodec {
  /// Encodes strictly ascending term ids.
  package static func encode(_ sortedTerms: some Collection<TermID>) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(sortedTerms.count * 2)
    var previous: UInt64 = 0
    for (index, term) in sortedTerms.enumerated() {
      let value = UInt64(term)
      precondition(index == 0 || value > previous, "term list must be strictly ascending")
      // The first id is stored verbatim, later ones as gaps minus one.
      Varint.append(index == 0 ? value : value - previous - 1, to: &bytes)
      previous = value
    }
    return bytes
  }

  /// Decodes a list produced by `encode`.
  package static func decode(_ bytes: [UInt8]) -> [TermID] {
    var terms: [TermID] = []
    var previous: UInt64 = 0
    for (index, gap) in Varint.decodeAll(bytes).enumerated() {
      let value = index == 0 ? gap : previous + gap + 1
      terms.append(TermID(truncatingIfNeeded: value))
      previous = value
    }
    return terms
  }
}
