/// Scoring parameters: one saturation constant `k1` shared by all fields (BM25F
/// saturates the combined pseudo-frequency once) and a weight and `b` per field.
package struct BM25FParameters: Sendable, Equatable {
  /// Upper limit on fields: the per-posting field mask must fit the varint header.
  package static let maxFieldCount = 16

  package var k1: Double
  package var fields: [FieldSpec]

  package var fieldCount: Int { fields.count }

  package init(k1: Double = 1.2, fields: [FieldSpec]) {
    precondition(k1 > 0 && k1.isFinite, "k1 must be positive")
    precondition((1...Self.maxFieldCount).contains(fields.count), "1...16 fields supported")
    self.k1 = k1
    self.fields = fields
  }

  /// Title + body schema used by the benchmark and the Cranfield tests.
  package static let titleBody = BM25FParameters(
    k1: 1.2,
    fields: [FieldSpec(name: "title", weight: 2.0, b: 0.75), FieldSpec(name: "body", weight: 1.0, b: 0.75)]
  )
}
