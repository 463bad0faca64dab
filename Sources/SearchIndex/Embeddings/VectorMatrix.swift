import Foundation

/// Every vector of an index in one contiguous float32 matrix, for exact nearest-neighbour
/// search by cosine similarity.
///
/// Vectors are unit length (normalised when written), so cosine similarity is a dot product.
/// A search scans every row with `SIMD8<Float>` arithmetic, split across the cores, keeping
/// the best chunk per item; no approximate index, so results are exact.
public final class VectorMatrix: Sendable {
  /// The length of each vector.
  public let dimensions: Int
  /// Row-major: row `r` is `values[r * dimensions ..< (r + 1) * dimensions]`.
  package let values: [Float]
  /// The item rowid of each row; the rows of one item are adjacent.
  package let items: [Int64]

  /// Rows of `dimensions` floats each; `items[r]` owns row `r` (adjacent rows per item).
  public init(dimensions: Int, values: [Float], items: [Int64]) {
    precondition(dimensions > 0 && values.count == items.count * dimensions, "matrix shape mismatch")
    self.dimensions = dimensions
    self.values = values
    self.items = items
  }

  /// True when `item` has a vector (rows are sorted by item).
  public func contains(item: Int64) -> Bool {
    let row = firstRow(of: item)
    return row < items.count && items[row] == item
  }

  private func firstRow(of item: Int64) -> Int { items.lowerBound(of: item) }

  /// The best chunk's similarity of `item` to the unit vector `query`; nil without a vector.
  public func similarity(of item: Int64, to query: [Float]) -> Float? {
    guard query.count == dimensions else { return nil }
    var row = firstRow(of: item)
    var best: Float?
    while row < items.count && items[row] == item {
      var dot: Float = 0
      for k in 0..<dimensions { dot += values[row * dimensions + k] * query[k] }
      best = max(best ?? -.infinity, dot)
      row += 1
    }
    return best
  }

  /// Number of rows (chunks).
  public var rowCount: Int { items.count }

  /// A nearest item: its rowid and its best chunk's cosine similarity (-1...1).
  public struct Hit: Sendable, Hashable {
    public var item: Int64
    public var similarity: Float
  }

  /// The items most similar to `query` (which need not be unit length), best first: those
  /// within `maxDistance` (cosine distance, 1 - similarity, 0...2) and at most `maxCount`.
  public func nearest(
    to query: [Float], maxDistance: Double? = nil, maxCount: Int? = nil, excluding excluded: Set<Int64> = [], workers: Int? = nil
  ) -> [Hit] {
    guard query.count == dimensions, !items.isEmpty, maxCount != 0 else { return [] }
    let unit = VectorCodec.normalized(query)
    let floor = maxDistance.map { Float(1 - $0) } ?? -Float.infinity
    let threads = max(1, min(workers ?? ProcessInfo.processInfo.activeProcessorCount, 16, items.count / 4096 + 1))
    // Split at item boundaries so no item's chunks straddle two workers.
    var bounds = [0]
    for part in 1..<threads {
      var split = items.count * part / threads
      while split > bounds.last! && split < items.count && items[split] == items[split - 1] { split += 1 }
      bounds.append(max(split, bounds.last!))
    }
    bounds.append(items.count)
    let ranges = bounds
    let partial = UnsafeMutableBufferPointer<[Hit]>.allocate(capacity: threads)
    partial.initialize(repeating: [])
    defer { partial.deinitialize(); partial.deallocate() }
    let sendable = SendablePointer(partial)
    DispatchQueue.concurrentPerform(iterations: threads) { worker in
      sendable.pointer[worker] = scan(rows: ranges[worker]..<ranges[worker + 1], query: unit, floor: floor, maxCount: maxCount, excluded: excluded)
    }
    var hits = Array(partial.joined())
    hits.sort { $0.similarity != $1.similarity ? $0.similarity > $1.similarity : $0.item < $1.item }
    if let maxCount, hits.count > maxCount { hits.removeSubrange(maxCount...) }
    return hits
  }

