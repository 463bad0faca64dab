import Testing
@testable import SearchIndex

/// CJK unigrams and bigrams, checked through phrase matching as FTS5 would do it.
@Suite struct TextAnalyzerCJKTests {
  let analyzer = TextAnalyzer(stemming: true)

  func described(_ text: String, _ mode: TokenizeMode = .document) -> [String] {
    analyzer.tokens(text, mode: mode).map(\.description)
  }

  @Test func documentEmitsUnigramsWithColocatedBigrams() {
    #expect(described("東京都") == ["東@0..<3", "+東京@0..<6", "京@3..<6", "+京都@3..<9", "都@6..<9"])
  }

  @Test func queryEmitsBigramsForARunAndAUnigramForALoneCharacter() {
    #expect(described("東京都", .query) == ["東京@0..<6", "京都@3..<9"])
    #expect(described("都", .query) == ["都@0..<3"])
    #expect(described("東京 大阪", .stemmedQuery) == ["東京@0..<6", "大阪@7..<13"])
  }

  @Test func cjkCharactersNeverJoinALatinWord() {
    #expect(described("abc東京def") == ["abc@0..<3", "東@3..<6", "+東京@3..<9", "京@6..<9", "def@9..<12"])
    #expect(analyzer.tokens("iPhone用ケース", mode: .query).map(\.text) == ["iphone", "用ケ", "ケー", "ース"])
  }

  @Test func chineseWordsAreFoundInASentence() {
    let document = "我爱北京天安门，天安门上太阳升。"
    for query in ["北京", "天安门", "太阳", "京", "我爱北京"] {
      #expect(PhraseMatcher.matches(analyzer, document: document, query: query), "\(query)")
    }
    for query in ["北门", "京北", "上海"] {
      #expect(!PhraseMatcher.matches(analyzer, document: document, query: query), "\(query)")
    }
  }

  @Test func japaneseWordsAreFoundInMixedKanaAndKanji() {
    let document = "私は東京でスイーツを食べました。スター・ウォーズも見た。"
    for query in ["東京", "スイーツ", "食べ", "見た", "ウォーズ", "東京で"] {
      #expect(PhraseMatcher.matches(analyzer, document: document, query: query), "\(query)")
    }
    // The middle dot separates runs, so no bigram spans it.
    #expect(!PhraseMatcher.matches(analyzer, document: document, query: "ターウォ"))
    #expect(!PhraseMatcher.matches(analyzer, document: document, query: "京東"))
  }

  @Test func koreanWordsAreFoundInASentence() {
    let document = "서울은 한국의 수도입니다."
    for query in ["서울", "한국", "수도", "입니다"] {
      #expect(PhraseMatcher.matches(analyzer, document: document, query: query), "\(query)")
    }
    #expect(!PhraseMatcher.matches(analyzer, document: document, query: "국한"))
    #expect(!PhraseMatcher.matches(analyzer, document: document, query: "은한"), "runs do not cross spaces")
  }

  @Test func decomposedKanaAndHangulMatchTheirPrecomposedForms() {
    // か + U+3099 is how macOS file names store が; conjoining jamo are decomposed Hangul.
    #expect(described("か\u{3099}き\u{3099}") == ["が@0..<6", "+がぎ@0..<12", "ぎ@6..<12"])
    let jamo = "\u{1112}\u{1161}\u{11AB}\u{1100}\u{116E}\u{11A8}"
    #expect(described(jamo) == ["한@0..<9", "+한국@0..<18", "국@9..<18"])
    #expect(PhraseMatcher.matches(analyzer, document: "서울 " + jamo + "어", query: "한국어"))
  }

  @Test func cjkTextMixedWithLatinWordsMatchesBoth() {
    let document = "SwiftUIで東京のアプリを作る"
    #expect(PhraseMatcher.matches(analyzer, document: document, query: "swiftui"))
    #expect(PhraseMatcher.matches(analyzer, document: document, query: "アプリ"))
    #expect(PhraseMatcher.matches(analyzer, document: document, query: "東京"))
  }
}
