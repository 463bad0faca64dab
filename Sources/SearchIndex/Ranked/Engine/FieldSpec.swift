/// One indexed field of the BM25F schema (e.g. title, keywords, description, body).
package struct FieldSpec: Sendable, Equatable {
  /// Human-readable name; only used for diagnostics.
  package var name: String
  /// Multiplier of this field's normalised term frequency in the pseudo-frequency.
  package var weight: Double
  /// Length-normalisation strength in [0, 1] (0 = none, 1 = full).
  package var b: Double

  package init(name: String, weight: Double, b: Double = 0.75) {
    precondition(weight >= 0 && weight.isFinite, "field weight must be finite and >= 0")
    precondition((0...1).contains(b), "b must be in [0, 1]")
    self.name = name
    self.weight = weight
    self.b = b
  }
}
