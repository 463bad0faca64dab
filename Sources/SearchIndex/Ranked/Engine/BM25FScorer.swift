/// BM25F scoring constants for one statistics snapshot.
///
/// pseudo-tf(t, d) = Σ_f w_f · tf_f(t, d) / (1 - b_f + b_f · len_f(d) / avglen_f)
/// score(t, d)     = qw_t · idf_t · ptf · (k1 + 1) / (k1 + ptf)
/// score(q, d)     = Σ_t fixed(score(t, d)) / scale   (see `PreparedQuery`)
///
/// Every scorer (pruned and exhaustive) goes through `norms` and `termScore`, with
/// the same operation order, so equal inputs give bit-identical term scores; the
/// fixed-point sum then makes document scores independent of visiting order.
package struct BM25FScorer: Sendable {
  /// Relative head-room added to every upper bound so that floating-point rounding
  /// in bound arithmetic can never make a bound smaller than a real score.
  static let boundSlack = 1.0 + 1e-9

  package let k1: Double
  let fieldCount: Int
  private let weights: [Double]
  private let constant: [Double]
  private let slope: [Double]

  package init(parameters: BM25FParameters, averageFieldLengths: [Double]) {
    k1 = parameters.k1
    fieldCount = parameters.fieldCount
    weights = parameters.fields.map(\.weight)
    constant = parameters.fields.map { 1 - $0.b }
    slope = zip(parameters.fields, averageFieldLengths).map { spec, average in
      average > 0 ? spec.b / average : 0
    }
  }

  /// Per-field factor w_f / D_f(len_f) for the document at `location`. Computed once
  /// per scored document and shared by all its matching terms.
  @inline(__always)
  func norms(location: Int, documents: DocumentTable, into out: UnsafeMutablePointer<Double>) {
    for field in 0..<fieldCount {
      out[field] = norm(field: field, length: documents.length(at: location, field: field))
    }
  }

  @inline(__always)
  package func norm(field: Int, length: Int) -> Double {
    // An empty field has tf 0, and b = 1 would divide by zero: contribute nothing.
    length == 0 ? 0 : weights[field] / (constant[field] + slope[field] * Double(length))
  }

  @inline(__always)
  func pseudoFrequency(frequencies: UnsafePointer<UInt32>, norms: UnsafePointer<Double>) -> Double {
    var ptf = 0.0
    for field in 0..<fieldCount { ptf += Double(frequencies[field]) * norms[field] }
    return ptf
  }

  @inline(__always)
  func saturate(_ ptf: Double) -> Double {
    ptf * (k1 + 1) / (k1 + ptf)
  }

  @inline(__always)
  func termScore(weightedIDF: Double, frequencies: UnsafePointer<UInt32>, norms: UnsafePointer<Double>) -> Double {
    weightedIDF * saturate(pseudoFrequency(frequencies: frequencies, norms: norms))
  }

  /// Upper bound of `termScore` for a block (or list) whose basis pseudo-frequency
  /// maximum is `maxPseudoTF`, under current statistics (`inflation`).
  @inline(__always)
  func bound(weightedIDF: Double, maxPseudoTF: Float, inflation: Double) -> Double {
    weightedIDF * saturate(Double(maxPseudoTF) * inflation) * Self.boundSlack
  }

  /// Rounds up so the stored Float never understates the Double it bounds.
  static func roundedUp(_ value: Double) -> Float {
    var result = Float(value)
    if Double(result) < value { result = result.nextUp }
    return result
  }
}
