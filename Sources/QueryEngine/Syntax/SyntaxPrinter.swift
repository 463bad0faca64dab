import SearchIndex

/// Prints parsed queries: an indented tree for people (`searchlight parse`) and JSON with
/// spans for tools and golden tests.
public enum SyntaxPrinter {
  /// The tree, one node per line.
  public static func tree(_ query: QuerySyntax) -> String {
    var lines: [String] = []
    for statement in query.statements {
      var head = "statement"
      if let name = statement.name { head += statement.isLet ? " let \(name)" : " \(name) =" }
      lines.append(head)
      pipeline(statement.pipeline, indent: 1, into: &lines)
    }
    return lines.joined(separator: "\n")
  }

  private static func pipeline(_ pipeline: PipelineSyntax, indent: Int, into lines: inout [String]) {
    let pad = String(repeating: "  ", count: indent)
    switch pipeline.source {
    case .search(let expression, _)?:
      lines.append(pad + "search")
      self.expression(expression, indent: indent + 1, into: &lines)
    case .reference(let name, _)?: lines.append(pad + "from \(name)")
    case .merge(let names, _, _)?: lines.append(pad + "merge \(names.joined(separator: ", "))")
    case nil: break
    }
    for stage in pipeline.stages {
      lines.append(pad + "stage \(stage.name)" + (stage.label.map { " as \"\($0)\"" } ?? ""))
      switch stage.arguments {
      case .clauses(let clauses):
        for clause in clauses {
          if clause.count == 1 {
            expression(clause[0], indent: indent + 1, into: &lines)
          } else {
            lines.append(pad + "  clause")
            for part in clause { expression(part, indent: indent + 2, into: &lines) }
          }
        }
      case .call(let arguments):
        for argument in arguments {
          if let label = argument.label {
            lines.append(pad + "  \(label):")
            expression(argument.value, indent: indent + 2, into: &lines)
          } else {
            expression(argument.value, indent: indent + 1, into: &lines)
          }
        }
      case .branches(let branches):
        for branch in branches {
          lines.append(pad + "  branch")
          self.pipeline(branch, indent: indent + 2, into: &lines)
        }
      }
    }
  }

  private static func expression(_ expression: Expression, indent: Int, into lines: inout [String]) {
    let pad = String(repeating: "  ", count: indent)
    switch expression.kind {
    case .boolean(let b): lines.append(pad + "\(b)")
    case .number(let n): lines.append(pad + "number \(JSONValue.format(number: n))")
    case .duration(let s): lines.append(pad + "duration \(JSONValue.format(number: s))s")
    case .string(let s): lines.append(pad + describe(s))
    case .time(let t):
      if t.function == "iso" { lines.append(pad + "time iso(\(t.iso ?? ""))") }
      else { lines.append(pad + "time \(t.function)" + (t.offset.map { "(\(JSONValue.format(number: $0)))" } ?? "")) }
    case .identifier(let name): lines.append(pad + "name \(name)")
    case .anyAttribute(let deep): lines.append(pad + (deep ? "any attribute (**)" : "any text attribute (*)"))
    case .variable(let name): lines.append(pad + "variable $\(name)")
    case .unary(let op, let operand):
      lines.append(pad + (op == .not ? "not" : "negate"))
      self.expression(operand, indent: indent + 1, into: &lines)
    case .binary(let op, let lhs, let rhs):
      lines.append(pad + (op == .and ? "and" : op == .or ? "or" : op.rawValue))
      self.expression(lhs, indent: indent + 1, into: &lines)
      self.expression(rhs, indent: indent + 1, into: &lines)
    case .comparison(let op, let lhs, let rhs, let bracket):
      lines.append(pad + "compare \(op.rawValue)" + (bracket.map { " [\($0)]" } ?? ""))
      self.expression(lhs, indent: indent + 1, into: &lines)
      self.expression(rhs, indent: indent + 1, into: &lines)
    case .similar(let similar):
      var line = pad + "similar " + JSONValue.string(similar.phrase).compactText
      if let distance = similar.maxDistance { line += " within \(JSONValue.format(number: distance))" }
      if let count = similar.maxCount { line += " limit \(JSONValue.format(number: count))" }
      if let keywords = similar.keywords { line += " keywords " + JSONValue.string(keywords).compactText }
      lines.append(line)
    case .call(let name, _, let arguments):
      lines.append(pad + "call \(name)")
      for argument in arguments {
        if let label = argument.label { lines.append(pad + "  \(label):") }
        self.expression(argument.value, indent: indent + (argument.label == nil ? 1 : 2), into: &lines)
      }
    }
  }

  private static func describe(_ s: StringLiteral) -> String {
    var text = "string " + JSONValue.string(s.text).compactText
    if s.form == .singleQuoted { text += " exact" }
    if s.form == .bare { text += " bare" }
    if !s.modifiers.isEmpty { text += " modifiers \(s.modifiers)" }
    if let boost = s.boost { text += " boost \(JSONValue.format(number: boost))" }
    return text
  }

