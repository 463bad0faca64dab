/// The average field lengths at which every block's `maxPseudoTF` was computed.
///
/// Stored block maxima must remain upper bounds while N, avgdl and df move under
/// updates. idf is applied at query time, so only the length normalisation
/// depends on stale statistics. With D(A) = 1 - b + b·len/A we have
/// D(A_ref) <= max(1, A/A_ref) · D(A) for any len >= 0, b in [0, 1], so
/// tf/D(A) <= max(1, A/A_ref) · tf/D(A_ref): a block's pseudo-frequency at the
/// current averages is at most `inflation` times the stored one. Compaction
/// "rebases" (recomputes every block maximum at the current averages) when drift
/// makes the bounds loose.
package struct ScoreBoundBasis: Sendable, Equatable {
  package let averageFieldLengths: [Double]

  /// Any positive reference works for the inequality, so empty fields use 1.
  package init(averageFieldLengths: [Double]) {
    self.averageFieldLengths = averageFieldLengths.map { $0 > 0 && $0.isFinite ? $0 : 1 }
  }

  /// Factor by which current pseudo-frequencies may exceed basis ones.
  package func inflation(currentAverages: [Double], parameters: BM25FParameters) -> Double {
    var factor = 1.0
    for (field, spec) in parameters.fields.enumerated() where spec.b > 0 && spec.weight > 0 {
      factor = max(factor, currentAverages[field] / averageFieldLengths[field])
    }
    return factor
  }

  /// Largest relative deviation of a current average from the basis; compaction
  /// rebases when this exceeds its tolerance.
  package func drift(currentAverages: [Double]) -> Double {
    var worst = 0.0
    for (field, reference) in averageFieldLengths.enumerated() where currentAverages[field] > 0 {
      worst = max(worst, abs(currentAverages[field] / reference - 1))
    }
    return worst
  }
}
