import SearchlightTestSupport
import Testing
@testable import QueryEngine

@Suite struct LexerTests {
  func kinds(_ text: String) -> [Token.Kind] {
    Lexer.tokenize(SourceText(text)).tokens.map(\.kind)
  }

  func diagnostics(_ text: String) -> [Diagnostic] {
    Lexer.tokenize(SourceText(text)).diagnostics
  }

  func string(_ text: String) -> StringToken? {
    for kind in kinds(text) { if case .string(let s) = kind { return s } }
    return nil
  }

  @Test(arguments: [
    ("==", Token.Operator.equal), ("=", .singleEqual), ("!=", .notEqual), ("<", .less), (">", .greater),
    ("<=", .lessEqual), (">=", .greaterEqual), ("&&", .and), ("||", .or), ("!", .not),
  ])
  func operatorsLexAsOneToken(text: String, op: Token.Operator) {
    #expect(kinds("a \(text) b") == [.identifier("a"), .operator(op), .identifier("b"), .endOfInput])
  }

  @Test func punctuationAndStars() {
    #expect(kinds("( ) , ; : . ? * ** |") == [
      .leftParen, .rightParen, .comma, .semicolon, .colon, .dot, .question, .star, .starStar, .pipe, .endOfInput,
    ])
  }

  @Test func doubleAndSingleQuotesAreDifferentForms() {
    #expect(string(#""june*""#)?.quote == .double)
    #expect(string("'june*'")?.quote == .single)
    #expect(string("'june*'")?.text == "june*")
  }

  @Test func modifiersAfterTheClosingQuoteAreKeptWithTheirSpan() throws {
    let s = try #require(string(#"title == "x"cdw"#))
    #expect(s.text == "x")
    #expect(s.modifiers == "cdw")
    #expect(s.modifierSpan == SourceSpan(12, 15))
  }

  @Test func modifiersAreNotTakenAcrossWhitespace() {
    #expect(kinds(#""x" cd"#) == [
      .string(StringToken(text: "x", escapedWildcards: [], quote: .double, modifiers: "", modifierSpan: nil)),
      .identifier("cd"), .endOfInput,
    ])
  }

  @Test(arguments: [
    (#""a\"b""#, "a\"b"), (#""a\\b""#, "a\\b"), (#""a\nb""#, "a\nb"), (#""a\tb""#, "a\tb"), (#""a\rb""#, "a\rb"),
    (#"'it\'s'"#, "it's"), (#""caf\u00e9""#, "café"), (#""\q""#, "q"),
  ])
  func escapes(text: String, expected: String) {
    #expect(string(text)?.text == expected)
    #expect(diagnostics(text).isEmpty)
  }

  @Test func escapedWildcardsAreRecordedByCharacterOffset() throws {
    let s = try #require(string(#""é\*x\?*""#))
    #expect(s.text == "é*x?*")
    #expect(s.escapedWildcards == [1, 3])
  }

  @Test func anInvalidUnicodeEscapeIsReported() {
    let found = diagnostics(#""\u12""#)
    #expect(found.map(\.id) == ["lex.invalid-escape"])
  }

  @Test(arguments: [("30d", 2_592_000.0), ("2h", 7200), ("15m", 900), ("15min", 900), ("45s", 45), ("1w", 604_800), ("1.5d", 129_600)])
  func durationsAreSeconds(text: String, seconds: Double) {
    #expect(kinds(text) == [.duration(seconds), .endOfInput])
  }

  @Test func numbers() {
    #expect(kinds("3 4.5 .5 1e3 2E-2") == [.number(3), .number(4.5), .number(0.5), .number(1000), .number(0.02), .endOfInput])
  }

  @Test func aNumberFollowedByANonUnitWordStaysANumber() {
    // 2026-05-01T08 is a bare value: the parser joins the adjacent tokens.
    #expect(kinds("01T08") == [.number(1), .identifier("T08"), .endOfInput])
  }

  @Test func timeFunctionsVariablesAndISO() {
    #expect(kinds("$time.today(-7)") == [.time("today"), .leftParen, .operator(.minus), .number(7), .rightParen, .endOfInput])
    #expect(kinds("$time.iso(2026-10-01T00:00:00Z)") == [.timeISO("2026-10-01T00:00:00Z"), .endOfInput])
    #expect(kinds(#"$time.iso("2026-10-01")"#) == [.timeISO("2026-10-01"), .endOfInput])
    #expect(kinds("$maxState") == [.variable("maxState"), .endOfInput])
  }

  @Test func bracketModifiersOnlyDirectlyAfterAComparison() {
    #expect(kinds(#"title ==[cd] "x""#).contains(.bracketModifiers("cd")))
    #expect(kinds(#"title == [cd] "x""#).contains(.bracketModifiers("cd")))
    #expect(!kinds("[cd]").contains(.bracketModifiers("cd")))
  }

  @Test func maxByAndMinByAreOneWord() {
    #expect(kinds("max-by count min-by rating max - by") == [
      .identifier("max-by"), .identifier("count"), .identifier("min-by"), .identifier("rating"),
      .identifier("max"), .operator(.minus), .identifier("by"), .endOfInput,
    ])
  }

  @Test func commentsRunToTheEndOfTheLine() {
    #expect(kinds("a # == b\n|| c") == [.identifier("a"), .operator(.or), .identifier("c"), .endOfInput])
  }

  @Test func tokensRecordPrecedingWhitespace() {
    let tokens = Lexer.tokenize(SourceText("june* x")).tokens
    #expect(tokens.map(\.precededBySpace) == [true, false, true, false])
  }

  @Test func nonASCIILettersStartNames() {
    #expect(kinds("€uro == 1").first == .identifier("€uro"))
  }

  @Test func spansAreUTF8ByteOffsets() {
    let tokens = Lexer.tokenize(SourceText(#"é == "ü""#)).tokens
    #expect(tokens.map(\.span) == [SourceSpan(0, 2), SourceSpan(3, 5), SourceSpan(6, 10), SourceSpan(10, 10)])
  }

  // MARK: Diagnostics

  @Test func aSingleAmpersandIsReportedAndReadAsAnd() {
    let result = Lexer.tokenize(SourceText("a & b"))
    #expect(result.tokens.map(\.kind) == [.identifier("a"), .operator(.and), .identifier("b"), .endOfInput])
    #expect(result.diagnostics.map(\.id) == ["lex.single-ampersand"])
    #expect(result.diagnostics.first?.help == "use '&&' for AND")
  }

  @Test(arguments: ["@", "~", "^", "`", "{", "\\"])
  func strayCharactersAreReportedAndSkipped(character: String) throws {
    let result = Lexer.tokenize(SourceText("a \(character) b"))
    #expect(result.tokens.map(\.kind) == [.identifier("a"), .identifier("b"), .endOfInput])
    let diagnostic = try #require(result.diagnostics.first)
    #expect(diagnostic.id == "lex.unexpected-character")
    #expect(diagnostic.message == "unexpected character '\(character)'")
    #expect(diagnostic.span == SourceSpan(2, 2 + character.utf8.count))
  }

  @Test func anUnterminatedStringCoversTheRestAndSuggestsTheQuote() throws {
    let diagnostic = try #require(diagnostics(#"title == "june"#).first)
    #expect(diagnostic.id == "lex.unterminated-string")
    #expect(diagnostic.span == SourceSpan(9, 14))
    #expect(diagnostic.help == #"add a closing ""#)
    #expect(diagnostic.fixIts == [Diagnostic.FixIt(span: SourceSpan(14, 14), replacement: "\"")])
    #expect(try #require(diagnostics("'june").first).help == "add a closing '")
  }

  @Test func aTrailingBackslashDoesNotEscapeTheEnd() {
    #expect(diagnostics(#""abc\"#).map(\.id) == ["lex.unterminated-string"])
  }

  @Test(arguments: [
    ("$", "lex.empty-variable"), ("$time", "lex.time-function-missing"), ("$time.iso(2026-10-01", "lex.unterminated-iso"),
    ("title ==[cd \"x\"", "lex.unterminated-modifiers"),
  ])
  func dollarAndModifierMistakes(text: String, id: String) {
    #expect(diagnostics(text).first?.id == id)
  }
}
