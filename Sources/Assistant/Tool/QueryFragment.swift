import QueryEngine
import SearchIndex

/// A part of a query being built from a tool call: the parser's expression nodes, plus what
/// the text shows that the tree does not keep (parentheses) and which JSON path produced each
/// part. `QueryRenderer` turns fragments into the parsed query (`QuerySyntax`) and its text at
/// once, so the decoder never prints a query to parse it again; the text is what `plan`, logs
/// and diagnostics show, and every span in the tree points into it.
indirect enum QueryFragment {
  /// An attribute, stage word or other name.
  case name(String)
  /// A number as `JSONValue.format` writes it.
  case number(Double)
  /// A whole number.
  case integer(Int)
  case bool(Bool)
  /// `'value'` with modifiers: an exact whole value, wildcards literal.
  case exact(String, modifiers: String)
  /// `"value"` with the value's own wildcards escaped and `*` added before and after as asked.
  case pattern(String, leading: Bool = false, trailing: Bool = false, modifiers: String = "")
  /// `"text"` as written, without escapes (names of columns such as `"avg(rating)"`).
  case quoted(String)
  /// The words of a ranked text search, `"..."` without quotes and backslashes.
  case words(String)
  /// `$time.iso(...)`.
  case iso(String)
  /// `$time.now`.
  case now
  /// `$name`.
  case variable(String)
  /// `*`: every item.
  case star
  /// `name(arguments)`.
  case call(String, [QueryFragment])
  /// `lhs op rhs`, with `[modifiers]` after the operator.
  case compare(QueryFragment, ComparisonOperator, QueryFragment, bracket: String? = nil)
  /// Operands joined by `&&`, `||` (balanced as the parser balances them); one operand alone.
  case and([QueryFragment])
  case or([QueryFragment])
  case not(QueryFragment)
  /// `lhs op rhs` for arithmetic (left-associative: build `(a + b) + c`).
  case arithmetic(BinaryOperator, QueryFragment, QueryFragment)
  /// `lhs-rhs` without spaces (`max-by`): one name to the lexer.
  case hyphenated(String, String)
  case paren(QueryFragment)
  /// `similar "phrase" within D [limit N] keywords "words"`.
  case similar(phrase: String, distance: Double, count: Int, keywords: String)
  /// Text of the language given as such (a post filter, a constant such as `30d`), parsed by
  /// itself: `expression`'s spans are relative to `text`.
  case parsed(String, Expression)
  /// Everything `fragment` writes was produced by the JSON path.
  case marked(String, QueryFragment)

  /// A constant of the language (`30d`, `true`), parsed by itself.
  static func constant(_ text: String) -> QueryFragment? {
    guard let expression = try? Parser.parseExpression(SourceText(text)) else { return nil }
    return .parsed(text, expression)
  }

  /// `lhs op rhs` joined left to right (`a + b + c` is `(a + b) + c`).
  static func fold(_ op: BinaryOperator, _ operands: [QueryFragment]) -> QueryFragment {
    operands.dropFirst().reduce(operands[0]) { .arithmetic(op, $0, $1) }
  }
}

/// One stage: `name clause, clause as "label"` or `name(key: value, ...)`.
struct StageFragment {
  enum Arguments {
    /// Comma-separated clauses, each a run of expressions.
    case clauses([[QueryFragment]])
    /// `(key: value, ...)`, each key with the path that produced it.
    case call([(key: String, keyPath: String?, value: QueryFragment)])
  }

  var name: String
  var arguments: Arguments = .clauses([])
  var label: String?
  /// The path that produced the stage's name.
  var namePath: String?
  /// The path that produced the stage's arguments, as a whole.
  var argumentsPath: String?
  /// The path that produced the whole stage.
  var path: String?

  init(_ name: String, _ clauses: [[QueryFragment]] = [], label: String? = nil, path: String? = nil) {
    self.name = name
    self.arguments = .clauses(clauses)
    self.label = label
    self.path = path
  }
}

/// Stages, and what a pipeline's text shows around them.
enum PipelineItem {
  case stage(StageFragment)
  /// Stages given as text of the language (a forEach operation, a compute expression),
  /// parsed by themselves; `marks` are ranges of `text` and the paths that produced them.
  case text(String, marks: [(range: Range<Int>, path: String)])
  /// What follows until the matching `close` was produced by the path.
  case open(String)
  /// ` as "label"` after a pipeline without stages (a merge's): the text a model's call
  /// asked for, which no parsed query holds.
  case trailingLabel(String)
  case close
}

