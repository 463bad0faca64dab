import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex

/// Hostile sizes and shapes of queries end in a diagnostic that names the limit, never in a
/// stack overflow or a run of minutes: long flat chains of `||` and `&&` bind, plan and run;
/// deep nesting, huge numbers and oversized queries are errors.
@Suite struct QueryLimitTests {
  /// `"w0" || "w1" || ...`: a flat OR of text searches.
  static func wordOr(_ count: Int) -> String {
    (0..<count).map { "\"w\($0)\"" }.joined(separator: " || ")
  }

  /// `title == "w0" || ...`: a flat chain of comparisons.
  static func titleChain(_ count: Int, _ op: String = "||", _ comparison: String = "==") -> String {
    (0..<count).map { "title \(comparison) \"w\($0)\"" }.joined(separator: " \(op) ")
  }

  // MARK: Parser

  @Test func aFlatOrOfTenThousandWordsParsesAsAShallowTree() throws {
    let expression = try Parser.parseExpression(SourceText(Self.wordOr(10_000)))
    let height = Parser.height(of: expression)
    #expect(height <= 15, "a balanced tree of 10,000 operands is 15 levels high, found \(height)")
    #expect(expression.span == SourceSpan(0, Self.wordOr(10_000).utf8.count))
  }

  @Test func shortChainsKeepTheirLeftToRightShape() throws {
    // `a || b || c` is `(a || b) || c`, as before.
    let expression = try Parser.parseExpression(SourceText(#""a" || "b" || "c""#))
    guard case .binary(.or, let lhs, let rhs) = expression.kind, case .binary(.or, _, _) = lhs.kind, case .string(let c) = rhs.kind
    else { Issue.record("unexpected shape: \(expression)"); return }
    #expect(c.text == "c")
  }

  @Test func aLongArithmeticChainIsTooDeepWithTheLimitNamed() {
    let chain = "rating > " + Array(repeating: "1", count: 300).joined(separator: " - ")
    let found = parseDiagnostics(chain)
    #expect(found.first?.id == "parse.too-deep")
    #expect(found.first?.message == "the query is nested too deeply (more than 256 levels)")
  }

  @Test func nestingJustBelowTheLimitParses() {
    let nested = String(repeating: "(", count: 250) + "a == 1" + String(repeating: ")", count: 250)
    #expect(parseDiagnostics(nested).isEmpty)
  }

  @Test func tooManyComparisonsIsAnErrorAtTheFirstOneOverTheLimit() throws {
    #expect(parseDiagnostics(Self.titleChain(1_000)).isEmpty)
    let text = Self.titleChain(1_001)
    let found = parseDiagnostics(text)
    #expect(found.map(\.id) == ["parse.too-many-conditions"])
    #expect(found.first?.message == "the query has more than 1000 comparisons and calls")
    let lastComparison = try #require(text.range(of: "title == \"w1000\""))
    #expect(found.first?.span.start == text.utf8.distance(from: text.startIndex, to: lastComparison.lowerBound))
  }

  @Test func tooManyWordsIsAnError() {
    let words = "\"" + Array(repeating: "quokka", count: 10_001).joined(separator: " ") + "\""
    let found = parseDiagnostics(words)
    #expect(found.map(\.id) == ["parse.too-many-words"])
    #expect(found.first?.message == "the query's strings have more than 10000 words")
  }

  @Test func wordsAreCountedAsWhitespaceSeparatesThem() {
    let words = "\"" + Array(repeating: "quokka", count: 10_000).joined(separator: "\u{3000}\t") + "\""
    #expect(parseDiagnostics(words).isEmpty)
    for text in ["", " ", "one", " two  words ", "tab\tnew\nline\r\nend", "ideographic\u{3000}space", "nbsp\u{A0}too", "zürich\u{2003}café", "\u{85}x"] {
      #expect(Parser.wordCount(text) == text.split(whereSeparator: \.isWhitespace).count, "\(text.debugDescription)")
    }
  }

  @Test func tooManyStatementsIsAnError() {
    let statements = (0..<257).map { "s\($0) = search \"w\($0)\"" }.joined(separator: "; ")
    let found = parseDiagnostics(statements)
    #expect(found.map(\.id) == ["parse.too-many-statements"])
    #expect(found.first?.message == "the query has more than 256 statements")
    #expect(parseDiagnostics((0..<256).map { "s\($0) = search \"w\($0)\"" }.joined(separator: "; ")).isEmpty)
  }

  @Test func anOversizedQueryIsRefusedBeforeItIsRead() {
    let text = "\"" + String(repeating: "a", count: Parser.maximumLength) + "\""
    let found = parseDiagnostics(text)
    #expect(found.map(\.id) == ["parse.too-long"])
    #expect(found.first?.message == "the query is longer than 1048576 bytes (1048578)")
  }

  @Test(arguments: ["rating > 1e999999", "rating > -1e400", "rating < 1" + String(repeating: "0", count: 400)])
  func aNumberBeyondADoubleIsAnError(_ text: String) throws {
    let found = parseDiagnostics(text)
    #expect(found.map(\.id) == ["lex.number-too-large"])
    let number = try #require(text.firstIndex(where: { $0 == "1" }))
    #expect(found.first?.span.start == text.utf8.distance(from: text.startIndex, to: number))
    #expect(found.first?.message.hasPrefix("the number '1") == true)
  }

  @Test func aDurationBeyondADoubleIsAnError() {
    #expect(parseDiagnostics("dueDate > $time.now(1e308w)").map(\.id).contains("lex.number-too-large"))
    #expect(parseDiagnostics("rating > 1e308").isEmpty)
  }

  // MARK: Binder

  @Test func aFlatOrOfTenThousandWordsBindsToOneOr() throws {
    guard case .or(let parts) = try bound(Self.wordOr(10_000)) else {
      Issue.record("not an OR")
      return
    }
    #expect(parts.count == 10_000)
    guard case .textSearch(let last) = parts.last else { Issue.record("not a text search"); return }
    #expect(last.terms.map(\.text) == ["w9999"])
  }

  @Test func aChainBindsFlatWhateverItsShape() throws {
    // The same operator nested by parentheses joins the one list; the other does not.
    guard case .and(let parts) = try bound(#"(rating > 1 && (rating > 2 && rating > 3)) && rating < 5"#) else {
      Issue.record("not an AND")
      return
    }
    #expect(parts.count == 4)
    guard case .or(let alternatives) = try bound(#"rating > 1 || (rating > 2 && rating > 3) || rating < 5"#) else {
      Issue.record("not an OR")
      return
    }
    #expect(alternatives.count == 3)
  }

  // MARK: Planning and evaluation

  @Test func aThousandComparisonsRunInSQLite() throws {
    // Joined flat, SQLite refuses more than 1,000 levels ("Expression tree is too large").
    let query = Self.titleChain(999) + " || title == \"Mist Trail\""
    #expect(try ids(query) == ["trail-1"])
    let conjunction = Self.titleChain(999, "&&", "!=") + " && title == \"Mist Trail\""
    #expect(try ids(conjunction) == ["trail-1"])
  }

  @Test func aFlatOrOfTenThousandWordsRuns() throws {
    let query = Self.wordOr(9_999) + " || \"granite\""
    let found = try idSet(query)
    #expect(found == (try idSet(#""granite""#)))
    #expect(!found.isEmpty)
  }
}
