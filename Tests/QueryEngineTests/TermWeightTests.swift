import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex

/// Term weights (`"word"^2`): written after a text search, carried to `TextSearch.weights`,
/// refused wherever they would mean nothing. The ranked index applies them (RankedQueryTests).
@Suite struct TermWeightTests {
  @Test func theLexerReadsAWeightAfterTheModifiers() throws {
    let (tokens, diagnostics) = Lexer.tokenize(SourceText(#""wing"s^0.25 "tail"^3"#))
    #expect(diagnostics.isEmpty)
    guard case .string(let first) = tokens[0].kind, case .string(let second) = tokens[1].kind else {
      Issue.record("expected two strings, got \(tokens.map(\.kind))")
      return
    }
    #expect(first.modifiers == "s" && first.boost == 0.25)
    #expect(second.modifiers == "" && second.boost == 3)
    #expect(tokens[0].span == SourceSpan(0, 12), "the weight belongs to the string's token")
  }

  @Test func weightsReachTheTextSearchForEveryWord() throws {
    guard case .textSearch(let search) = try bound(#""glacier lake"^0.5"#) else {
      Issue.record("not a text search")
      return
    }
    #expect(search.weights == [0.5, 0.5])
    guard case .textSearch(let plain) = try bound(#""glacier""#) else { return }
    #expect(plain.weights == nil, "no weight written, none stored: every term weighs 1")
  }

  @Test func aWeightOutsideATextSearchIsAnError() throws {
    expectDiagnostic(#"title == "x"^2"#, DiagnosticSpec(
      id: "text.misplaced-boost", message: "a weight (^) applies to text searches, not to a comparison", column: 13,
      help: "remove the ^ and its number"))
    expectDiagnostic(#""x"^0"#, DiagnosticSpec(
      id: "text.boost-zero", message: "a text search's weight must be greater than 0", column: 4,
      help: "leave the term out, or give it a small weight such as ^0.1"))
    #expect(parseDiagnostics(#""x"^ || "y""#).map(\.id) == ["lex.boost"])
    #expect(parseDiagnostics(#"search * | count as "n"^2"#).map(\.id) == ["parse.misplaced-boost"])
    #expect(parseDiagnostics(#"search similar "stars"^2"#).map(\.id) == ["parse.misplaced-boost"])
  }
}
