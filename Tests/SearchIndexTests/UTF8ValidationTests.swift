import Testing
@testable import SearchIndex

/// The JSON parser's UTF-8 check says what the standard library's strict decoding says.
@Suite struct UTF8ValidationTests {
  static let samples: [[UInt8]] = [
    [], Array("plain ASCII text longer than eight bytes".utf8), Array("Zoë, 東京, 😀".utf8),
    [0xFF], [0x80], [0xC0, 0x80], [0xC1, 0xBF],  // a stray continuation, overlong forms
    [0xE0, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xED, 0x9F, 0xBF],  // overlong, surrogate, the last before them
    [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [0xF5, 0x80, 0x80, 0x80],
    [0xE2, 0x82], Array("abcdefgh".utf8) + [0xE2, 0x82], Array("abcdefg".utf8) + [0xC3, 0xA9] + Array("abcdefgh".utf8),
  ]

  @Test(arguments: samples)
  func agreesWithTheStandardLibrary(_ bytes: [UInt8]) {
    let expected = String(validating: bytes, as: UTF8.self)
    #expect(UTF8Validation.string(bytes, bytes.indices) == expected)
  }

  @Test func agreesOnRandomBytes() {
    var generator = SplitMix64(seed: 7)
    for _ in 0..<5_000 {
      let count = Int(generator.next() % 24)
      // Mostly bytes that make valid sequences likely, some of any value.
      let bytes = (0..<count).map { _ -> UInt8 in
        let r = generator.next()
        switch r % 4 {
        case 0: return UInt8(truncatingIfNeeded: r >> 8) | 0x80
        case 1: return 0x80 | UInt8(truncatingIfNeeded: r >> 8) & 0x3F
        default: return UInt8(truncatingIfNeeded: r >> 8) & 0x7F
        }
      }
      #expect(UTF8Validation.string(bytes, bytes.indices) == String(validating: bytes, as: UTF8.self), "\(bytes)")
    }
  }

  /// Long texts take the standard library's path, short ones the package's: both agree with
  /// `isValid`, whichever side of the length the sample falls on.
  @Test(arguments: samples)
  func longTextsAgreeToo(_ sample: [UInt8]) {
    for padding in [UTF8Validation.longText - sample.count - 1, UTF8Validation.longText, 3 * UTF8Validation.longText] where padding >= 0 {
      for bytes in [Array(repeating: UInt8(ascii: "a"), count: padding) + sample, sample + Array(repeating: UInt8(ascii: "b"), count: padding)] {
        let valid = bytes.withUnsafeBufferPointer { UTF8Validation.isValid($0) }
        let string = UTF8Validation.string(bytes, bytes.indices)
        #expect(valid == (string != nil), "\(sample) with \(padding)")
        #expect(string.map { Array($0.utf8) } == (valid ? bytes : nil), "\(sample) with \(padding)")
      }
    }
  }

  @Test func aRangeIsReadAlone() {
    let bytes = Array("[é]".utf8)
    #expect(UTF8Validation.string(bytes, 1..<3) == "é")
    #expect(UTF8Validation.string(bytes, 1..<2) == nil)
  }
}
