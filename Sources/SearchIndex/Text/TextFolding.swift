/// Case and diacritic folding, the normalization behind every indexed token and the query
/// modifiers `c` (case-insensitive) and `d` (diacritic-insensitive).
///
/// `fold` is both at once and is what the index stores. The two halves are exposed apart
/// because the query engine applies each modifier on its own, and they compose:
/// `fold(s) == caseFold(stripDiacritics(s)) == stripDiacritics(caseFold(s))`.
///
/// Diacritic removal follows SQLite's unicode61 `remove_diacritics 2` in spirit: decompose
/// (NFD), drop the combining diacritical marks, keep the base letter. Two deliberate limits:
/// - Only marks that are diacritics in the usual sense are dropped (Latin/Greek/Cyrillic
///   combining marks, Hebrew points, Arabic harakat; see `FoldingTables.isStrippedMark`).
///   Indic vowel signs and viramas and the kana voicing marks change the word, so they stay:
///   `が` does not fold to `か`.
/// - Letters that read as a base letter with a mark but do not decompose (`ø`, `ł`, `đ`, `ħ`,
///   `ŧ`, `ı`) and the ligatures `æ`, `œ`, `ß` fold through a small table, as in most search
///   engines.
///
/// Lowercasing is per scalar (`Unicode.Scalar.Properties.lowercaseMapping`), plus final
/// sigma `ς` → `σ`, because per-scalar lowercasing of `ΛΟΓΟΣ` yields `σ` where running text
/// has `ς`.
///
/// Pure ASCII input takes a byte-level fast path and never builds intermediate strings.
package enum TextFolding {
  /// Lowercases and removes diacritics: `"Crème Brûlée"` → `"creme brulee"`.
  package static func fold(_ s: String) -> String {
    transform(s, lowercase: true, strip: true)
  }

  /// Lowercases only, keeping diacritics: `"Crème"` → `"crème"`.
  package static func caseFold(_ s: String) -> String {
    transform(s, lowercase: true, strip: false)
  }

  /// Removes diacritics only, keeping case: `"Crème"` → `"Creme"`, `"Øre"` → `"Ore"`.
  package static func stripDiacritics(_ s: String) -> String {
    transform(s, lowercase: false, strip: true)
  }

  /// Folds one scalar into `writer`. Shared by the String functions and the tokenizer so that
  /// index-time and query-time text can never fold differently.
  @inline(__always)
  static func append(_ scalar: Unicode.Scalar, lowercase: Bool, strip: Bool, to writer: inout FoldedTextWriter) {
    let value = scalar.value
    if value < 0x80 {
      let upper = value &- 0x41 < 26
      writer.appendASCII(UInt8(truncatingIfNeeded: lowercase && upper ? value | 0x20 : value))
      return
    }
    guard lowercase, !isCaseless(value) else {
      appendStripping(value, strip: strip, to: &writer)
      return
    }
    if value < 0x100 {
      // Latin-1: À…Þ (but not ×) lowercase by adding 0x20; the rest has no uppercase.
      let lower = (0xC0...0xDE).contains(value) && value != 0xD7 ? value + 0x20 : value
      appendStripping(lower, strip: strip, to: &writer)
      return
    }
    let properties = scalar.properties
    if properties.changesWhenLowercased {
      // lowercaseMapping is a small String (at most a few bytes), stored inline: no heap.
      for lower in properties.lowercaseMapping.unicodeScalars {
        appendStripping(lower.value, strip: strip, to: &writer)
      }
    } else if value == 0x3C2 {
      appendStripping(0x3C3, strip: strip, to: &writer)  // ς → σ
    } else {
      appendStripping(value, strip: strip, to: &writer)
    }
  }

  /// Blocks with no case at all (Hebrew through Myanmar, Hangul jamo, Ethiopic, CJK, Hangul
  /// syllables, CJK compatibility and supplementary ideographs), where the case property
  /// lookup, the costliest step for such text, can be skipped.
  @inline(__always)
  static func isCaseless(_ value: UInt32) -> Bool {
    switch value {
    case 0x0590...0x109F, 0x1100...0x139F, 0x3000...0x9FFF, 0xAC00...0xD7FF, 0xF900...0xFAFF, 0x2_0000...0x3_FFFF:
      return true
    default:
      return false
    }
  }

  @inline(__always)
  private static func appendStripping(_ value: UInt32, strip: Bool, to writer: inout FoldedTextWriter) {
    guard strip, value >= 0xC0 else {
      writer.append(value)
      return
    }
    if FoldingTables.isStrippedMark(value) { return }
    let base = FoldingTables.baseLetter(of: value) ?? value
    switch base {
    case 0xD8: writer.append(0x4F)  // Ø → O
    case 0xF8: writer.append(0x6F)  // ø → o
    case 0x110: writer.append(0x44)  // Đ → D
    case 0x111: writer.append(0x64)  // đ → d
    case 0x126: writer.append(0x48)  // Ħ → H
    case 0x127: writer.append(0x68)  // ħ → h
    case 0x131: writer.append(0x69)  // ı → i
    case 0x141: writer.append(0x4C)  // Ł → L
    case 0x142: writer.append(0x6C)  // ł → l
    case 0x166: writer.append(0x54)  // Ŧ → T
    case 0x167: writer.append(0x74)  // ŧ → t
    case 0xC6: writer.append(0x41); writer.append(0x45)  // Æ → AE
    case 0xE6: writer.append(0x61); writer.append(0x65)  // æ → ae
    case 0x152: writer.append(0x4F); writer.append(0x45)  // Œ → OE
    case 0x153: writer.append(0x6F); writer.append(0x65)  // œ → oe
    case 0xDF: writer.append(0x73); writer.append(0x73)  // ß → ss
    case 0x1E9E: writer.append(0x53); writer.append(0x53)  // ẞ → SS
    default: writer.append(base)
    }
  }

  private static func transform(_ s: String, lowercase: Bool, strip: Bool) -> String {
    var s = s
    var isASCII = true
    var hasUpper = false
    s.withUTF8 { input in
      for byte in input {
        if byte >= 0x80 {
          isASCII = false
          return
        }
        if byte &- 0x41 < 26 { hasUpper = true }
      }
    }
    if isASCII {
      // ASCII has no diacritics, so only lowercasing can change it.
      guard lowercase, hasUpper else { return s }
      return s.withUTF8 { input in
        String(unsafeUninitializedCapacity: input.count) { output -> Int in
          for index in input.indices {
            let byte = input[index]
            output[index] = byte &- 0x41 < 26 ? byte | 0x20 : byte
          }
          return input.count
        }
      }
    }
    // Folding grows text by at most 1.5× (İ → i + U+0307, Ⱥ → ⱥ); retry bigger if a table
    // update ever breaks that bound, rather than silently truncating.
    var capacity = s.utf8.count * 2 + 8
    while true {
      var complete = false
      let result = String(unsafeUninitializedCapacity: capacity) { output -> Int in
        var writer = FoldedTextWriter(base: output.baseAddress!, limit: output.count)
        for scalar in s.unicodeScalars {
          append(scalar, lowercase: lowercase, strip: strip, to: &writer)
        }
        complete = !writer.truncated
        return writer.count
      }
      if complete { return result }
      capacity *= 2
    }
  }
}
