/// Percentiles and medians of measured values.
package enum Percentiles {
  /// The `p`-th percentile (0...100) of `values`, interpolating linearly between the two
  /// nearest ranks (the common "type 7" definition, numpy's default); nil when empty.
  package static func percentile(_ values: [Double], _ p: Double) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let position = Double(sorted.count - 1) * min(max(p, 0), 100) / 100
    let lower = Int(position.rounded(.down))
    let upper = min(lower + 1, sorted.count - 1)
    let fraction = position - Double(lower)
    return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction
  }

  /// The median of `values`; nil when empty.
  package static func median(_ values: [Double]) -> Double? { percentile(values, 50) }

  /// The mean of `values`; nil when empty.
  package static func mean(_ values: [Double]) -> Double? {
    values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
  }
}
