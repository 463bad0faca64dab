import Foundation
import SearchIndex
import Testing

/// Exact nearest neighbours: the SIMD scan agrees with a plain scalar scan.
@Suite struct VectorMatrixTests {
  /// A deterministic generator (SplitMix64).
  struct Generator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }

  static func randomMatrix(items: Int, dimensions: Int, chunksPerItem: ClosedRange<Int>, seed: UInt64) -> (VectorMatrix, [[Float]], [Int64]) {
    var generator = Generator(state: seed)
    var rows: [[Float]] = []
    var owners: [Int64] = []
    for item in 0..<items {
      for _ in 0..<Int.random(in: chunksPerItem, using: &generator) {
        rows.append(VectorCodec.normalized((0..<dimensions).map { _ in Float.random(in: -1...1, using: &generator) }))
        owners.append(Int64(item * 3 + 1))
      }
    }
    return (VectorMatrix(dimensions: dimensions, values: rows.flatMap { $0 }, items: owners), rows, owners)
  }

  /// Per item its best row's dot product, best first (ties by item).
  static func bruteForce(_ rows: [[Float]], _ owners: [Int64], query: [Float]) -> [(Int64, Float)] {
    let q = VectorCodec.normalized(query)
    var best: [Int64: Float] = [:]
    for (row, owner) in zip(rows, owners) {
      let dot = zip(row, q).map { $0 * $1 }.reduce(0, +)
      best[owner] = max(best[owner] ?? -.infinity, dot)
    }
    return best.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { ($0.key, $0.value) }
  }

  @Test(arguments: [8, 37, 384])
  func topTenMatchesABruteForceScan(dimensions: Int) {
    let (matrix, rows, owners) = Self.randomMatrix(items: 3_000, dimensions: dimensions, chunksPerItem: 1...3, seed: UInt64(dimensions))
    var generator = Generator(state: 99)
    for _ in 0..<5 {
      let query = (0..<dimensions).map { _ in Float.random(in: -1...1, using: &generator) }
      let expected = Self.bruteForce(rows, owners, query: query).prefix(10)
      for workers in [1, 2, 3] {
        let hits = matrix.nearest(to: query, maxCount: 10, workers: workers)
        #expect(hits.map(\.item) == expected.map(\.0))
        for (hit, (_, similarity)) in zip(hits, expected) { #expect(abs(hit.similarity - similarity) < 1e-4) }
      }
    }
  }

  @Test func distanceBoundsTheResults() {
    let (matrix, rows, owners) = Self.randomMatrix(items: 500, dimensions: 16, chunksPerItem: 1...2, seed: 5)
    let query = rows[7]
    let hits = matrix.nearest(to: query, maxDistance: 0.7)
    let expected = Self.bruteForce(rows, owners, query: query).filter { 1 - $0.1 <= 0.7 }
    #expect(hits.map(\.item) == expected.map(\.0))
    #expect(hits.first?.item == owners[7])
    #expect(abs((hits.first?.similarity ?? 0) - 1) < 1e-5)
  }

  @Test func wrongSizedQueriesFindNothing() {
    let (matrix, _, _) = Self.randomMatrix(items: 10, dimensions: 8, chunksPerItem: 1...1, seed: 1)
    #expect(matrix.nearest(to: [1, 2, 3]).isEmpty)
    #expect(matrix.nearest(to: [Float](repeating: 1, count: 8), maxCount: 0).isEmpty)
  }

  @Test func itemLookupUsesTheBestChunk() {
    let matrix = VectorMatrix(dimensions: 2, values: [1, 0, 0, 1, 0.6, 0.8], items: [4, 4, 9])
    #expect(matrix.contains(item: 4))
    #expect(!matrix.contains(item: 5))
    #expect(matrix.similarity(of: 4, to: [0, 1]) == 1)
    #expect(matrix.similarity(of: 9, to: [1, 0]) == 0.6)
    #expect(matrix.similarity(of: 7, to: [1, 0]) == nil)
  }

  @Test func vectorsRoundTripThroughTheirBytes() {
    let vector: [Float] = [0.5, -0.25, 1e-7, 3]
    let bytes = VectorCodec.encode(vector)
    #expect(bytes.count == 16)
    var decoded: [Float] = []
    bytes.withUnsafeBytes { VectorCodec.decode($0, into: &decoded) }
    #expect(decoded == vector)
  }
}
