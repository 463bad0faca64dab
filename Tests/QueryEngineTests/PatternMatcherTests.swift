import SearchlightTestSupport
import Testing
@testable import QueryEngine

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
