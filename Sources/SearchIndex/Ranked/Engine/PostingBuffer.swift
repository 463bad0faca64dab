/// Uncompressed postings in doc-id order: the unit that block encoding consumes
/// and that block edits decode into. Frequencies are row-major, `fieldCount` per
/// posting.
package struct PostingBuffer: Sendable, Equatable {
  package let fieldCount: Int
  package private(set) var docs: [DocID] = []
  package private(set) var frequencies: [UInt32] = []

  package init(fieldCount: Int) {
    self.fieldCount = fieldCount
  }

  package var count: Int { docs.count }
  package var isEmpty: Bool { docs.isEmpty }

  package mutating func reserveCapacity(_ n: Int) {
    docs.reserveCapacity(n)
    frequencies.reserveCapacity(n * fieldCount)
  }

  package mutating func append(doc: DocID, frequencies newFrequencies: some Collection<UInt32>) {
    precondition(newFrequencies.count == fieldCount, "one frequency per field")
    precondition(docs.last.map { $0 < doc } ?? true, "postings must be appended in ascending doc order")
    docs.append(doc)
    frequencies.append(contentsOf: newFrequencies)
  }

  /// Appends posting `index` of `other` (same schema).
  package mutating func append(from other: PostingBuffer, at index: Int) {
    let base = index * fieldCount
    append(doc: other.docs[index], frequencies: other.frequencies[base..<(base + fieldCount)])
  }

  package func frequency(at index: Int, field: Int) -> UInt32 {
    frequencies[index * fieldCount + field]
  }

  package func frequencies(at index: Int) -> ArraySlice<UInt32> {
    frequencies[(index * fieldCount)..<((index + 1) * fieldCount)]
  }
}
