// Lookups over the generated tables, kept apart so regenerating never touches logic.

extension FoldingTables {
  /// Returns the base letter of a precomposed letter (`é` → `e`, `ǿ` → `ø`), or nil when the
  /// scalar does not decompose to a base plus stripped marks.
  @inline(__always)
  static func baseLetter(of value: UInt32) -> UInt32? {
    // Below U+00C0 is ASCII and Latin-1 punctuation; the gaps hold CJK: skip the search.
    guard value >= 0xC0 else { return nil }
    for gap in lookupGaps where gap.contains(value) { return nil }
    return decomposable.withUnsafeBufferPointer { keys -> UInt32? in
      var low = 0
      var high = keys.count
      while low < high {
        let mid = (low &+ high) >> 1
        if keys[mid] < value { low = mid &+ 1 } else { high = mid }
      }
      guard low < keys.count, keys[low] == value else { return nil }
      return baseLetters[low]
    }
  }

  /// Whether `value` is a combining mark that diacritic folding drops.
  ///
  /// Must match `STRIPPED` in Scripts/generate-folding-tables.py. Every assigned scalar in
  /// these ranges is a nonspacing or enclosing mark (a test checks this); the few unassigned
  /// ones are dropped too, which is harmless.
  @inline(__always)
  static func isStrippedMark(_ value: UInt32) -> Bool {
    switch value {
    case 0x0300...0x036F, 0x1AB0...0x1AFF, 0x1DC0...0x1DFF, 0x20D0...0x20FF, 0xFE20...0xFE2F:
      return true
    case 0x0591...0x05BD, 0x05BF, 0x05C1...0x05C2, 0x05C4...0x05C5, 0x05C7:
      return true
    case 0x0610...0x061A, 0x064B...0x065F, 0x0670:
      return true
    case 0x06D6...0x06DC, 0x06DF...0x06E4, 0x06E7...0x06E8, 0x06EA...0x06ED:
      return true
    default:
      return false
    }
  }

  /// The canonical composite of `previous` followed by `next`, for the two cases where folding
  /// keeps the pieces apart but precomposed input exists: kana with a voicing mark, and
  /// conjoining Hangul jamo. Returns nil when the pair does not compose.
  ///
  /// Without this, `か` + U+3099 (as macOS writes file names) and `が` would fold to different
  /// bytes and never match each other.
  @inline(__always)
  static func compose(_ previous: UInt32, _ next: UInt32) -> UInt32? {
    switch next {
    case 0x3099, 0x309A:
      let key = UInt64(previous) << 32 | UInt64(next) << 16
      return kanaCompositions.withUnsafeBufferPointer { pairs -> UInt32? in
        for packed in pairs where packed & ~0xFFFF == key {
          return UInt32(truncatingIfNeeded: packed & 0xFFFF)
        }
        return nil
      }
    case 0x1161...0x1175:
      // Leading consonant + vowel → LV syllable (Unicode §3.12, Hangul Syllable Composition).
      guard (0x1100...0x1112).contains(previous) else { return nil }
      return 0xAC00 + ((previous - 0x1100) * 21 + (next - 0x1161)) * 28
    case 0x11A8...0x11C2:
      // LV syllable + trailing consonant → LVT syllable.
      guard (0xAC00...0xD7A3).contains(previous), (previous - 0xAC00) % 28 == 0 else { return nil }
      return previous + (next - 0x11A7)
    default:
      return nil
    }
  }
}
