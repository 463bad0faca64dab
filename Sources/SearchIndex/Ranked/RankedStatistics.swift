/// The `rk_stats` row of one named index: collection statistics (N and total field
/// lengths; document frequencies live in `rk_terms`), the bound basis and bookkeeping.
package struct RankedStatistics: Sendable, Equatable {
  package var documentCount: Int
  package var totalFieldLengths: [Int]
  /// Live documents with some text in each field: a field's average length is over these,
  /// as Lucene's, so a field most items lack (keywords) is not judged long where it appears.
  package var fieldDocumentCounts: [Int]
  /// Averages the stored block bounds were computed at; nil until the first document.
  package var basis: ScoreBoundBasis?
  /// Deleted documents whose postings may still be in blocks (`rk_dead` rows).
  package var tombstones: Int
  /// The file generation the postings match (`meta.generation`).
  package var generation: Int64
  /// `RankedSchema.fingerprint` of the writer that built the postings.
  package var fingerprint: String

  package init(fieldCount: Int, generation: Int64) {
    documentCount = 0
    totalFieldLengths = Array(repeating: 0, count: fieldCount)
    fieldDocumentCounts = Array(repeating: 0, count: fieldCount)
    basis = nil
    tombstones = 0
    self.generation = generation
    fingerprint = RankedSchema.fingerprint
  }

  package var averageFieldLengths: [Double] {
    zip(totalFieldLengths, fieldDocumentCounts).map { total, documents in documents == 0 ? 0 : Double(total) / Double(documents) }
  }

  mutating func add(fieldLengths: [Int]) {
    documentCount += 1
    for field in fieldLengths.indices {
      totalFieldLengths[field] += fieldLengths[field]
      if fieldLengths[field] > 0 { fieldDocumentCounts[field] += 1 }
    }
  }

  mutating func remove(fieldLengths: [Int]) {
    documentCount -= 1
    for field in fieldLengths.indices {
      totalFieldLengths[field] -= fieldLengths[field]
      if fieldLengths[field] > 0 { fieldDocumentCounts[field] -= 1 }
    }
  }

  /// Takes away the documents `other` counts (their number, field lengths and fields with text).
  mutating func remove(_ other: RankedStatistics) {
    documentCount -= other.documentCount
    for field in totalFieldLengths.indices {
      totalFieldLengths[field] -= other.totalFieldLengths[field]
      fieldDocumentCounts[field] -= other.fieldDocumentCounts[field]
    }
  }

  // MARK: - Row encoding

  static func encode(_ values: [Int]) -> [UInt8] {
    var bytes: [UInt8] = []
    for value in values { Varint.append(UInt64(max(0, value)), to: &bytes) }
    return bytes
  }

  static func encode(_ values: [Double]) -> [UInt8] {
    var bytes: [UInt8] = []
    for value in values { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
    return bytes
  }

  static func decodeDoubles(_ bytes: [UInt8]) -> [Double] {
    stride(from: 0, to: bytes.count - bytes.count % 8, by: 8).map { start in
      var bits: UInt64 = 0
      for byte in 0..<8 { bits |= UInt64(bytes[start + byte]) << UInt64(byte * 8) }
      return Double(bitPattern: bits)
    }
  }
}
