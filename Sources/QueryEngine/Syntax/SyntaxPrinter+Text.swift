import SearchIndex

/// Printing parsed queries back as query text: what `plan` shows for a query the built-in
/// planner built as a tree. The text parses back to the same tree, up to spans (see
/// `QuerySyntax.structure`): parentheses are written only where precedence needs them, and
/// a run of `&&` or `||` is written flat when the tree has the balanced shape the parser
/// gives such a run.
extension SyntaxPrinter {
  /// The query as text: statements separated by `; `, stages by ` | `.
  public static func text(_ query: QuerySyntax) -> String {
    query.statements.map(text).joined(separator: "; ")
  }

  /// One statement: `[let] [name =] pipeline`.
  public static func text(_ statement: StatementSyntax) -> String {
    var head = ""
    if let name = statement.name { head = (statement.isLet ? "let " : "") + name + " = " }
    return head + text(statement.pipeline)
  }

  /// A pipeline: its source, then its stages.
  public static func text(_ pipeline: PipelineSyntax) -> String {
    var parts: [String] = []
    switch pipeline.source {
    case .search(let predicate, _)?: parts.append("search " + text(predicate))
    case .reference(let name, _)?: parts.append(name)
    case .merge(let names, _, _)?: parts.append("merge(" + names.joined(separator: ", ") + ")")
    case nil: break
    }
    return (parts + pipeline.stages.map(text)).joined(separator: " | ")
  }

  /// One stage: `name clause, clause`, `name(label: value)` or `fork (...) (...)`, then
  /// ` as "label"`.
  public static func text(_ stage: StageSyntax) -> String {
    var written = stage.name
    switch stage.arguments {
    case .clauses(let clauses):
      if !clauses.isEmpty {
        written += " " + clauses.map { clause in clause.map { text($0) }.joined(separator: " ") }.joined(separator: ", ")
      }
    case .call(let arguments):
      written += "(" + arguments.map(text).joined(separator: ", ") + ")"
    case .branches(let branches):
      written += " " + branches.map { "(" + text($0) + ")" }.joined(separator: " ")
    }
    if let label = stage.label { written += " as " + quoted(label, escaping: Set<Int>()) }
    return written
  }

  /// An expression, parenthesised where the grammar's precedence needs it.
  public static func text(_ expression: Expression) -> String { text(expression, above: .lowest) }

  // MARK: Precedence

  /// Binding strength, loosest first, as `Grammar/Searchlight.ebnf` nests its rules.
  private enum Level: Int, Comparable {
    case lowest, or, and, not, comparison, additive, multiplicative, unary, primary
    static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
  }

  private static func level(of expression: Expression) -> Level {
    switch expression.kind {
    case .binary(.or, _, _): .or
    case .binary(.and, _, _): .and
    case .binary(.add, _, _), .binary(.subtract, _, _): .additive
    case .binary: .multiplicative
    case .unary(.not, _): .not
    case .unary(.negate, _): .unary
    case .comparison: .comparison
    default: .primary
    }
  }

  /// `expression` written so that it binds at least as tightly as `minimum`.
  private static func text(_ expression: Expression, above minimum: Level) -> String {
    let written = bare(expression)
    return level(of: expression) < minimum ? "(" + written + ")" : written
  }

  private static func bare(_ expression: Expression) -> String {
    switch expression.kind {
    case .boolean(let value): return value ? "true" : "false"
    case .number(let value): return JSONValue.format(number: value)
    case .duration(let seconds): return duration(seconds)
    case .string(let literal): return string(literal)
    case .time(let time):
      if time.function == "iso" { return "$time.iso(\(time.iso ?? ""))" }
      return "$time.\(time.function)" + (time.offset.map { "(\(JSONValue.format(number: $0)))" } ?? "")
    case .identifier(let name): return name
    case .anyAttribute(let deep): return deep ? "**" : "*"
    case .variable(let name): return "$" + name
    case .unary(.not, let operand): return "!" + text(operand, above: .not)
    case .unary(.negate, let operand): return "-" + text(operand, above: .unary)
    case .binary(let op, let lhs, let rhs) where op == .and || op == .or:
      let level: Level = op == .and ? .and : .or
      let tighter = Level(rawValue: level.rawValue + 1)!
      // The parser reads `a || b || c` as one balanced tree; any other shape keeps its
      // parentheses.
      let operands = balancedOperands(op, expression) ?? [lhs, rhs]
      return operands.map { operand in
        if case .binary(op, _, _) = operand.kind { return "(" + bare(operand) + ")" }
        return text(operand, above: tighter)
      }.joined(separator: " \(op.rawValue) ")
    case .binary(let op, let lhs, let rhs):
      let level = self.level(of: expression)
      let tighter = Level(rawValue: level.rawValue + 1)!
      return text(lhs, above: level) + " \(op.rawValue) " + text(rhs, above: tighter)
    case .comparison(let op, let lhs, let rhs, let bracket):
      let value: String = if case .string(let literal) = rhs.kind, literal.form == .bare { literal.text } else { text(rhs, above: .additive) }
      return text(lhs, above: .additive) + " " + op.rawValue + (bracket.map { "[\($0)]" } ?? "") + " " + value
    case .call(let name, _, let arguments):
      return name + "(" + arguments.map(text).joined(separator: ", ") + ")"
    case .similar(let similar):
      var written = "similar " + literal(similar.phrase)
      if let distance = similar.maxDistance { written += " within " + JSONValue.format(number: distance) }
      if let count = similar.maxCount { written += " limit " + JSONValue.format(number: count) }
      if let keywords = similar.keywords { written += " keywords " + literal(keywords) }
      return written
    }
  }

