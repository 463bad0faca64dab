/// Growable, manually managed buffer of the postings that essential lists
/// contribute to one window: slot offset, cursor index and per-field
/// frequencies. Recording them in the bounding pass lets the scoring pass score
/// only surviving documents without re-decoding any block. Reused across windows
/// of a query, so it allocates only when a window is larger than any before.
struct WindowPostings {
  let fieldCount: Int
  private(set) var capacity: Int
  private(set) var offsets: UnsafeMutablePointer<Int32>
  private(set) var cursorIndices: UnsafeMutablePointer<Int32>
  private(set) var frequencies: UnsafeMutablePointer<UInt32>
  var count = 0

  init(fieldCount: Int, capacity: Int = 4096) {
    self.fieldCount = fieldCount
    self.capacity = capacity
    offsets = .allocate(capacity: capacity)
    cursorIndices = .allocate(capacity: capacity)
    frequencies = .allocate(capacity: capacity * fieldCount)
  }

  @inline(__always)
  mutating func append(offset: Int, cursor: Int, frequencies source: UnsafePointer<UInt32>) {
    if count == capacity { grow() }
    offsets[count] = Int32(truncatingIfNeeded: offset)
    cursorIndices[count] = Int32(truncatingIfNeeded: cursor)
    (frequencies + count * fieldCount).update(from: source, count: fieldCount)
    count += 1
  }

  private mutating func grow() {
    let newCapacity = capacity * 2
    let newOffsets = UnsafeMutablePointer<Int32>.allocate(capacity: newCapacity)
    let newCursors = UnsafeMutablePointer<Int32>.allocate(capacity: newCapacity)
    let newFrequencies = UnsafeMutablePointer<UInt32>.allocate(capacity: newCapacity * fieldCount)
    newOffsets.update(from: offsets, count: count)
    newCursors.update(from: cursorIndices, count: count)
    newFrequencies.update(from: frequencies, count: count * fieldCount)
    deallocate()
    offsets = newOffsets
    cursorIndices = newCursors
    frequencies = newFrequencies
    capacity = newCapacity
  }

  func deallocate() {
    offsets.deallocate()
    cursorIndices.deallocate()
    frequencies.deallocate()
  }
}
