/// Appends Unicode scalars as UTF-8 into caller-owned memory, stopping cleanly at a byte limit.
///
/// The tokenizer folds every word into a small scratch area, so this writer never allocates.
/// It also performs the only compositions folding needs (see `FoldingTables.compose`), which
/// is why it remembers the last scalar it wrote.
struct FoldedTextWriter {
  /// Start of the output area; the writer never touches `base[limit...]`.
  let base: UnsafeMutablePointer<UInt8>
  /// Maximum number of bytes to write. A scalar that would cross it is dropped, together with
  /// everything after it, so output always ends on a scalar boundary.
  let limit: Int
  /// Bytes written so far.
  private(set) var count = 0
  /// Set once a scalar did not fit; later appends are ignored.
  private(set) var truncated = false
  /// The last scalar written (0 when none), for composing with the next one.
  private var lastScalar: UInt32 = 0
  /// Where `lastScalar` starts in the output, so a composition can overwrite it.
  private var lastStart = 0

  init(base: UnsafeMutablePointer<UInt8>, limit: Int) {
    self.base = base
    self.limit = limit
  }

  /// Appends one ASCII byte, the hot path for English text.
  @inline(__always)
  mutating func appendASCII(_ byte: UInt8) {
    guard !truncated else { return }
    guard count < limit else {
      truncated = true
      return
    }
    base[count] = byte
    lastStart = count
    lastScalar = UInt32(byte)
    count &+= 1
  }

  /// Appends a scalar value, composing it with the previous one when they form a kana or
  /// Hangul syllable.
  @inline(__always)
  mutating func append(_ value: UInt32) {
    guard !truncated else { return }
    if value >= 0x1161, lastScalar >= 0x1100, let composite = FoldingTables.compose(lastScalar, value) {
      count = lastStart
      write(composite)
      return
    }
    write(value)
  }

  @inline(__always)
  private mutating func write(_ value: UInt32) {
    let length = value < 0x80 ? 1 : value < 0x800 ? 2 : value < 0x1_0000 ? 3 : 4
    guard count &+ length <= limit else {
      truncated = true
      return
    }
    let p = base + count
    switch length {
    case 1:
      p[0] = UInt8(truncatingIfNeeded: value)
    case 2:
      p[0] = UInt8(truncatingIfNeeded: 0xC0 | value >> 6)
      p[1] = UInt8(truncatingIfNeeded: 0x80 | value & 0x3F)
    case 3:
      p[0] = UInt8(truncatingIfNeeded: 0xE0 | value >> 12)
      p[1] = UInt8(truncatingIfNeeded: 0x80 | value >> 6 & 0x3F)
      p[2] = UInt8(truncatingIfNeeded: 0x80 | value & 0x3F)
    default:
      p[0] = UInt8(truncatingIfNeeded: 0xF0 | value >> 18)
      p[1] = UInt8(truncatingIfNeeded: 0x80 | value >> 12 & 0x3F)
      p[2] = UInt8(truncatingIfNeeded: 0x80 | value >> 6 & 0x3F)
      p[3] = UInt8(truncatingIfNeeded: 0x80 | value & 0x3F)
    }
    lastStart = count
    lastScalar = value
    count &+= length
  }
}