enum SourceFragment {
  case search(QueryFragment)
  case reference(String)
  case merge([String])
}

struct PipelineFragment {
  /// Paths whose groups begin before the source.
  var opens: [String] = []
  var source: SourceFragment?
  var items: [PipelineItem] = []

  init(_ source: SourceFragment?, opens: [String] = []) {
    self.source = source
    self.opens = opens
  }

  mutating func append(_ stage: StageFragment) { items.append(.stage(stage)) }
}

struct StatementFragment {
  var name: String?
  var isLet = false
  var pipeline: PipelineFragment
  /// The path that produced the whole statement.
  var path: String?
}

/// Renders fragments: the text, the parsed query whose spans point into it, and which JSON
/// path produced which range of the text.
struct QueryRenderer {
  private(set) var text = ""
  private(set) var marks: [(range: Range<Int>, path: String)] = []
  /// False when a part given as text of the language did not parse by itself, or a shape
  /// the tree cannot hold was asked for: the caller then hands over the text alone, and
  /// the executor reports its diagnostics.
  private(set) var isComplete = true
  private var openGroups: [(start: Int, path: String)] = []

  private var offset: Int { text.utf8.count }

  private mutating func write(_ fragment: String) { text += fragment }

  private mutating func mark(from start: Int, _ path: String?) {
    guard let path else { return }
    marks.append((start..<offset, path))
  }

  /// The whole query: statements separated by `; `.
  static func render(_ statements: [StatementFragment]) -> (text: String, syntax: QuerySyntax?, marks: [(range: Range<Int>, path: String)]) {
    var renderer = QueryRenderer()
    var rendered: [StatementSyntax] = []
    for (index, statement) in statements.enumerated() {
      if index > 0 { renderer.write("; ") }
      rendered.append(renderer.statement(statement))
    }
    let syntax = QuerySyntax(statements: rendered, span: SourceSpan(0, renderer.offset))
    return (renderer.text, renderer.isComplete ? syntax : nil, renderer.marks)
  }

  mutating func statement(_ statement: StatementFragment) -> StatementSyntax {
    let start = offset
    var nameSpan: SourceSpan?
    if let name = statement.name {
      if statement.isLet { write("let ") }
      let nameStart = offset
      write(name)
      nameSpan = SourceSpan(nameStart, offset)
      write(" = ")
    }
    let pipeline = self.pipeline(statement.pipeline)
    mark(from: start, statement.path)
    return StatementSyntax(name: statement.name, nameSpan: nameSpan, isLet: statement.isLet, pipeline: pipeline, span: SourceSpan(start, offset))
  }

  mutating func pipeline(_ pipeline: PipelineFragment) -> PipelineSyntax {
    let start = offset
    for path in pipeline.opens { openGroups.append((start, path)) }
    var source: SourceSyntax?
    switch pipeline.source {
    case .search(let predicate)?:
      write("search ")
      let keyword = SourceSpan(start, start + 6)
      source = .search(expression(predicate), keywordSpan: keyword)
    case .reference(let name)?:
      write(name)
      source = .reference(name, SourceSpan(start, offset))
    case .merge(let names)?:
      write("merge(")
      var spans: [SourceSpan] = []
      for (index, name) in names.enumerated() {
        if index > 0 { write(", ") }
        let nameStart = offset
        write(name)
        spans.append(SourceSpan(nameStart, offset))
      }
      write(")")
      source = .merge(names, spans, keywordSpan: SourceSpan(start, start + 5))
    case nil: break
    }
    var stages: [StageSyntax] = []
    for item in pipeline.items {
      switch item {
      case .stage(let stage):
        write(source == nil && stages.isEmpty && offset == start ? "" : " | ")
        stages.append(self.stage(stage))
      case .text(let fragment, let fragmentMarks):
        write(" | ")
        let fragmentStart = offset
        write(fragment)
        for mark in fragmentMarks { marks.append(((mark.range.lowerBound + fragmentStart)..<(mark.range.upperBound + fragmentStart), mark.path)) }
        let prefix = "search * | "
        guard let syntax = try? Parser.parse(SourceText(prefix + fragment)), syntax.statements.count == 1,
          let parsed = syntax.statements.first, parsed.name == nil, !parsed.pipeline.stages.isEmpty
        else {
          isComplete = false
          continue
        }
        let shift = fragmentStart - prefix.utf8.count
        stages += parsed.pipeline.stages.map { $0.mappingSpans { $0.shifted(by: shift) } }
      case .open(let path):
        openGroups.append((offset, path))
      case .trailingLabel(let label):
        write(" as \"" + ToolCallDecoder.escapeLabel(label) + "\"")
        isComplete = false
      case .close:
        if let group = openGroups.popLast() { mark(from: group.start, group.path) }
      }
    }
    return PipelineSyntax(source: source, stages: stages, span: SourceSpan(start, offset))
  }

