import SearchlightTestSupport
import Testing
@testable import QueryEngine
import SearchIndex

@Suite struct PatternMatcherTests {
  func matcher(_ text: String, _ modifiers: String = "", form: StringLiteral.Form = .doubleQuoted) throws -> PatternMatcher {
    try PatternMatcher(MatchPattern(literal: StringLiteral(text: text, form: form), modifiers: Set(modifiers)))
  }

  func matches(_ pattern: String, _ modifiers: String, _ value: String) throws -> Bool {
    try matcher(pattern, modifiers).matches(value)
  }

  func matches(_ pattern: String, _ value: String) throws -> Bool {
    try matcher(pattern).matches(value)
  }

  func matches(_ pattern: String, form: StringLiteral.Form, _ value: String) throws -> Bool {
    try matcher(pattern, form: form).matches(value)
  }

  // MARK: Work limits

  @Test func aPathologicalWildcardStopsAtPCRE2sMatchLimit() throws {
    // The REPL's Ctrl-C test runs this pattern over 3,000 such titles: each match is cut off
    // by the match limit (so it is a no-match, not a hang), and it is the limit, not the
    // machine's speed, that bounds the work of each item.
    let regex = try Regex("^(?:.*a.*a.*a.*a.*a.*a.*a.*c)$", caseless: false)
    let title = "c" + String(repeating: "a", count: 200) + "c17"
    let result = regex.matches(title)
    #expect(result == (matched: false, limitExceeded: true))
    // A title that can match does, well inside the limit.
    #expect(regex.matches("aaaaaaac") == (matched: true, limitExceeded: false))
    #expect(try !matches("*a*a*a*a*a*a*a*c", title))
  }

  /// Literals between `*` are found one after the other: one regex with `.*` between them
  /// backtracked once per character, and a document of a few hundred kilobytes ran into the
  /// match limit and read as no match (`*Format:*` missed Debian's 2 MB copyright files).
  @Test func wildcardsAroundLiteralsMatchALongDocument() throws {
    let value = "Format: https://www.debian.org/doc/\nUpstream-Name: Boost\n"
      + String(repeating: "Files: *.o\n", count: 100_000) + "License: BSL-1.0\n"
    #expect(value.utf8.count > 1_000_000)
    #expect(try matches("*Format:*", value))
    #expect(try matches("*format:*", "c", value))
    #expect(try matches("*Upstream-Name*BSL*", value))
    #expect(try matches("Format:*BSL-1.0", value))
    #expect(try matches("*BSL-1.0", value), "the end is before a final newline, as `$` has it")
    #expect(try matches("*débian*", "d", value))
    #expect(try !matches("*Upstream-Name*Format:*", value))
    #expect(try !matches("*nowhere*", value))
    #expect(try !matches("Upstream*", value))
  }

