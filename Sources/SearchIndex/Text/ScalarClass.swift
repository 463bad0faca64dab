/// How the tokenizer treats one non-ASCII Unicode scalar. (ASCII is classified inline by the
/// tokenizer's byte loop, which is the hot path.)
enum ScalarClass: Equatable {
  /// Ends a word: punctuation, symbols (emoji), spaces, controls, unassigned and invalid input.
  case separator
  /// A lowercase letter (Ll); an uppercase letter right after one is a camelCase boundary.
  case lower
  /// An uppercase or titlecase letter (Lu, Lt).
  case upper
  /// A letter without case (Lm, Lo outside CJK).
  case otherLetter
  /// A digit or letter-like number (Nd, Nl). Other numbers (², ½) separate, as in unicode61.
  case digit
  /// A combining mark (Mn, Mc, Me): continues the word or CJK character before it, and is
  /// never the start of one.
  case mark
  /// Invisible format characters that may sit inside a word (soft hyphen, zero-width joiner
  /// and non-joiner, word joiner, BOM, variation selectors): skipped without ending the word,
  /// so `hy\u{AD}phen` is one word.
  case ignorable
  /// Han, kana or Hangul: never part of a Latin word; indexed one character at a time.
  case cjk
  /// A conjoining Hangul vowel or final jamo, which belongs to the syllable before it
  /// (decomposed Hangul, as macOS stores file names).
  case hangulContinuation

  /// Whether this class starts or continues a Latin word.
  var isWordCharacter: Bool {
    switch self {
    case .lower, .upper, .otherLetter, .digit: return true
    default: return false
    }
  }

  /// Classifies a scalar value at or above 0x80. Values that are not scalars (invalid UTF-8
  /// is reported as 0xFFFF_FFFF) are separators.
  static func of(_ value: UInt32) -> ScalarClass {
    if value < 0x100 { return latin1Class(value) }
    if value >= 0x1100, let cjk = cjkClass(value) { return cjk }
    if isIgnorable(value) { return .ignorable }
    guard let scalar = Unicode.Scalar(value) else { return .separator }
    return byCategory(scalar)
  }

  /// Whether `value` is one of the invisible characters skipped inside words.
  @inline(__always)
  static func isIgnorable(_ value: UInt32) -> Bool {
    switch value {
    case 0xAD, 0x200C, 0x200D, 0x2060, 0xFEFF, 0xFE00...0xFE0F, 0x180B...0x180F, 0xE0100...0xE01EF:
      return true
    default:
      return false
    }
  }

  /// U+0080…U+00FF without a property lookup: accented Latin is common enough in European
  /// text that the lookup showed up in profiles. Tests check this against `byCategory`.
  @inline(__always)
  private static func latin1Class(_ value: UInt32) -> ScalarClass {
    switch value {
    case 0xC0...0xD6, 0xD8...0xDE: return .upper
    case 0xDF...0xF6, 0xF8...0xFF, 0xB5: return .lower
    case 0xAA, 0xBA: return .otherLetter
    case 0xAD: return .ignorable
    default: return .separator  // Controls, punctuation, symbols, ², ½, ×, ÷.
    }
  }

  /// The class implied by the general category alone, ignoring CJK and ignorables.
  static func byCategory(_ scalar: Unicode.Scalar) -> ScalarClass {
    switch scalar.properties.generalCategory {
    case .lowercaseLetter: return .lower
    case .uppercaseLetter, .titlecaseLetter: return .upper
    case .modifierLetter, .otherLetter: return .otherLetter
    case .decimalNumber, .letterNumber: return .digit
    case .nonspacingMark, .spacingMark, .enclosingMark: return .mark
    default: return .separator
    }
  }

  /// The class of a scalar in a CJK block, or nil outside them.
  private static func cjkClass(_ value: UInt32) -> ScalarClass? {
    switch value {
    // Fully assigned letter ranges, the common case: no property lookup.
    case 0x4E00...0x9FFF, 0xAC00...0xD7A3, 0x3041...0x3096, 0x30A1...0x30FA:
      return .cjk
    case 0x1160...0x11FF, 0xD7B0...0xD7FF:
      return .hangulContinuation
    case 0x1100...0x115F, 0x3005...0x3007, 0x3021...0x3029, 0x3031...0x3035, 0x303B...0x303C,
       0x3097...0x30A0, 0x30FB...0x30FF, 0x3130...0x318F, 0x31F0...0x31FF, 0x3400...0x4DBF,
       0xA960...0xA97F, 0xF900...0xFAFF, 0xFF66...0xFFDC, 0x1B000...0x1B16F, 0x20000...0x323AF:
      // Mixed blocks: letters (and 〇, 〡…) are CJK characters; the voicing marks stay marks
      // so they attach to their kana; punctuation such as ・ separates.
      guard let scalar = Unicode.Scalar(value) else { return .separator }
      switch byCategory(scalar) {
      case .lower, .upper, .otherLetter, .digit: return .cjk
      case .mark: return .mark
      default: return .separator
      }
    default:
      return nil
    }
  }
}
