import Foundation

/// A small, fast, seeded pseudo-random generator (SplitMix64, Steele, Lea and Flood 2014), so
/// generated benchmark data is the same on every machine and run, and a test that draws fault
/// points repeats a failing run exactly.
package struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64

  package init(seed: UInt64) { state = seed }

  package mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A uniform double in [0, 1).
  package mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

  /// A uniform integer in `range`.
  package mutating func int(_ range: ClosedRange<Int>) -> Int {
    range.lowerBound + Int(next() % UInt64(range.count))
  }

  /// True with probability `p`.
  package mutating func chance(_ p: Double) -> Bool { unit() < p }

  /// An element of `elements`.
  package mutating func pick<T>(_ elements: [T]) -> T { elements[Int(next() % UInt64(elements.count))] }

  /// An element chosen with the given relative weights.
  package mutating func pick<T>(_ weighted: [(T, Double)]) -> T {
    let total = weighted.reduce(0) { $0 + $1.1 }
    var target = unit() * total
    for (element, weight) in weighted {
      target -= weight
      if target < 0 { return element }
    }
    return weighted[weighted.count - 1].0
  }

  /// A log-normal value with the given median, clamped to `range` (text lengths, distances).
  package mutating func logNormal(median: Double, sigma: Double, in range: ClosedRange<Double>) -> Double {
    // Box-Muller: a standard normal from two uniforms.
    let u1 = max(unit(), 1e-12), u2 = unit()
    let normal = (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    return min(max(median * exp(sigma * normal), range.lowerBound), range.upperBound)
  }
}
