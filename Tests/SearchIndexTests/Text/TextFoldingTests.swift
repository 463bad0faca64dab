import Testing
@testable import SearchIndex

/// Folding as the index and the `c`/`d` query modifiers see it.
@Suite struct TextFoldingTests {
  @Test(arguments: [
    ("Crème Brûlée", "creme brulee"),
    ("ÆRØSKØBING", "aeroskobing"),
    ("Łódź", "lodz"),
    ("Straße", "strasse"),
    ("GROẞ", "gross"),
    ("İstanbul", "istanbul"),
    ("Işık", "isik"),
    ("Đorđe Ħal", "dorde hal"),
    ("Œuvre", "oeuvre"),
    ("Tiếng Việt", "tieng viet"),
    ("ΛΌΓΟΣ", "λογοσ"),
    ("λόγος", "λογοσ"),
    ("Ёлка", "елка"),
    ("Ǿ", "o"),
    ("e\u{301}te\u{301}", "ete"),
    ("\u{212A}elvin", "kelvin"),
  ])
  func foldLowercasesAndRemovesDiacritics(input: String, expected: String) {
    #expect(TextFolding.fold(input) == expected)
  }

  @Test func caseFoldKeepsDiacritics() {
    #expect(TextFolding.caseFold("Crème BRÛLÉE") == "crème brûlée")
    #expect(TextFolding.caseFold("Straße") == "straße")
    #expect(TextFolding.caseFold("ØRE") == "øre")
  }

  @Test func stripDiacriticsKeepsCase() {
    #expect(TextFolding.stripDiacritics("Crème Brûlée") == "Creme Brulee")
    #expect(TextFolding.stripDiacritics("ØRE Łódź") == "ORE Lodz")
    #expect(TextFolding.stripDiacritics("Straße ẞ") == "Strasse SS")
    #expect(TextFolding.stripDiacritics("ÆON") == "AEON")
  }

  @Test func caseAndDiacriticFoldingComposeToFold() {
    let samples = ["Crème Brûlée", "İSTANBUL ışık", "GROẞE Straße", "ΆΣΟΣ ς", "Ǿresund", "Øre", "Ñandú", "ÅNGSTRÖM"]
    for sample in samples {
      let folded = TextFolding.fold(sample)
      #expect(TextFolding.caseFold(TextFolding.stripDiacritics(sample)) == folded, "\(sample)")
      #expect(TextFolding.stripDiacritics(TextFolding.caseFold(sample)) == folded, "\(sample)")
    }
  }

  @Test func asciiIsOnlyLowercased() {
    #expect(TextFolding.fold("Hello, World! 42") == "hello, world! 42")
    #expect(TextFolding.caseFold("ABC xyz") == "abc xyz")
    #expect(TextFolding.stripDiacritics("ABC xyz") == "ABC xyz")
    #expect(TextFolding.fold("already lower") == "already lower")
    #expect(TextFolding.fold("") == "")
  }

  @Test func kanaVoicingMarksAreKeptAndComposed() {
    #expect(TextFolding.fold("がぎパ") == "がぎパ")
    // Decomposed input (as in macOS file names) folds to the precomposed form.
    #expect(TextFolding.fold("か\u{3099}き\u{3099}ハ\u{309A}") == "がぎパ")
    #expect(TextFolding.stripDiacritics("か\u{3099}") == "が")
  }

  @Test func hangulIsNotDecomposedAndConjoiningJamoCompose() {
    #expect(TextFolding.fold("한국어") == "한국어")
    #expect(TextFolding.fold("\u{1112}\u{1161}\u{11AB}\u{1100}\u{116E}\u{11A8}") == "한국")
  }

  @Test func indicSignsSurviveButHebrewAndArabicPointsAreDropped() {
    #expect(TextFolding.fold("हिन्दी") == "हिन्दी")
    #expect(TextFolding.fold("كَتَبَ") == "كتب")
    #expect(TextFolding.fold("שָׁלוֹם") == "שלום")
  }

  @Test func cjkCompatibilityIdeographMapsToItsCanonicalTwin() {
    #expect(TextFolding.fold("\u{F900}") == "\u{8C48}")
  }

  @Test func symbolsAndEmojiPassThrough() {
    #expect(TextFolding.fold("👍🏽 ≠ ½ ❤️") == "👍🏽 ≠ ½ ❤️")
  }
}

extension TextFoldingTests {
  @Test func strippedMarksAreAllNonspacingOrEnclosingMarks() {
    var stripped = 0
    for value in UInt32(0x80)...0xFFFF where FoldingTables.isStrippedMark(value) {
      guard let scalar = Unicode.Scalar(value) else { continue }
      let category = scalar.properties.generalCategory
      #expect([.nonspacingMark, .enclosingMark, .unassigned].contains(category), "U+\(String(value, radix: 16))")
      stripped += 1
    }
    #expect(stripped > 300)
  }

  @Test func decompositionTableIsSortedAndMapsLettersToLetters() {
    let keys = FoldingTables.decomposable
    #expect(keys.count == FoldingTables.baseLetters.count)
    #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 })
    for (key, base) in zip(keys, FoldingTables.baseLetters) {
      #expect(Unicode.Scalar(key)!.properties.isAlphabetic && Unicode.Scalar(base)!.properties.isAlphabetic)
      #expect(!FoldingTables.lookupGaps.contains { $0.contains(key) })
    }
  }
}

extension TextFoldingTests {
  @Test func latin1LowercasingFastPathAgreesWithUnicode() {
    for value in UInt32(0x80)...0xFF {
      let scalar = Unicode.Scalar(value)!
      #expect(TextFolding.caseFold(String(scalar)) == scalar.properties.lowercaseMapping, "U+\(String(value, radix: 16))")
    }
  }
}
