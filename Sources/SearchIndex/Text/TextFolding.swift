import Foundation

/// Case and diacritic folding, done the same way when values are stored and when queries
/// compare them (the `c` and `d` modifiers), and matching FTS5's `remove_diacritics 2`.
package enum TextFolding {
  /// Lower-cased and without diacritics: the key of the `fold` column.
  package static func fold(_ s: String) -> String {
    if let ascii = asciiLowercased(s) { return ascii }
    return stripDiacritics(s).lowercased()
  }

  /// Lower-cased only (the `c` modifier).
  package static func caseFold(_ s: String) -> String {
    asciiLowercased(s) ?? s.lowercased()
  }

  /// Without diacritics, case kept (the `d` modifier).
  package static func stripDiacritics(_ s: String) -> String {
    if s.utf8.allSatisfy({ $0 < 0x80 }) { return s }
    var scalars = String.UnicodeScalarView()
    for scalar in s.decomposedStringWithCanonicalMapping.unicodeScalars {
      if scalar.properties.generalCategory == .nonspacingMark { continue }
      if let replacement = undecomposable[scalar] {
        scalars.append(contentsOf: replacement.unicodeScalars)
      } else {
        scalars.append(scalar)
      }
    }
    return String(scalars)
  }

  /// Letters with a stroke or ligature that Unicode does not decompose.
  private static let undecomposable: [Unicode.Scalar: String] = [
    "ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "æ": "ae", "Æ": "AE",
    "œ": "oe", "Œ": "OE", "ß": "ss", "ı": "i", "ħ": "h", "Ħ": "H",
  ]

  private static func asciiLowercased(_ s: String) -> String? {
    var needsChange = false
    for byte in s.utf8 {
      if byte >= 0x80 { return nil }
      if byte >= 65 && byte <= 90 { needsChange = true }
    }
    guard needsChange else { return s }
    return String(unsafeUninitializedCapacity: s.utf8.count) { buffer in
      var i = 0
      for byte in s.utf8 {
        buffer[i] = (byte >= 65 && byte <= 90) ? byte + 32 : byte
        i += 1
      }
      return i
    }
  }
}
