/// Strict UTF-8 validation (RFC 3629: no overlong forms, no surrogates, nothing past
/// U+10FFFF) and the string of bytes that pass it.
///
/// The standard library's `String(validating:as:)` is generic over the sequence and the
/// encoding, and here took a metadata lookup per call: a third of the time of decoding a
/// stored item went to it. Valid bytes go through `String(decoding:as:)`, which then changes
/// nothing; texts of `longText` bytes and more, where the lookup is paid once, go through it.
package enum UTF8Validation {
  /// The length in bytes of the UTF-8 sequence that `lead` begins (1 for ASCII and for a
  /// stray continuation byte).
  package static func sequenceLength(lead: UInt8) -> Int {
    lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
  }

  /// From this many bytes on, `string` uses `String(validating:as:)`.
  static let longText = 4096

  /// The string of `bytes`, nil when they are not valid UTF-8.
  package static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
    // A long text pays the lookup once and is checked and made in one pass, twice as fast as
    // `isValid` and then `String(decoding:as:)`, which checks again (a document's text).
    if bytes.count >= longText { return String(validating: bytes, as: UTF8.self) }
    return isValid(bytes) ? String(decoding: bytes, as: UTF8.self) : nil
  }

  /// The string of `bytes`, invalid sequences replaced by U+FFFD as `String(decoding:as:)`
  /// replaces them; a long valid text is made in one pass instead of a check and a repair.
  package static func repairing(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    if bytes.count >= longText, let string = String(validating: bytes, as: UTF8.self) { return string }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The string of `bytes[range]`, nil when they are not valid UTF-8.
  package static func string(_ bytes: [UInt8], _ range: Range<Int>) -> String? {
    bytes.withUnsafeBufferPointer { string(UnsafeBufferPointer(rebasing: $0[range])) }
  }

  /// Whether `bytes` are valid UTF-8.
  package static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    let count = bytes.count
    guard count > 0, let base = bytes.baseAddress else { return true }
    var i = 0
    while i < count {
      // ASCII eight bytes at a time.
      while i + 8 <= count,
        UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0
      {
        i += 8
      }
      guard i < count else { break }
      let lead = base[i]
      if lead < 0x80 {
        i += 1
      } else if lead < 0xC2 {
        return false  // a continuation byte, or an overlong two-byte form
      } else if lead < 0xE0 {
        guard i + 1 < count, base[i + 1] & 0xC0 == 0x80 else { return false }
        i += 2
      } else if lead < 0xF0 {
        guard i + 2 < count else { return false }
        let second = base[i + 1]
        guard second & 0xC0 == 0x80, base[i + 2] & 0xC0 == 0x80 else { return false }
        if lead == 0xE0 && second < 0xA0 { return false }  // overlong
        if lead == 0xED && second >= 0xA0 { return false }  // a surrogate
        i += 3
      } else if lead < 0xF5 {
        guard i + 3 < count else { return false }
        let second = base[i + 1]
        guard second & 0xC0 == 0x80, base[i + 2] & 0xC0 == 0x80, base[i + 3] & 0xC0 == 0x80 else { return false }
        if lead == 0xF0 && second < 0x90 { return false }  // overlong
        if lead == 0xF4 && second >= 0x90 { return false }  // past U+10FFFF
        i += 4
      } else {
        return false
      }
    }
    return true
  }
}