  mutating func stage(_ stage: StageFragment) -> StageSyntax {
    let start = offset
    write(stage.name)
    let nameSpan = SourceSpan(start, offset)
    mark(from: start, stage.namePath)
    let arguments: StageSyntax.Arguments
    let argumentsStart = offset
    switch stage.arguments {
    case .clauses(let clauses):
      if !clauses.isEmpty { write(" ") }
      var rendered: [[Expression]] = []
      for (index, clause) in clauses.enumerated() {
        if index > 0 { write(", ") }
        var expressions: [Expression] = []
        for (position, part) in clause.enumerated() {
          if position > 0 { write(" ") }
          expressions.append(expression(part))
        }
        rendered.append(expressions)
      }
      arguments = .clauses(rendered)
    case .call(let list):
      write("(")
      var rendered: [Argument] = []
      for (index, argument) in list.enumerated() {
        if index > 0 { write(", ") }
        let keyStart = offset
        write(argument.key)
        let keySpan = SourceSpan(keyStart, offset)
        mark(from: keyStart, argument.keyPath)
        write(": ")
        rendered.append(Argument(label: argument.key, labelSpan: keySpan, value: expression(argument.value)))
      }
      write(")")
      arguments = .call(rendered)
    }
    mark(from: argumentsStart, stage.argumentsPath)
    var labelSpan: SourceSpan?
    if let label = stage.label {
      write(" as ")
      let labelStart = offset
      write("\"" + ToolCallDecoder.escapeLabel(label) + "\"")
      labelSpan = SourceSpan(labelStart, offset)
    }
    mark(from: start, stage.path)
    return StageSyntax(name: stage.name, nameSpan: nameSpan, arguments: arguments, label: stage.label, labelSpan: labelSpan, span: SourceSpan(start, offset))
  }

  private mutating func string(_ written: String, _ literal: StringLiteral, modifiers: String) -> Expression {
    let start = offset
    write(written)
    var literal = literal
    if !modifiers.isEmpty {
      let modifierStart = offset
      write(modifiers)
      literal.modifiers = modifiers
      literal.modifierSpan = SourceSpan(modifierStart, offset)
    }
    return Expression(.string(literal), SourceSpan(start, offset))
  }