  /// The glob form answers as the one regex did, wherever that regex stays inside its limits:
  /// random patterns of literals and `*` over random values, with every modifier set.
  @Test func literalsBetweenWildcardsMatchAsOneRegexDid() throws {
    var generator = SplitMix64(seed: 27)
    let alphabet = Array("aAbBkK\u{212A}éE\u{301}. \n")
    func text(_ count: Int) -> String {
      String((0..<count).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }
    for _ in 0..<4_000 {
      var patternText = ""
      for _ in 0..<(1 + Int(generator.next() % 4)) {
        patternText += generator.next() % 2 == 0 ? "*" : text(1 + Int(generator.next() % 3))
      }
      if !patternText.contains("*") { patternText = "*" + patternText }
      for modifiers in ["", "c", "d", "cd"] {
        let pattern = MatchPattern(literal: StringLiteral(text: patternText, form: .doubleQuoted), modifiers: Set(modifiers))
        // A literal then `*` is a prefix, compared as Swift strings (canonical equivalence).
        if pattern.pieces.count == 2, case .literal = pattern.pieces[0] { continue }
        var regex = "^(?:"
        for piece in pattern.pieces {
          switch piece {
          case .literal(let literal): regex += Regex.escape(pattern.diacriticInsensitive ? TextFolding.stripDiacritics(literal) : literal)
          case .anyRun: regex += ".*"
          case .anyCharacter: regex += "."
          }
        }
        let oneRegex = try Regex(regex + ")$", caseless: pattern.caseInsensitive)
        let matcher = try PatternMatcher(pattern)
        for _ in 0..<5 {
          let value = text(Int(generator.next() % 12))
          let expected = oneRegex.matches(pattern.diacriticInsensitive ? TextFolding.stripDiacritics(value) : value)
          #expect(!expected.limitExceeded)
          #expect(matcher.matches(value) == expected.matched, "\(patternText) \(modifiers) \(value.debugDescription)")
        }
      }
    }
  }

  // MARK: Words

  @Test func aCaseChangeIsAWordBoundary() throws {
    #expect(try matches("Window", "w", "MyWindowClass"))
    #expect(try matches("Window", "w", "Broken Window"))
    #expect(try matches("Window", "w", "Window restoration bug"))
    #expect(try !matches("Window", "w", "NSWindow"))
    #expect(try !matches("Window", "w", "Windows"))
  }

  @Test func wordsAreCaseSensitiveWithoutC() throws {
    #expect(try !matches("window", "w", "MyWindowClass"))
    #expect(try !matches("window", "w", "Broken Window"))
    #expect(try matches("window", "w", "garage window measurements"))
    #expect(try matches("window", "cw", "MyWindowClass"))
    #expect(try matches("WINDOW", "cw", "Broken Window"))
    #expect(try !matches("window", "cw", "NSWindow"))
  }

  @Test func tokensDoNotSplitAtCaseChanges() throws {
    #expect(try !matches("Window", "t", "MyWindowClass"))
    #expect(try matches("Window", "t", "Broken Window"))
    #expect(try matches("MyWindowClass", "t", "Refactor MyWindowClass now"))
  }

  @Test func aPatternOfSeveralWordsMatchesConsecutiveWords() throws {
    #expect(try matches("broken window", "cw", "Broken Window repair"))
    #expect(try !matches("window broken", "cw", "Broken Window repair"))
    #expect(try !matches("broken repair", "cw", "Broken Window repair"))
    #expect(try matches("Window Class", "w", "MyWindowClass"))
  }

  @Test func wildcardsInsideWords() throws {
    #expect(try matches("Win*", "w", "MyWindowClass"))
    #expect(try matches("W?ndow", "w", "Broken Window"))
    #expect(try !matches("Win*", "w", "NSWindow"))
    #expect(try matches("*window", "cw", "NSWindow frames"))
  }

  @Test func wordsIgnoreDiacriticsWithD() throws {
    #expect(try matches("zurich", "cdw", "Weekend in Zürich"))
    #expect(try !matches("zurich", "cw", "Weekend in Zürich"))
  }

  @Test func splittingValuesIntoWords() {
    #expect(PatternMatcher.words(of: "MyWindowClass, NSWindow: restoreState()", splitCamelCase: true)
      == ["My", "Window", "Class", "NSWindow", "restore", "State"])
    #expect(PatternMatcher.words(of: "MyWindowClass, NSWindow", splitCamelCase: false) == ["MyWindowClass", "NSWindow"])
    #expect(PatternMatcher.words(of: "", splitCamelCase: true) == [])
  }

