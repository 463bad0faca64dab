import Foundation
import QueryEngine

/// The query language's expression (Foundation has an `Expression` too).
typealias Expression = QueryEngine.Expression

/// Building the planner's queries as parsed trees (the nodes the parser gives for the same
/// text), with synthetic spans: a plan is a `QuerySyntax` value, and its text
/// (`SyntaxPrinter.text`) is only for display. Values are spelt as `DSLText` writes them, so
/// the printed text is what the planner has always shown.
enum PlanSyntax {
  /// Where every node of a plan is: nowhere in particular (the plan has no text of its own).
  static let nowhere = SourceSpan(0, 0)

  static func name(_ name: String) -> Expression { Expression(.identifier(name), nowhere) }

  /// A number as the language writes it (`DSLText.number`): `-3` is the negation of 3, as
  /// the parser reads it.
  static func number(_ value: Double) -> Expression {
    let written = Double(DSLText.number(value)) ?? value
    guard written < 0 else { return Expression(.number(written), nowhere) }
    return Expression(.unary(.negate, Expression(.number(-written), nowhere)), nowhere)
  }

  /// A double-quoted string taken literally (`DSLText.quoted`): its wildcards escaped,
  /// line breaks and tabs as spaces.
  static func quoted(_ text: String, modifiers: String = "", boost: Double? = nil) -> Expression {
    let text = DSLText.flattened(text)
    let wildcards = Set(text.unicodeScalars.enumerated().filter { $0.element == "*" || $0.element == "?" }.map(\.offset))
    let literal = StringLiteral(
      text: text, form: .doubleQuoted, escapedWildcards: wildcards, modifiers: modifiers, modifierSpan: modifiers.isEmpty ? nil : nowhere,
      boost: boost, boostSpan: boost.map { _ in nowhere })
    return Expression(.string(literal), nowhere)
  }

  /// `"*"`: any value (`attr == "*"` holds when the attribute is present, `!=` when absent).
  static var anyValue: Expression {
    Expression(.string(StringLiteral(text: "*", form: .doubleQuoted, escapedWildcards: [], modifiers: "", modifierSpan: nil, boost: nil, boostSpan: nil)), nowhere)
  }

  /// `"prefix*"`: `prefix` taken literally, then a wildcard.
  static func prefixPattern(_ prefix: String, modifiers: String = "") -> Expression {
    wildcards(around: prefix, before: false, modifiers: modifiers)
  }

  /// `"*text*"`: `text` taken literally, anywhere in the value.
  static func containsPattern(_ text: String, modifiers: String = "") -> Expression {
    wildcards(around: text, before: true, modifiers: modifiers)
  }

  private static func wildcards(around text: String, before: Bool, modifiers: String) -> Expression {
    guard case .string(var literal) = quoted(text, modifiers: modifiers).kind else { return quoted(text, modifiers: modifiers) }
    if before {
      // The escaped wildcards are counted in scalars of the text: one more before them now.
      literal.escapedWildcards = Set(literal.escapedWildcards.map { $0 + 1 })
      literal.text = "*" + literal.text
    }
    literal.text += "*"
    return Expression(.string(literal), nowhere)
  }

  /// A single-quoted text (`DSLText.singleQuoted`): a phrase when it stands alone.
  static func singleQuoted(_ text: String) -> Expression {
    Expression(.string(StringLiteral(text: DSLText.flattened(text), form: .singleQuoted)), nowhere)
  }

  /// `$time.function` with an offset in its own unit (none when 0).
  static func time(_ function: String, offset: Int = 0) -> Expression {
    Expression(.time(TimeLiteral(function: function, functionSpan: nowhere, offset: offset != 0 ? Double(offset) : nil)), nowhere)
  }

  /// `$time.iso(...)` for `date` (`DSLText.iso`).
  static func iso(_ date: Date, clock: QueryClock) -> Expression {
    Expression(.time(TimeLiteral(function: "iso", functionSpan: nowhere, iso: DSLText.dateText(date, clock: clock, utcInstant: true))), nowhere)
  }

