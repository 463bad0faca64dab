/// Unsigned LEB128 variable-length integers: 7 payload bits per byte, high bit set
/// on every byte except the last. Used for doc-id gaps, frequencies and term lists
/// because the values are small in the common case (one byte).
package enum Varint {
  /// Longest encoding of a `UInt64` (ceil(64 / 7)).
  package static let maxLength = 10

  /// Appends the encoding of `value` to `bytes`.
  @inline(__always)
  package static func append(_ value: UInt64, to bytes: inout [UInt8]) {
    var v = value
    while v >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
      v >>= 7
    }
    bytes.append(UInt8(truncatingIfNeeded: v))
  }

  /// Number of bytes `append` writes for `value`.
  package static func encodedLength(of value: UInt64) -> Int {
    var v = value
    var length = 1
    while v >= 0x80 {
      v >>= 7
      length += 1
    }
    return length
  }

  /// Reads one varint at `offset` (advancing it); nil when the bytes end inside it or it
  /// is longer than a `UInt64`, for bytes read from a file, which may be damaged.
  @inline(__always)
  package static func readIfValid(_ base: UnsafePointer<UInt8>, _ offset: inout Int, end: Int) -> UInt64? {
    guard offset < end else { return nil }
    var byte = base[offset]
    offset += 1
    if byte < 0x80 { return UInt64(byte) }
    var result = UInt64(byte & 0x7F)
    var shift: UInt64 = 7
    repeat {
      guard offset < end, shift < 64 else { return nil }
      byte = base[offset]
      offset += 1
      result |= UInt64(byte & 0x7F) << shift
      shift += 7
    } while byte >= 0x80
    return result
  }

  /// Reads one varint at `offset` (advancing it). Traps on truncated input rather
  /// than reading past `end`: payloads come from persisted BLOBs, and a corrupt
  /// row must not turn into out-of-bounds reads.
  @inline(__always)
  package static func read(_ base: UnsafePointer<UInt8>, _ offset: inout Int, end: Int) -> UInt64 {
    guard let value = readIfValid(base, &offset, end: end) else { preconditionFailure("truncated or malformed varint") }
    return value
  }

  /// Convenience decoder for a whole byte array (tests, cold paths).
  package static func decodeAll(_ bytes: [UInt8]) -> [UInt64] {
    var values: [UInt64] = []
    bytes.withUnsafeBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return }
      var offset = 0
      while offset < buffer.count {
        values.append(read(base, &offset, end: buffer.count))
      }
    }
    return values
  }
}
