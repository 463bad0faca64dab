import Testing
@testable import SearchIndex

/// Latin words, offsets, camelCase and stemming in the tokenizer.
@Suite struct TextAnalyzerTests {
  let plain = TextAnalyzer(stemming: false)
  let stemming = TextAnalyzer(stemming: true)

  /// Token descriptions: `+` marks colocated, `~` a stem token, then the byte range.
  func described(_ analyzer: TextAnalyzer, _ text: String, _ mode: TokenizeMode = .document) -> [String] {
    analyzer.tokens(text, mode: mode).map(\.description)
  }

  /// The UTF-8 offset of the first occurrence of `needle` in `text`.
  func offset(of needle: String, in text: String) -> Int {
    let bytes = Array(text.utf8)
    let target = Array(needle.utf8)
    for start in 0...(bytes.count - target.count) where Array(bytes[start..<start + target.count]) == target {
      return start
    }
    Issue.record("\(needle) not in \(text)")
    return -1
  }

  // MARK: Words and offsets

  @Test func splitsOnPunctuationAndSpaceWithByteOffsets() {
    #expect(described(plain, "Hello, World!") == ["hello@0..<5", "world@7..<12"])
  }

  @Test func multiByteInputReportsOffsetsIntoTheOriginalBytes() {
    let text = "Crème brûlée café"
    #expect(described(plain, text) == ["creme@0..<6", "brulee@7..<15", "cafe@16..<21"])
    let bytes = Array(text.utf8)
    let sources = plain.tokens(text, mode: .document).map { String(decoding: bytes[$0.byteRange], as: UTF8.self) }
    #expect(sources == ["Crème", "brûlée", "café"])
  }

  @Test func emojiSeparateWordsAndOffsetsCountTheirBytes() {
    let text = "I ❤️ Swift 🚀! a👍🏽b"
    let swift = offset(of: "Swift", in: text)
    let b = offset(of: "b", in: text)
    #expect(described(plain, text) == ["i@0..<1", "swift@\(swift)..<\(swift + 5)", "a@\(b - 9)..<\(b - 8)", "b@\(b)..<\(b + 1)"])
  }

  @Test func emptyPunctuationOnlyAndEmojiOnlyInputHaveNoTokens() {
    for text in ["", "   ", "!!! ... --- ,;: ()[]{} \"'", "🚀🎉👍🏽 ❤️ 👨‍👩‍👧", "\u{1}\u{1}", "² ½ ≠ ∞"] {
      for mode in [TokenizeMode.document, .query, .stemmedQuery] {
        #expect(stemming.tokens(text, mode: mode).isEmpty, "\(text)")
      }
    }
  }