  static func compare(_ attribute: String, _ op: ComparisonOperator, _ value: Expression) -> Expression {
    Expression(.comparison(op, name(attribute), value, bracketModifiers: nil), nowhere)
  }

  static func call(_ function: String, _ arguments: [Expression]) -> Expression {
    Expression(.call(name: function, nameSpan: nowhere, arguments: arguments.map { Argument(value: $0) }), nowhere)
  }

  /// `a && b && ...` (`a` alone), balanced as the parser balances a run of `&&`.
  static func and(_ operands: [Expression]) -> Expression { Parser.balanced(.and, operands[...]) }

  /// `a || b || ...` (`a` alone), balanced as the parser balances a run of `||`.
  static func or(_ operands: [Expression]) -> Expression { Parser.balanced(.or, operands[...]) }

  static func binary(_ op: BinaryOperator, _ lhs: Expression, _ rhs: Expression) -> Expression {
    Expression(.binary(op, lhs, rhs), nowhere)
  }

  /// A stage of clauses: `top 10`, `sort rating desc`, `group by keywords`, `count as "2026"`.
  static func stage(_ name: String, _ clauses: [[Expression]] = [], label: String? = nil) -> StageSyntax {
    StageSyntax(name: name, nameSpan: nowhere, arguments: .clauses(clauses), label: label, labelSpan: label.map { _ in nowhere }, span: nowhere)
  }

  /// A stage of one clause of names and numbers: `sort rating desc`, `top 10`.
  static func stage(_ name: String, words first: String, _ rest: String...) -> StageSyntax {
    stage(name, [([first] + rest).map { Int($0).map { number(Double($0)) } ?? self.name($0) }])
  }

  /// `fork (branch) (branch) ...`.
  static func fork(_ branches: [[StageSyntax]]) -> StageSyntax {
    StageSyntax(name: "fork", nameSpan: nowhere, arguments: .branches(branches.map { PipelineSyntax(source: nil, stages: $0, span: nowhere) }), span: nowhere)
  }

  /// `search predicate | stages`.
  static func search(_ predicate: Expression, _ stages: [StageSyntax] = []) -> PipelineSyntax {
    PipelineSyntax(source: .search(predicate, keywordSpan: nowhere), stages: stages, span: nowhere)
  }

  /// A query of one pipeline, or of named statements (`name = pipeline`; a nil name last).
  static func query(_ statements: [(name: String?, pipeline: PipelineSyntax)]) -> QuerySyntax {
    QuerySyntax(statements: statements.map { StatementSyntax(name: $0.name, nameSpan: $0.name.map { _ in nowhere }, isLet: false, pipeline: $0.pipeline, span: nowhere) }, span: nowhere)
  }

  static func query(_ pipeline: PipelineSyntax) -> QuerySyntax { query([(nil, pipeline)]) }

  /// `merge(a, b)` as a pipeline source, with stages.
  static func merge(_ names: [String], _ stages: [StageSyntax]) -> PipelineSyntax {
    PipelineSyntax(source: .merge(names, names.map { _ in nowhere }, keywordSpan: nowhere), stages: stages, span: nowhere)
  }
}

extension PipelineSyntax {
  /// The pipeline with more stages after its own.
  func appending(_ more: StageSyntax...) -> PipelineSyntax { appending(more) }

  /// The pipeline with more stages after its own.
  func appending(_ more: [StageSyntax]) -> PipelineSyntax {
    PipelineSyntax(source: source, stages: stages + more, span: span)
  }
}

extension QuerySyntax {
  /// The query with more stages after its last statement's (`| limit 1` for a probe).
  func appending(_ more: StageSyntax...) -> QuerySyntax {
    var query = self
    guard var last = query.statements.popLast() else { return self }
    last.pipeline.stages += more
    query.statements.append(last)
    return query
  }
}
