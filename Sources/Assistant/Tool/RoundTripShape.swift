import QueryEngine
import SearchIndex

/// A parsed query as the tool-call round trip keeps it, as text: what `ToolCallEncoder`
/// compares to accept a structured form, and what the round-trip tests compare. It leaves
/// out spans, statement names and reply labels (the decoder names statements after stage ids
/// and labels the last stage's reply), flattens runs of `&&` and `||` (an operation node has
/// children, not nesting), writes `sort a` as `sort a asc`, and writes exact values one way
/// (`'x'` and `"x"` without wildcards are the same value).
package enum RoundTripShape {
  package static func of(_ syntax: QuerySyntax) -> String {
    syntax.statements.map { statement in (statement.isLet ? "let " : "") + shape(statement.pipeline) }.joined(separator: "; ")
  }

  static func argument(_ argument: Argument) -> String {
    let label: String = argument.label.map { "\($0): " } ?? ""
    return label + expression(argument.value)
  }

  static func shape(_ pipeline: PipelineSyntax) -> String {
    var parts: [String] = []
    switch pipeline.source {
    case .search(let predicate, _)?: parts.append("search " + expression(predicate))
    case .reference(let name, _)?: parts.append("from " + name)
    case .merge(let names, _, _)?: parts.append("merge " + names.joined(separator: ","))
    case nil: break
    }
    for stage in pipeline.stages {
      switch stage.arguments {
      case .clauses(let clauses):
        var written: [String] = clauses.map { clause in clause.map { expression($0) }.joined(separator: " ") }
        if stage.name == "sort" { written = zip(clauses, written).map { clause, text in clause.count == 1 ? text + " asc" : text } }
        parts.append("\(stage.name) \(written.joined(separator: ", "))")
      case .call(let arguments):
        let written: [String] = arguments.map { argument($0) }
        parts.append("\(stage.name)(\(written.joined(separator: ", ")))")
      case .branches(let branches):
        let written: [String] = branches.map { "(\(shape($0)))" }
        parts.append("\(stage.name) \(written.joined(separator: " "))")
      }
    }
    return parts.joined(separator: " | ")
  }

  static func operands(_ op: BinaryOperator, _ node: QueryEngine.Expression) -> [QueryEngine.Expression] {
    if case .binary(let inner, let lhs, let rhs) = node.kind, inner == op { return operands(op, lhs) + operands(op, rhs) }
    return [node]
  }

  static func expression(_ node: QueryEngine.Expression) -> String {
    switch node.kind {
    case .boolean(let b): return "\(b)"
    case .number(let n): return JSONValue.format(number: n)
    case .duration(let s): return "\(JSONValue.format(number: s))s"
    case .string(let literal):
      var active = false
      if literal.form != StringLiteral.Form.singleQuoted {
        for (index, scalar) in literal.text.unicodeScalars.enumerated() where (scalar == "*" || scalar == "?") && !literal.escapedWildcards.contains(index) {
          active = true
        }
      }
      let boost: String = literal.boost.map { "^\($0)" } ?? ""
      return "\(active ? "pattern" : "value")(\(literal.text))\(literal.modifiers)\(boost)"
    case .time(let time):
      let offset: String = time.offset.map { JSONValue.format(number: $0) } ?? ""
      return "$time.\(time.function)(\(time.iso ?? offset))"
    case .identifier(let name): return name
    case .anyAttribute(let deep): return deep ? "**" : "*"
    case .variable(let name): return "$" + name
    case .unary(let op, let operand): return "(\(op.rawValue) \(expression(operand)))"
    case .binary(let op, let lhs, let rhs):
      if op == .and || op == .or {
        let written: [String] = operands(op, node).map { expression($0) }
        return "(\(op.rawValue) \(written.joined(separator: " ")))"
      }
      return "(\(op.rawValue) \(expression(lhs)) \(expression(rhs)))"
    case .comparison(let op, let lhs, let rhs, let modifiers):
      let bracket: String = modifiers.map { "[\($0)]" } ?? ""
      return "(\(op.rawValue)\(bracket) \(expression(lhs)) \(expression(rhs)))"
    case .call(let name, _, let arguments):
      let written: [String] = arguments.map { argument($0) }
      return "\(name)(\(written.joined(separator: ", ")))"
    case .similar(let similar):
      return "similar(\(similar.phrase), \(similar.maxDistance ?? -1), \(similar.maxCount ?? -1), \(similar.keywords ?? ""))"
    }
  }
}
