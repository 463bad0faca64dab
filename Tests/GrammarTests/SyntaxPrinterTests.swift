import Foundation
import QueryEngine
import Testing

private typealias Expression = QueryEngine.Expression

private let nowhere = SourceSpan(0, 0)
private func name(_ text: String) -> Expression { Expression(.identifier(text), nowhere) }
private func number(_ value: Double) -> Expression { Expression(.number(value), nowhere) }
private func query(_ predicate: Expression, _ stages: [StageSyntax] = []) -> QuerySyntax {
  let pipeline = PipelineSyntax(source: .search(predicate, keywordSpan: nowhere), stages: stages, span: nowhere)
  return QuerySyntax(statements: [StatementSyntax(name: nil, nameSpan: nil, isLet: false, pipeline: pipeline, span: nowhere)], span: nowhere)
}

/// `SyntaxPrinter.text` writes a parsed query as text that parses back to the same tree (up
/// to spans): every ok example of the grammar, and the shapes only a tree built without text
/// can have.
@Suite struct SyntaxPrinterTests {
  static let examples = GrammarExamplesTests.cases.filter { $0.errorID == nil }

  static func roundTrip(_ query: QuerySyntax) throws -> QuerySyntax {
    try Parser.parse(SourceText(SyntaxPrinter.text(query)))
  }

  @Test func thereAreExamples() { #expect(Self.examples.count >= 50) }

  @Test(arguments: examples)
  func anExamplePrintsAsTextThatParsesBackToItsTree(_ example: GrammarExamplesTests.Case) throws {
    let parsed = try Parser.parse(SourceText(example.query))
    let printed = SyntaxPrinter.text(parsed)
    #expect(try Self.roundTrip(parsed).structure == parsed.structure, "\(example.query)\nprinted: \(printed)")
  }

  @Test func parenthesesOnlyWherePrecedenceNeedsThem() throws {
    let a = Expression(.comparison(.greater, name("rating"), number(3), bracketModifiers: nil), nowhere)
    let b = Expression(.comparison(.less, name("distance"), number(5), bracketModifiers: nil), nowhere)
    let c = Expression(.comparison(.equal, name("city"), Expression(.string(StringLiteral(text: "Bern", form: .singleQuoted)), nowhere), bracketModifiers: nil), nowhere)
    let or = Expression(.binary(.or, a, b), nowhere)
    let tree = query(Expression(.binary(.and, or, c), nowhere))
    #expect(SyntaxPrinter.text(tree) == "search (rating > 3 || distance < 5) && city == 'Bern'")
    #expect(try Self.roundTrip(tree).structure == tree.structure)
    // (a - b) - c needs none; a - (b - c) keeps its parentheses.
    let left = Expression(.binary(.subtract, Expression(.binary(.subtract, number(1), number(2)), nowhere), number(3)), nowhere)
    let right = Expression(.binary(.subtract, number(1), Expression(.binary(.subtract, number(2), number(3)), nowhere)), nowhere)
    let score = { (e: Expression) in query(name("x"), [StageSyntax(name: "score", nameSpan: nowhere, arguments: .clauses([[e]]), span: nowhere)]) }
    #expect(SyntaxPrinter.text(score(left)) == "search x | score 1 - 2 - 3")
    #expect(SyntaxPrinter.text(score(right)) == "search x | score 1 - (2 - 3)")
    #expect(try Self.roundTrip(score(right)).structure == score(right).structure)
  }

  @Test func aRunOfOrKeepsAShapeTheParserWouldNotGive() throws {
    // The parser balances a || b || c as (a || b) || c; a || (b || c) must keep its parentheses.
    let words = ["a", "b", "c"].map { Expression(.string(StringLiteral(text: $0, form: .doubleQuoted)), nowhere) }
    let balanced = query(Expression(.binary(.or, Expression(.binary(.or, words[0], words[1]), nowhere), words[2]), nowhere))
    let rightLeaning = query(Expression(.binary(.or, words[0], Expression(.binary(.or, words[1], words[2]), nowhere)), nowhere))
    #expect(SyntaxPrinter.text(balanced) == #"search "a" || "b" || "c""#)
    #expect(SyntaxPrinter.text(rightLeaning) == #"search "a" || ("b" || "c")"#)
    #expect(try Self.roundTrip(rightLeaning).structure == rightLeaning.structure)
  }

  @Test func stringsKeepTheirEscapesModifiersAndWeights() throws {
    let literal = StringLiteral(text: "a*b \"q\" \\ *", form: .doubleQuoted, escapedWildcards: [1], modifiers: "cd", modifierSpan: nowhere,
                                boost: 0.25, boostSpan: nowhere)
    let tree = query(Expression(.comparison(.equal, name("title"), Expression(.string(literal), nowhere), bracketModifiers: nil), nowhere))
    #expect(SyntaxPrinter.text(tree) == #"search title == "a\*b \"q\" \\ *"cd^0.25"#)
    #expect(try Self.roundTrip(tree).structure == tree.structure)
    // A weight is written without an exponent, which `^` would not read.
    let light = query(Expression(.string(StringLiteral(text: "rare", form: .doubleQuoted, boost: 0.00001, boostSpan: nowhere)), nowhere))
    #expect(SyntaxPrinter.text(light) == #"search "rare"^0.00001"#)
    #expect(try Self.roundTrip(light).structure == light.structure)
  }
}