  private static func text(_ argument: Argument) -> String {
    let value: String = if case .string(let literal) = argument.value.kind, literal.form == .bare { literal.text } else { text(argument.value) }
    return (argument.label.map { $0 + ": " } ?? "") + value
  }

  /// The operands of a run of `op` when `expression` is the balanced tree the parser makes of
  /// them (`Parser.balanced`); nil for any other shape.
  private static func balancedOperands(_ op: BinaryOperator, _ expression: Expression) -> [Expression]? {
    func operands(_ node: Expression) -> [Expression] {
      if case .binary(op, let lhs, let rhs) = node.kind { return operands(lhs) + operands(rhs) }
      return [node]
    }
    func isBalanced(_ node: Expression) -> Bool {
      guard case .binary(op, let lhs, let rhs) = node.kind else { return true }
      let left = operands(lhs).count
      let right = operands(rhs).count
      return left == (left + right + 1) / 2 && isBalanced(lhs) && isBalanced(rhs)
    }
    return isBalanced(expression) ? operands(expression) : nil
  }

  // MARK: Values

  /// A string literal as written: its quotes, escapes, modifiers and weight.
  private static func string(_ literal: StringLiteral) -> String {
    var written: String
    switch literal.form {
    case .bare: written = literal.text
    case .doubleQuoted, .singleQuoted:
      written = quoted(literal.text, escaping: literal.escapedWildcards, quote: literal.form == .doubleQuoted ? "\"" : "'")
    }
    written += literal.modifiers
    if let boost = literal.boost { written += "^" + positional(boost) }
    return written
  }

  /// `text` in `quote`s: backslashes, the quote and control characters escaped, and the
  /// wildcards at `escaping` (offsets in Unicode scalars, as the lexer counts them).
  private static func quoted(_ text: String, escaping escaped: Set<Int>, quote: Character = "\"") -> String {
    var written = String(quote)
    for (offset, scalar) in text.unicodeScalars.enumerated() {
      switch scalar {
      case "\\": written += "\\\\"
      case "\n": written += "\\n"
      case "\t": written += "\\t"
      case "\r": written += "\\r"
      case "*" where escaped.contains(offset), "?" where escaped.contains(offset): written += "\\" + String(scalar)
      default:
        if Character(scalar) == quote { written += "\\" }
        written.unicodeScalars.append(scalar)
      }
    }
    return written + String(quote)
  }

  /// `text` in double quotes with every `*` and `?` escaped: taken literally.
  private static func literal(_ text: String) -> String {
    quoted(text, escaping: Set(text.unicodeScalars.enumerated().filter { $0.element == "*" || $0.element == "?" }.map(\.offset)))
  }

  /// A number without an exponent (`0.00001`, not `1e-05`), as a weight after `^` is read.
  private static func positional(_ number: Double) -> String {
    let text = JSONValue.format(number: number)
    guard let e = text.firstIndex(of: "e"), let exponent = Int(text[text.index(after: e)...]) else { return text }
    var mantissa = text[..<e]
    let sign = mantissa.hasPrefix("-") ? "-" : ""
    if !sign.isEmpty { mantissa = mantissa.dropFirst() }
    let whole = mantissa.prefix { $0 != "." }
    let digits = String(whole) + mantissa.dropFirst(whole.count + 1)
    let point = whole.count + exponent
    if point <= 0 { return sign + "0." + String(repeating: "0", count: -point) + digits }
    if point >= digits.count { return sign + digits + String(repeating: "0", count: point - digits.count) }
    return sign + digits.prefix(point) + "." + digits.dropFirst(point)
  }

  /// A duration in its largest whole unit: `30d`, `2h`, `90s`.
  private static func duration(_ seconds: Double) -> String {
    for (unit, size) in [("w", 604_800.0), ("d", 86_400), ("h", 3600), ("m", 60)] where seconds != 0 && (seconds / size).rounded() == seconds / size {
      return JSONValue.format(number: seconds / size) + unit
    }
    return JSONValue.format(number: seconds) + "s"
  }
}