  // swiftlint:disable:next cyclomatic_complexity function_body_length
  mutating func expression(_ fragment: QueryFragment) -> Expression {
    let start = offset
    func span() -> SourceSpan { SourceSpan(start, offset) }
    switch fragment {
    case .name(let name):
      if name.isEmpty || !name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) || name.first!.isNumber || ["true", "false"].contains(name) {
        isComplete = false
      }
      write(name)
      return Expression(.identifier(name), span())
    case .number(let value):
      return number(JSONValue.format(number: value))
    case .integer(let value):
      return number(String(value))
    case .bool(let value):
      write(value ? "true" : "false")
      return Expression(.boolean(value), span())
    case .exact(let value, let modifiers):
      return string(QuerySpelling.exact(value), StringLiteral(text: value, form: .singleQuoted), modifiers: modifiers)
    case .pattern(let value, let leading, let trailing, let modifiers):
      var escaped = Set<Int>()
      for (index, scalar) in value.unicodeScalars.enumerated() where scalar == "*" || scalar == "?" { escaped.insert(index + (leading ? 1 : 0)) }
      let text = (leading ? "*" : "") + value + (trailing ? "*" : "")
      return string(QuerySpelling.pattern(value, leading: leading, trailing: trailing),
                    StringLiteral(text: text, form: .doubleQuoted, escapedWildcards: escaped), modifiers: modifiers)
    case .quoted(let value):
      if value.contains(where: { $0 == "\\" || $0 == "\"" || $0 == "*" || $0 == "?" }) { isComplete = false }
      return string("\"" + value + "\"", StringLiteral(text: value, form: .doubleQuoted), modifiers: "")
    case .words(let value):
      let written = QuerySpelling.searchText(value)
      return string(written, StringLiteral(text: String(written.dropFirst().dropLast()), form: .doubleQuoted), modifiers: "")
    case .iso(let value):
      write("$time.iso(\(value))")
      return Expression(.time(TimeLiteral(function: "iso", functionSpan: span(), iso: value.trimmingCharacters(in: [" ", "\"", "'"]))), span())
    case .now:
      write("$time.now")
      return Expression(.time(TimeLiteral(function: "now", functionSpan: span())), span())
    case .variable(let name):
      write("$" + name)
      return Expression(.variable(name), span())
    case .star:
      write("*")
      return Expression(.anyAttribute(deep: false), span())
    case .call(let name, let arguments):
      write(name)
      let nameSpan = span()
      write("(")
      var rendered: [Argument] = []
      for (index, argument) in arguments.enumerated() {
        if index > 0 { write(", ") }
        rendered.append(Argument(value: expression(argument)))
      }
      write(")")
      return Expression(.call(name: name, nameSpan: nameSpan, arguments: rendered), span())
    case .compare(let lhs, let op, let rhs, let bracket):
      let left = expression(lhs)
      write(" " + op.rawValue + (bracket.map { "[\($0)]" } ?? "") + " ")
      let right = expression(rhs)
      return Expression(.comparison(op, left, right, bracketModifiers: bracket), left.span.union(right.span))
    case .and(let parts), .or(let parts):
      let isAnd: Bool = if case .and = fragment { true } else { false }
      guard !parts.isEmpty else {
        isComplete = false
        return Expression(.boolean(false), span())
      }
      var operands: [Expression] = []
      for (index, part) in parts.enumerated() {
        if index > 0 { write(isAnd ? " && " : " || ") }
        operands.append(expression(part))
      }
      return Parser.balanced(isAnd ? .and : .or, operands[...])
    case .not(let operand):
      write("!")
      let inner = expression(operand)
      return Expression(.unary(.not, inner), SourceSpan(start, inner.span.end))
    case .arithmetic(let op, let lhs, let rhs):
      let left = expression(lhs)
      write(" " + op.rawValue + " ")
      let right = expression(rhs)
      return Expression(.binary(op, left, right), left.span.union(right.span))
    case .hyphenated(let lhs, let rhs):
      write(lhs + "-" + rhs)
      return Expression(.identifier(lhs + "-" + rhs), span())
    case .paren(let inner):
      write("(")
      let expression = self.expression(inner)
      write(")")
      return Expression(expression.kind, span())
    case .similar(let phrase, let distance, let count, let keywords):
      write("similar ")
      let phraseText = expression(.words(phrase))
      write(" within ")
      let distanceText = JSONValue.format(number: distance)
      let distanceStart = offset
      write(distanceText)
      var syntax = SimilarSyntax(phrase: Self.text(of: phraseText), maxDistance: Double(distanceText), maxDistanceSpan: SourceSpan(distanceStart, offset))
      if count > 0 {
        write(" limit ")
        let countStart = offset
        write(String(count))
        syntax.maxCount = Double(count)
        syntax.maxCountSpan = SourceSpan(countStart, offset)
      }
      write(" keywords ")
      syntax.keywords = Self.text(of: expression(.words(keywords)))
      return Expression(.similar(syntax), span())
    case .parsed(let text, let expression):
      write(text)
      return expression.mappingSpans { $0.shifted(by: start) }
    case .marked(let path, let inner):
      let expression = self.expression(inner)
      mark(from: start, path)
      return expression
    }
  }

  private static func text(of expression: Expression) -> String {
    if case .string(let literal) = expression.kind { return literal.text }
    return ""
  }

  /// A number literal; a negative one is the negation of its magnitude, as the parser reads `-3`.
  private mutating func number(_ written: String) -> Expression {
    let start = offset
    write(written)
    if written.hasPrefix("-") {
      let magnitude = Expression(.number(Double(written.dropFirst()) ?? 0), SourceSpan(start + 1, offset))
      return Expression(.unary(.negate, magnitude), SourceSpan(start, offset))
    }
    if written.contains("e") || written.contains("n") || written.contains("i") { isComplete = false }
    return Expression(.number(Double(written) ?? 0), SourceSpan(start, offset))
  }
}