  @Test func numbersAreTokensAndDecimalPointsSeparate() {
    #expect(plain.tokens("In 2026, v4.5 of mp3 players", mode: .document).map(\.text)
      == ["in", "2026", "v4", "5", "of", "mp3", "players"])
  }

  @Test func apostrophesBetweenLettersJoinTheWord() {
    #expect(described(plain, "Don't stop") == ["dont@0..<5", "stop@6..<10"])
    #expect(plain.tokens("O’Brien rock'n'roll 'quoted' dogs'", mode: .document).map(\.text)
      == ["obrien", "rocknroll", "quoted", "dogs"])
    #expect(described(plain, "'quoted'") == ["quoted@1..<7"])
  }

  @Test func softHyphenAndJoinersStayInsideTheWord() {
    #expect(described(plain, "hy\u{AD}phen") == ["hyphen@0..<8"])
    #expect(described(plain, "x\u{200D}y z") == ["xy@0..<5", "z@6..<7"])
  }

  @Test func decomposedAccentsFoldAndStayInTheWord() {
    #expect(described(plain, "cafe\u{301} ok") == ["cafe@0..<6", "ok@7..<9"])
  }

  @Test func invalidUTF8BytesSeparateWithoutReadingPastTheEnd() {
    let bytes: [UInt8] = [0x61, 0xFF, 0x62, 0xC0, 0xAF, 0x63, 0xED, 0xA0, 0x80, 0x64, 0xE2, 0x82]
    var tokens: [AnalyzedToken] = []
    bytes.withUnsafeBufferPointer { buffer in
      plain.tokenize(buffer, mode: .document) { tokens.append($0.token) }
    }
    #expect(tokens.map(\.description) == ["a@0..<1", "b@2..<3", "c@5..<6", "d@9..<10"])
  }

  @Test func longWordsAreTruncatedAt64BytesOnAScalarBoundaryButKeepTheirWholeRange() {
    let ascii = String(repeating: "abcdefghij", count: 10)
    let asciiTokens = stemming.tokens(ascii + " end", mode: .document)
    #expect(asciiTokens.first?.text == String(ascii.prefix(64)))
    #expect(asciiTokens.first?.byteRange == 0..<100)
    #expect(asciiTokens.map(\.text).count == 2, "no stem token for a truncated word")

    let cyrillic = String(repeating: "ж", count: 40)  // 80 bytes
    let cyrillicToken = plain.tokens(cyrillic, mode: .document)
    #expect(cyrillicToken.map(\.text) == [String(repeating: "ж", count: 32)])
    #expect(cyrillicToken.first?.byteRange == 0..<80)

    let runic = String(repeating: "ᚠ", count: 30)  // 3 bytes each: 63 fit, the 22nd would not
    #expect(plain.tokens(runic, mode: .query).map(\.text) == [String(repeating: "ᚠ", count: 21)])
  }

  @Test func firstTokenIsNeverColocatedAndRangesLieOnScalarBoundaries() {
    let text = "MyWindowClass naïve 東京都 connected ЁлкаTree 한국어 x"
    let bytes = Array(text.utf8)
    for mode in [TokenizeMode.document, .query, .stemmedQuery] {
      let tokens = stemming.tokens(text, mode: mode)
      #expect(tokens.first?.colocated == false)
      for token in tokens {
        #expect(token.byteRange.lowerBound >= 0 && token.byteRange.upperBound <= bytes.count)
        #expect(bytes[token.byteRange.lowerBound] & 0xC0 != 0x80, "\(token)")
        #expect(token.byteRange.upperBound == bytes.count || bytes[token.byteRange.upperBound] & 0xC0 != 0x80)
        #expect(token.text.utf8.count <= TextAnalyzer.maxTokenBytes + 1)
      }
    }
  }

  @Test func arbitraryBytesNeverCrashAndAlwaysYieldValidTokens() {
    // SplitMix64, so the inputs are the same on every run.
    var state: UInt64 = 0x5EED
    func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    // Bias towards interesting bytes: ASCII letters, UTF-8 lead and continuation bytes.
    let alphabet: [UInt8] = Array("aZ'’ 1\u{1}".utf8) + [0xC3, 0xA9, 0xE6, 0x9D, 0xB1, 0xE3, 0x81, 0x8B, 0x82, 0x99, 0xF0, 0x9F, 0x80, 0xFF, 0xED, 0xA0]
    for _ in 0..<300 {
      let length = Int(next() % 200)
      let bytes = (0..<length).map { _ in alphabet[Int(next() % UInt64(alphabet.count))] }
      for mode in [TokenizeMode.document, .query, .stemmedQuery] {
        var isFirst = true
        bytes.withUnsafeBufferPointer { buffer in
          stemming.tokenize(buffer, mode: mode) { token in
            #expect(!(isFirst && token.colocated))
            #expect(!token.bytes.isEmpty && token.bytes.count <= TextAnalyzer.maxTokenBytes + 1)
            #expect(token.byteRange.lowerBound >= 0 && token.byteRange.upperBound <= bytes.count)
            #expect(!token.byteRange.isEmpty)
            #expect(String(validating: token.bytes, as: UTF8.self) != nil)
            isFirst = false
          }
        }
      }
    }
  }

  // MARK: camelCase

  @Test func documentModeEmitsCamelCasePartsColocatedWithTheWholeWord() {
    #expect(described(plain, "MyWindowClass") == ["mywindowclass@0..<13", "+my@0..<2", "+window@2..<8", "+class@8..<13"])
  }

  @Test func queryModeEmitsOnlyTheWholeCamelCaseWord() {
    #expect(described(plain, "MyWindowClass", .query) == ["mywindowclass@0..<13"])
  }

  @Test func uppercaseRunsBeforeAWordAreNotSplit() {
    #expect(described(plain, "NSWindow") == ["nswindow@0..<8"])
    #expect(plain.tokens("NSWindowController getHTTPResponse", mode: .document).map(\.text)
      == ["nswindowcontroller", "nswindow", "controller", "gethttpresponse", "get", "httpresponse"])
  }

  @Test func camelCaseWorksAcrossDiacriticsWithByteOffsets() {
    #expect(described(plain, "ÉcoleNormale") == ["ecolenormale@0..<13", "+ecole@0..<6", "+normale@6..<13"])
  }

  @Test func wordQueryMatchesCamelCasePartsButNotAnUppercasePrefix() {
    #expect(PhraseMatcher.matches(plain, document: "class MyWindowClass {}", query: "Window"))
    #expect(PhraseMatcher.matches(plain, document: "a Broken Window", query: "Window"))
    #expect(!PhraseMatcher.matches(plain, document: "let w = NSWindow()", query: "Window"))
    #expect(PhraseMatcher.matches(plain, document: "let w = NSWindow()", query: "nswindow"))
    #expect(PhraseMatcher.matches(plain, document: "class MyWindowClass {}", query: "mywindowclass"))
  }

  // MARK: Stemming

  @Test func documentModeAddsAColocatedStemOnlyWhenItDiffers() {
    #expect(described(stemming, "connected") == ["connected@0..<9", "+~connect@0..<9"])
    #expect(described(stemming, "connect") == ["connect@0..<7"])
    #expect(stemming.tokens("connected", mode: .document)[1].text == "\u{1}connect")
  }

  @Test func exactQueryEmitsTheWordAndStemmedQueryEmitsStemAlternatives() {
    #expect(described(stemming, "connected", .query) == ["connected@0..<9"])
    #expect(described(stemming, "connected", .stemmedQuery) == ["~connect@0..<9", "+connect@0..<9"])
    // "abuse" stems to "abus", which itself stems to "abu": the bare form is no alternative.
    #expect(described(stemming, "abuse", .stemmedQuery) == ["~abus@0..<5"])
  }

  @Test func stemMarkerInQueryTextStemsOnlyTheNextWord() {
    #expect(described(stemming, "\u{1}connected cars", .query) == ["~connect@1..<10", "+connect@1..<10", "cars@11..<15"])
    #expect(described(stemming, "\u{1} connected", .query) == ["connected@2..<11"])
    // In documents the marker is just a separator.
    #expect(described(stemming, "\u{1}connected") == ["connected@1..<10", "+~connect@1..<10"])
  }

  @Test func stemmedQueryMatchesEveryFormAndExactQueryOnlyItsOwn() {
    for document in ["connected", "connecting", "connect", "connections", "Connection"] {
      #expect(PhraseMatcher.matches(stemming, document: document, query: "connected", mode: .stemmedQuery), "\(document)")
      #expect(PhraseMatcher.matches(stemming, document: document, query: "connect", mode: .stemmedQuery), "\(document)")
    }
    #expect(PhraseMatcher.matches(stemming, document: "connected", query: "connected"))
    #expect(!PhraseMatcher.matches(stemming, document: "connecting", query: "connected"))
    #expect(!PhraseMatcher.matches(stemming, document: "connected", query: "connect"))
    #expect(!PhraseMatcher.matches(stemming, document: "connoisseur", query: "connected", mode: .stemmedQuery))
  }

  @Test func stemmedPhrasesLineUpWithDocumentPositions() {
    let document = "the connecting systems failed"
    #expect(PhraseMatcher.matches(stemming, document: document, query: "connected system", mode: .stemmedQuery))
    #expect(PhraseMatcher.matches(stemming, document: document, query: "connect systems fail", mode: .stemmedQuery))
    #expect(!PhraseMatcher.matches(stemming, document: document, query: "connected system"))
    #expect(!PhraseMatcher.matches(stemming, document: document, query: "systems connecting", mode: .stemmedQuery))
  }

  @Test func wordsThatFoldToASCIIAreStemmedOthersAreNot() {
    #expect(stemming.tokens("naïve cafés", mode: .document).map(\.text) == ["naive", "\u{1}naiv", "cafes", "\u{1}cafe"])
    #expect(stemming.tokens("мосты 2026 mp3s", mode: .document).map(\.text) == ["мосты", "2026", "mp3s"])
  }

  @Test func camelCasePartsGetTheirOwnStems() {
    #expect(described(stemming, "parseTokens") == ["parsetokens@0..<11", "+~parsetoken@0..<11", "+parse@0..<5", "+~pars@0..<5", "+tokens@5..<11", "+~token@5..<11"])
  }

  @Test func disabledStemmingEmitsNoStemsAndStemmedQueriesStayExact() {
    #expect(described(plain, "connected") == ["connected@0..<9"])
    #expect(described(plain, "connected", .stemmedQuery) == ["connected@0..<9"])
  }
}