  /// ASCII characters are classified without Unicode's tables: the words are those the
  /// `Character` properties give, on text that mixes ASCII with letters, marks, digits and
  /// separators from elsewhere.
  @Test func splittingASCIIWithoutPropertyTablesGivesTheSameWords() {
    func reference(_ value: String, _ camel: Bool) -> [String] {
      var words: [String] = []
      var current = ""
      var previousWasLower = false
      for character in value {
        if character.isLetter || character.isNumber {
          if camel, previousWasLower, character.isUppercase, !current.isEmpty { words.append(current); current = "" }
          current.append(character)
          previousWasLower = character.isLowercase
        } else {
          if !current.isEmpty { words.append(current); current = "" }
          previousWasLower = false
        }
      }
      if !current.isEmpty { words.append(current) }
      return words
    }
    let alphabet: [String] = ["a", "Z", "q", "M", "7", "0", " ", "-", "_", "'", ".", "\r\n", "\r", "\n", "\t", "é", "É", "e\u{301}", "\u{301}", "\u{200D}", "ß", "Ω", "ω", "٣", "漢", "🙂", "\u{212A}"]
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<2_000 {
      let value = (0..<Int.random(in: 0...24, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }.joined()
      for camel in [false, true] {
        #expect(PatternMatcher.words(of: value, splitCamelCase: camel) == reference(value, camel), "\(value.debugDescription) \(camel)")
      }
    }
  }

  /// Words stream past a window and ASCII words are compared by their bytes: the answers are
  /// those of splitting the value into words and comparing each prepared word as a `String`,
  /// on values where folding and canonical equivalence are hard (the Kelvin sign, decomposed
  /// accents, a sharp s, camel case, digits).
  @Test func streamedWordsMatchAsSplitWordsDo() throws {
    let alphabet: [String] = ["a", "b", "K", "k", "\u{212A}", "e", "E", "é", "e\u{301}", "\u{301}", "ß", "s", "S", "1", " ", "-", "Ab", "aB"]
    let patterns = ["k", "ke", "é", "e", "ab", "a*", "k*", "e* ab", "ab 1", "b a", "ss", "ß", "\u{212A}e", "1*"]
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<600 {
      let value = (0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }.joined()
      for text in patterns {
        for modifiers in ["w", "cw", "dw", "cdw", "t", "ct"] {
          let pattern = MatchPattern(literal: StringLiteral(text: text, form: .doubleQuoted), modifiers: Set(modifiers))
          let words = PatternMatcher.words(of: value, splitCamelCase: pattern.wordBased).map { PatternMatcher.prepare($0, pattern) }
          let wanted = PatternMatcher.splitIntoWords(pattern.pieces).map { pieces -> (String, Bool) in
            guard case .literal(let literal) = pieces[0] else { return ("", true) }
            return (PatternMatcher.prepare(literal, pattern), pieces.count == 2)
          }
          var expected = false
          if words.count >= wanted.count {
            for start in 0...(words.count - wanted.count) where wanted.enumerated().allSatisfy({ offset, word in
              word.1 ? words[start + offset].hasPrefix(word.0) : words[start + offset] == word.0
            }) {
              expected = true
            }
          }
          #expect(try PatternMatcher(pattern).matches(value) == expected, "\(text.debugDescription) \(modifiers) on \(value.debugDescription)")
        }
      }
    }
  }

  // MARK: Whole values

  @Test func withoutWOrTTheWholeValueMustMatch() throws {
    #expect(try matches("june", "june"))
    #expect(try !matches("june", "june launch"))
    #expect(try !matches("june", "June"))
    #expect(try matches("june", "c", "JUNE"))
  }

  @Test func starAndQuestionMark() throws {
    #expect(try matches("june*", "june launch"))
    #expect(try matches("june*", "june"))
    #expect(try !matches("june*", "a june launch"))
    #expect(try matches("*launch", "june launch"))
    #expect(try matches("*un*", "june"))
    #expect(try matches("j?ne", "june"))
    #expect(try !matches("j?ne", "jne"))
    #expect(try !matches("j?ne", "juune"))
    #expect(try matches("*", "anything at all"))
    #expect(try matches("*", ""))
    #expect(try matches("?", "ü"))
  }

  @Test func literalWildcardsInSingleQuotes() throws {
    #expect(try matches("june*", form: .singleQuoted, "june*"))
    #expect(try !matches("june*", form: .singleQuoted, "june launch"))
    #expect(try matches("j?ne", form: .singleQuoted, "j?ne"))
    #expect(try !matches("j?ne", form: .singleQuoted, "june"))
  }

  @Test func caseAndDiacritics() throws {
    #expect(try !matches("cafe", "Café"))
    #expect(try matches("Cafe", "d", "Café"))
    #expect(try !matches("cafe", "d", "Café"))
    #expect(try !matches("cafe", "c", "Café"))
    #expect(try matches("CAFE", "cd", "Café"))
    #expect(try !matches("CAFE", "d", "Café"))
    #expect(try matches("café*", "cd", "CAFE MULLER"))
    #expect(try matches("*MÜLLER", "c", "Café Müller"))
    #expect(try matches("*muller", "cd", "Café Müller"))
    #expect(try !matches("*muller", "c", "Café Müller"))
    #expect(try matches("z?rich", "d", "zürich"))
  }

  @Test func regexMetacharactersAreLiteral() throws {
    #expect(try !matches("a.b*", "axb"))
    #expect(try matches("a.b*", "a.b c"))
    #expect(try matches("*(x)[y]{2}+^$|\\", "1(x)[y]{2}+^$|\\"))
    #expect(try !matches("*(x)", "1x"))
    #expect(try matches("*\nline", "first\nline"))
  }

  @Test func theEmptyPatternMatchesOnlyTheEmptyValue() throws {
    #expect(try matches("", ""))
    #expect(try !matches("", "x"))
  }

  @Test func pathologicalPatternsEndWithoutAMatch() throws {
    let value = String(repeating: "a", count: 5000)
    #expect(try !matches(String(repeating: "*a", count: 30) + "*b", value))
    #expect(try !matches(String(repeating: "?", count: 40) + "*b", "c", value))
  }

  @Test func anyElementOfAListMayMatch() throws {
    let m = try matcher("water*", "c")
    #expect(m.matchesAny(["views", "Waterfall"]))
    #expect(!m.matchesAny(["views", "loop"]))
    #expect(!m.matchesAny([]))
  }
}