  // MARK: JSON

  /// The query as JSON: every node with its kind and `span` ([start, end) in UTF-8 bytes).
  public static func json(_ query: QuerySyntax) -> JSONValue {
    .object(JSONObject([
      ("kind", "query"),
      ("statements", .array(query.statements.map { statement in
        var object = JSONObject([("kind", "statement")])
        if let name = statement.name { object["name"] = .string(name) }
        if statement.isLet { object["let"] = .bool(true) }
        object["pipeline"] = pipelineJSON(statement.pipeline)
        object["span"] = span(statement.span)
        return .object(object)
      })),
    ]))
  }

  private static func span(_ span: SourceSpan) -> JSONValue { .array([.number(Double(span.start)), .number(Double(span.end))]) }

  private static func pipelineJSON(_ pipeline: PipelineSyntax) -> JSONValue {
    var object = JSONObject([("kind", "pipeline")])
    switch pipeline.source {
    case .search(let expression, _)?: object["source"] = .object(JSONObject([("kind", "search"), ("predicate", json(expression))]))
    case .reference(let name, let s)?: object["source"] = .object(JSONObject([("kind", "reference"), ("name", .string(name)), ("span", span(s))]))
    case .merge(let names, _, _)?: object["source"] = .object(JSONObject([("kind", "merge"), ("names", .array(names.map(JSONValue.string)))]))
    case nil: break
    }
    object["stages"] = .array(pipeline.stages.map { stage in
      var entry = JSONObject([("kind", "stage"), ("name", .string(stage.name))])
      switch stage.arguments {
      case .clauses(let clauses): entry["clauses"] = .array(clauses.map { .array($0.map(json)) })
      case .call(let arguments):
        entry["arguments"] = .array(arguments.map { argument in
          var a = JSONObject()
          if let label = argument.label { a["label"] = .string(label) }
          a["value"] = json(argument.value)
          return .object(a)
        })
      case .branches(let branches): entry["branches"] = .array(branches.map(pipelineJSON))
      }
      if let label = stage.label { entry["label"] = .string(label) }
      entry["span"] = span(stage.span)
      return .object(entry)
    })
    return .object(object)
  }

  /// One expression as JSON.
  public static func json(_ expression: Expression) -> JSONValue {
    var object = JSONObject()
    switch expression.kind {
    case .boolean(let b): object["kind"] = "boolean"; object["value"] = .bool(b)
    case .number(let n): object["kind"] = "number"; object["value"] = .number(n)
    case .duration(let s): object["kind"] = "duration"; object["seconds"] = .number(s)
    case .string(let s):
      object["kind"] = "string"
      object["value"] = .string(s.text)
      object["form"] = .string(s.form.rawValue)
      if !s.modifiers.isEmpty { object["modifiers"] = .string(s.modifiers) }
      if let boost = s.boost { object["boost"] = .number(boost) }
    case .time(let t):
      object["kind"] = "time"
      object["function"] = .string(t.function)
      if let offset = t.offset { object["offset"] = .number(offset) }
      if let iso = t.iso { object["iso"] = .string(iso) }
    case .identifier(let name): object["kind"] = "name"; object["name"] = .string(name)
    case .anyAttribute(let deep): object["kind"] = deep ? "anyAttribute" : "anyTextAttribute"
    case .variable(let name): object["kind"] = "variable"; object["name"] = .string(name)
    case .unary(let op, let operand):
      object["kind"] = op == .not ? "not" : "negate"
      object["operand"] = json(operand)
    case .binary(let op, let lhs, let rhs):
      object["kind"] = op == .and ? "and" : op == .or ? "or" : "arithmetic"
      if op != .and && op != .or { object["operator"] = .string(op.rawValue) }
      object["left"] = json(lhs)
      object["right"] = json(rhs)
    case .comparison(let op, let lhs, let rhs, let bracket):
      object["kind"] = "comparison"
      object["operator"] = .string(op.rawValue)
      if let bracket { object["bracketModifiers"] = .string(bracket) }
      object["left"] = json(lhs)
      object["right"] = json(rhs)
    case .similar(let similar):
      object["kind"] = "similar"
      object["phrase"] = .string(similar.phrase)
      if let distance = similar.maxDistance { object["maxDistance"] = .number(distance) }
      if let count = similar.maxCount { object["maxCount"] = .number(count) }
      if let keywords = similar.keywords { object["keywords"] = .string(keywords) }
    case .call(let name, _, let arguments):
      object["kind"] = "call"
      object["name"] = .string(name)
      object["arguments"] = .array(arguments.map { json($0.value) })
    }
    object["span"] = span(expression.span)
    return .object(object)
  }
}
