@testable import Assistant
import Foundation
import SearchIndex
import Testing

/// The answer's sentence choice reads ASCII text byte by byte (`FoldedWords`, and the ASCII
/// paths of `ExtractiveAnswer.sentences`, `isProse` and `IntentWords.statesAmount`): each
/// must say what the character-by-character reading says, on random texts made of the bytes
/// those readings tell apart.
@Suite struct ASCIITextPathTests {
  /// Letters of both cases, digits, every ASCII kind of space and line break, sentence ends,
  /// money and punctuation, and now and then a character that is not ASCII (a letter, a
  /// combining accent, a line separator, a digit), which sends its line to the character
  /// reading.
  static let alphabet = Array("aAbZz09 \t\n\r\u{0B}\u{0C}.!?$,;:-'()#").map(String.init)
  static let notASCII = ["é", "\u{301}", "\u{2028}", "٣", "€", "Ä"]

  static func texts(count: Int, seed: UInt64, mixed: Bool = true) -> [String] {
    var generator = SplitMix64(seed: seed)
    return (0..<count).map { _ in
      let length = Int.random(in: 0...90, using: &generator)
      return (0..<length).map { _ -> String in
        if mixed, Int.random(in: 0..<40, using: &generator) == 0 { return notASCII.randomElement(using: &generator)! }
        // Letters and spaces most of the time, so that some texts read as prose.
        return Bool.random(using: &generator) ? ["a", "b", " ", "c", "d"].randomElement(using: &generator)! : alphabet.randomElement(using: &generator)!
      }.joined()
    }
  }

  @Test func foldedWordsAreTheFoldedTextsRunsOfLettersAndDigits() {
    for text in Self.texts(count: 20_000, seed: 1) + ["CamelCase WORDS", "A1b2-C3", ""] {
      let expected = TextFolding.fold(text).split { !$0.isLetter && !$0.isNumber }.map(String.init)
      #expect(FoldedWords.of(text) == expected, "\(text.debugDescription)")
    }
    // Not ASCII: the folded reading itself.
    #expect(FoldedWords.of("Crème BRÛLÉE, naïve") == ["creme", "brulee", "naive"])
  }

  @Test func sentencesAreTheSameByteByByte() {
    for text in Self.texts(count: 20_000, seed: 2) {
      let expected = ExtractiveAnswer.characterSentences(ExtractiveAnswer.unwrapped(text))
      #expect(ExtractiveAnswer.sentences(text) == expected, "\(text.debugDescription)")
    }
  }

  @Test func proseIsTheSameByteByByte() {
    var prose = 0
    for text in Self.texts(count: 20_000, seed: 3, mixed: false) + ["Total: $42,030", "Page 3 of 12 -- 42,030", "1,200 CHF paid"] {
      // `isProse` as it reads characters.
      let hasWord = text.split(whereSeparator: \.isWhitespace).contains { $0.filter(\.isLetter).count >= 2 }
      let amount = IntentWords.statesAmount(text)
      let letters = text.filter { $0.isLetter || $0 == " " || (amount && ($0.isNumber || $0.isCurrencySymbol || ",.".contains($0))) }.count
      let expected = hasWord && letters * 3 >= text.count * 2
      #expect(ExtractiveAnswer.isProse(text) == expected, "\(text.debugDescription)")
      if expected { prose += 1 }
    }
    // Both answers occur: the comparison is not all of one kind.
    #expect(prose > 1_000 && prose < 19_000, "\(prose)")
  }

  @Test func aSumNeedsASignOrADigit() {
    #expect(IntentWords.statesAmount("Our quote: $38,400, fixed price."))
    #expect(IntentWords.statesAmount("It came to 1,200 CHF."))
    #expect(IntentWords.statesAmount("It came to ١٢٠ EUR."))
    #expect(!IntentWords.statesAmount("Prices in CHF are fixed."))
    #expect(!IntentWords.statesAmount("No money was spent."))
  }
}

/// The literal guard before each markup rule of `ExtractiveAnswer.plainText`.
@Suite struct MarkupGuardTests {
  @Test func aNeedleIsFoundWhereItsBytesAre() {
    #expect(ExtractiveAnswer.containsBytes("see [the docs](x)", "]("))
    #expect(ExtractiveAnswer.containsBytes("ends with <!--", "<!--"))
    #expect(ExtractiveAnswer.containsBytes("<", "<"))
    #expect(!ExtractiveAnswer.containsBytes("<!-", "<!--"))
    #expect(!ExtractiveAnswer.containsBytes("] (", "]("))
    #expect(ExtractiveAnswer.containsBytes("Crème & brûlée", "&"))
    #expect(ExtractiveAnswer.containsBytes("anything", ""))
    #expect(!ExtractiveAnswer.containsBytes("", "#"))
    // A canonical equivalent is not the literal: "≮" holds no "<" for the pattern to match.
    #expect(!ExtractiveAnswer.containsBytes("a ≮ b", "<"))
  }

  @Test func markupIsStillRemoved() {
    #expect(ExtractiveAnswer.plainText("A [link](https://x.org) and <b>bold</b> &amp; `code`") == "A link and  bold    code")
  }
}
