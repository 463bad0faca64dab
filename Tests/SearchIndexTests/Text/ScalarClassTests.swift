import Testing
@testable import SearchIndex

/// Scalar classification, including that the fast paths agree with Unicode properties.
@Suite struct ScalarClassTests {
  @Test func latin1FastPathAgreesWithGeneralCategory() {
    for value in UInt32(0x80)...0xFF where value != 0xAD {
      #expect(ScalarClass.of(value) == ScalarClass.byCategory(Unicode.Scalar(value)!), "U+\(String(value, radix: 16))")
    }
    #expect(ScalarClass.of(0xAD) == .ignorable)
  }

  @Test func caselessFastPathSkipsOnlyScalarsWithoutCase() {
    var checked = 0
    for value in UInt32(0x80)...0xFFFF where TextFolding.isCaseless(value) {
      guard let scalar = Unicode.Scalar(value) else { continue }
      #expect(!scalar.properties.changesWhenLowercased, "U+\(String(value, radix: 16))")
      checked += 1
    }
    #expect(checked > 20_000)
  }

  @Test func cjkLettersAreCJKAndCJKPunctuationSeparates() {
    for character in ["東", "ひ", "カ", "ー", "한", "々", "〇", "ｶ", "\u{20000}"] {
      #expect(ScalarClass.of(character.unicodeScalars.first!.value) == .cjk, "\(character)")
    }
    for character in ["・", "。", "、", "「", "〜"] {
      #expect(ScalarClass.of(character.unicodeScalars.first!.value) == .separator, "\(character)")
    }
    #expect(ScalarClass.of(0x3099) == .mark)
    #expect(ScalarClass.of(0x1161) == .hangulContinuation)
  }

  @Test func invalidValuesAreSeparators() {
    #expect(ScalarClass.of(0xD800) == .separator)
    #expect(ScalarClass.of(0xFFFF_FFFF) == .separator)
  }

  @Test func lettersDigitsMarksAndIgnorablesAreClassified() {
    #expect(ScalarClass.of(0x0416) == .upper)  // Ж
    #expect(ScalarClass.of(0x0436) == .lower)  // ж
    #expect(ScalarClass.of(0x05D0) == .otherLetter)  // א
    #expect(ScalarClass.of(0x0663) == .digit)  // ٣
    #expect(ScalarClass.of(0x0301) == .mark)
    #expect(ScalarClass.of(0x200D) == .ignorable)
    #expect(ScalarClass.of(0x1F680) == .separator)  // 🚀
  }
}
