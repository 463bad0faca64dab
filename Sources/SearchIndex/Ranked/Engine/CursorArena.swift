/// Decode buffers for all cursors of one query, allocated once per query so that
/// decoding a block never allocates. Cursors hold raw pointers into it; the query
/// keeps the arena alive (`withExtendedLifetime`) while they run.
final class CursorArena {
  let docs: UnsafeMutablePointer<DocID>
  let frequencies: UnsafeMutablePointer<UInt32>
  let scratch: UnsafeMutablePointer<Double>
  private let termCount: Int
  private let fieldCount: Int

  init(termCount: Int, fieldCount: Int) {
    self.termCount = termCount
    self.fieldCount = fieldCount
    docs = .allocate(capacity: max(1, termCount) * BlockCodec.capacity)
    frequencies = .allocate(capacity: max(1, termCount) * BlockCodec.capacity * fieldCount)
    // Block bounds, prefix bounds, then field norms.
    scratch = .allocate(capacity: 2 * max(1, termCount) + fieldCount)
    scratch.initialize(repeating: 0, count: 2 * max(1, termCount) + fieldCount)
  }

  func docBuffer(for term: Int) -> UnsafeMutablePointer<DocID> { docs + term * BlockCodec.capacity }

  func frequencyBuffer(for term: Int) -> UnsafeMutablePointer<UInt32> {
    frequencies + term * BlockCodec.capacity * fieldCount
  }

  var blockBounds: UnsafeMutablePointer<Double> { scratch }
  var prefixBounds: UnsafeMutablePointer<Double> { scratch + max(1, termCount) }
  var norms: UnsafeMutablePointer<Double> { scratch + 2 * max(1, termCount) }

  deinit {
    docs.deallocate()
    frequencies.deallocate()
    scratch.deallocate()
  }
}