  /// One worker's share: per item its best row; kept when at or above `floor`, and among the
  /// best `maxCount` seen so far.
  private func scan(rows: Range<Int>, query: [Float], floor: Float, maxCount: Int?, excluded: Set<Int64>) -> [Hit] {
    var top = TopHits(capacity: maxCount, floor: floor, excluded: excluded)
    let d = dimensions
    let wide = d / 8 * 8
    values.withUnsafeBufferPointer { matrix in
      query.withUnsafeBufferPointer { q in
        let base = UnsafeRawPointer(matrix.baseAddress!)
        let qBase = UnsafeRawPointer(q.baseAddress!)
        var currentItem: Int64 = rows.isEmpty ? 0 : items[rows.lowerBound]
        var best = -Float.infinity
        for row in rows {
          let item = items[row]
          if item != currentItem {
            top.offer(currentItem, best)
            currentItem = item
            best = -Float.infinity
          }
          let rowBase = base + row * d * MemoryLayout<Float>.stride
          var a0 = SIMD8<Float>(), a1 = SIMD8<Float>(), a2 = SIMD8<Float>(), a3 = SIMD8<Float>()
          var k = 0
          while k + 32 <= wide {
            let o = k * MemoryLayout<Float>.stride
            a0 += rowBase.loadUnaligned(fromByteOffset: o, as: SIMD8<Float>.self) * qBase.loadUnaligned(fromByteOffset: o, as: SIMD8<Float>.self)
            a1 += rowBase.loadUnaligned(fromByteOffset: o + 32, as: SIMD8<Float>.self) * qBase.loadUnaligned(fromByteOffset: o + 32, as: SIMD8<Float>.self)
            a2 += rowBase.loadUnaligned(fromByteOffset: o + 64, as: SIMD8<Float>.self) * qBase.loadUnaligned(fromByteOffset: o + 64, as: SIMD8<Float>.self)
            a3 += rowBase.loadUnaligned(fromByteOffset: o + 96, as: SIMD8<Float>.self) * qBase.loadUnaligned(fromByteOffset: o + 96, as: SIMD8<Float>.self)
            k += 32
          }
          while k < wide {
            let o = k * MemoryLayout<Float>.stride
            a0 += rowBase.loadUnaligned(fromByteOffset: o, as: SIMD8<Float>.self) * qBase.loadUnaligned(fromByteOffset: o, as: SIMD8<Float>.self)
            k += 8
          }
          var dot = ((a0 + a1) + (a2 + a3)).sum()
          while k < d {
            dot += matrix[row * d + k] * q[k]
            k += 1
          }
          if dot > best { best = dot }
        }
        if !rows.isEmpty { top.offer(currentItem, best) }
      }
    }
    return top.hits
  }
}

/// The best hits seen so far: all at or above the floor, or the best `capacity` of them.
private struct TopHits {
  let capacity: Int?
  let floor: Float
  let excluded: Set<Int64>
  var hits: [VectorMatrix.Hit] = []
  /// The smallest similarity in `hits` once it is full (a min-heap would pay off only for
  /// large `capacity`; most offers fail this one comparison).
  private var cutoff: Float

  init(capacity: Int?, floor: Float, excluded: Set<Int64>) {
    self.capacity = capacity
    self.floor = floor
    self.excluded = excluded
    self.cutoff = floor
  }

  mutating func offer(_ item: Int64, _ similarity: Float) {
    guard similarity >= cutoff, excluded.isEmpty || !excluded.contains(item) else { return }
    guard let capacity else {
      hits.append(.init(item: item, similarity: similarity))
      return
    }
    if hits.count < capacity {
      hits.append(.init(item: item, similarity: similarity))
      if hits.count == capacity { cutoff = max(floor, hits.map(\.similarity).min()!) }
      return
    }
    guard similarity > cutoff else { return }
    let worst = hits.indices.min { hits[$0].similarity < hits[$1].similarity }!
    hits[worst] = .init(item: item, similarity: similarity)
    cutoff = max(floor, hits.map(\.similarity).min()!)
  }
}

/// A buffer the concurrent workers write to, one distinct slot each.
private struct SendablePointer<T>: @unchecked Sendable {
  // Safe: every worker writes only its own index, and the buffer outlives concurrentPerform.
  let pointer: UnsafeMutableBufferPointer<T>
  init(_ pointer: UnsafeMutableBufferPointer<T>) { self.pointer = pointer }
}

/// The on-disk form of a vector: unit length, float32, little-endian bytes.
public enum VectorCodec {
  /// `vector` scaled to unit length; a zero vector stays zero.
  public static func normalized(_ vector: [Float]) -> [Float] {
    var sum: Float = 0
    for v in vector { sum += v * v }
    guard sum > 0, sum.isFinite else { return vector.map { $0.isFinite ? $0 : 0 } }
    let scale = 1 / sum.squareRoot()
    return vector.map { $0 * scale }
  }

  package static func encode(_ vector: [Float]) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(vector.count * 4)
    for value in vector {
      let bits = value.bitPattern.littleEndian
      bytes.append(UInt8(truncatingIfNeeded: bits))
      bytes.append(UInt8(truncatingIfNeeded: bits >> 8))
      bytes.append(UInt8(truncatingIfNeeded: bits >> 16))
      bytes.append(UInt8(truncatingIfNeeded: bits >> 24))
    }
    return bytes
  }

  /// Appends the floats of `bytes` to `values`.
  package static func decode(_ bytes: UnsafeRawBufferPointer, into values: inout [Float]) {
    let count = bytes.count / 4
    #if _endian(little)
    // The stored form is the in-memory form: one copy.
    guard count > 0, let source = bytes.baseAddress else { return }
    let start = values.count
    values.append(contentsOf: repeatElement(0, count: count))
    values.withUnsafeMutableBytes { target in
      target.baseAddress!.advanced(by: start * 4).copyMemory(from: source, byteCount: count * 4)
    }
    #else
    for index in 0..<count {
      values.append(Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))))
    }
    #endif
  }
}
