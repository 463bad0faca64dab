import SearchIndex

/// What a stage sees while binding: the expression binder, the source text for diagnostics,
/// and helpers that validate arguments against the descriptor.
public struct StageBindingContext {
  public var binder: ExpressionBinder
  public var diagnostics: [Diagnostic] = []
  public let source: SourceText
  /// The columns of the input table (for groups, their key's column) when the stage before
  /// said them (`BoundStage.outputColumns`); nil when unknown.
  public var inputColumns: [String]?

  public init(binder: ExpressionBinder, source: SourceText) {
    self.binder = binder
    self.source = source
  }

  /// Records a problem.
  public mutating func report(_ diagnostic: Diagnostic) { diagnostics.append(diagnostic) }

  /// Binds a condition, moving the binder's diagnostics into the context.
  public mutating func bindCondition(_ expression: Expression) -> BoundExpression? {
    let result = binder.bindCondition(expression)
    drainBinder()
    return result
  }

  /// Binds a value expression.
  public mutating func bindValue(_ expression: Expression) -> (BoundExpression, ValueType)? {
    let result = binder.bindValue(expression)
    drainBinder()
    return result
  }

  private mutating func drainBinder() {
    diagnostics.append(contentsOf: binder.diagnostics)
    binder = ExpressionBinder(context: binder.context)
  }

  /// The attribute an expression names, or a diagnostic.
  public mutating func bindAttribute(_ expression: Expression, purpose: String) -> AttributeTarget? {
    guard case .identifier(let name) = expression.kind else {
      report(Diagnostic("stage.expected-attribute", "\(purpose) needs an attribute name", at: expression.span))
      return nil
    }
    guard let target = binder.resolveAttribute(name) else {
      report(Diagnostic("name.unknown-attribute", "unknown attribute '\(name)'", at: expression.span)
        .suggesting(closestMatch(to: name, in: binder.context.catalog.allNames + ["domainIdentifier", "contentType"])))
      return nil
    }
    return target
  }

  /// The table column an expression names, or a diagnostic: a bare name (`count`,
  /// `stateOrProvince`), a string (`"avg(distance)"`) or a statistic written as `stats`
  /// wrote it (`avg(distance)`, compared without spaces). Checked against `inputColumns` when
  /// they are known; otherwise when the table arrives (`Table.columnIndex(of:)`).
  public mutating func tableColumn(_ expression: Expression, purpose: String) -> String? {
    let name: String
    switch expression.kind {
    case .identifier(let identifier): name = identifier
    case .string(let literal): name = literal.text
    case .call: name = String(source.text(of: expression).filter { !$0.isWhitespace })
    default:
      report(Diagnostic("stage.expected-column", "\(purpose) needs a column of the table, such as count or avg(distance)",
                        at: expression.span))
      return nil
    }
    // Columns known now are checked now, with the caret on the name.
    if let columns = inputColumns, !columns.contains(where: { Table.sameColumn($0, name) }) {
      var diagnostic = Diagnostic("name.unknown-column", "the table has no column '\(name)'", at: expression.span,
                                  help: "its columns are \(columns.joined(separator: ", "))")
      if let suggestion = closestMatch(to: name, in: columns) { diagnostic = diagnostic.suggesting(suggestion) }
      report(diagnostic)
      return nil
    }
    return name
  }

  /// The input's columns as `names` spells them, each the input column it names (spaces
  /// ignored), when the input's columns are known.
  public func inputColumns(named names: [String]) -> [String]? {
    guard let columns = inputColumns else { return nil }
    return names.map { name in columns.first { Table.sameColumn($0, name) } ?? name }
  }

  /// An integer literal in `range`, or a diagnostic.
  public mutating func bindInteger(_ expression: Expression, name: String, range: ClosedRange<Int>) -> Int? {
    var value: Double?
    switch expression.kind {
    case .number(let n): value = n
    // `limit -1`: a whole number, out of range.
    case .unary(.negate, let operand): if case .number(let n) = operand.kind { value = -n }
    case .identifier(let parameter): value = binder.context.parameters[parameter]?.number
    default: break
    }
    guard let value, value == value.rounded() else {
      report(Diagnostic("stage.expected-integer", "\(name) needs a whole number", at: expression.span))
      return nil
    }
    // Int(exactly:) is nil for values no Int holds (1e99), which are out of range too.
    guard let integer = Int(exactly: value), range.contains(integer) else {
      report(Diagnostic("stage.out-of-range", "\(name) must be between \(range.lowerBound) and \(range.upperBound)", at: expression.span))
      return nil
    }
    return integer
  }

  /// The single expression of a stage such as `where CONDITION`, or a usage diagnostic.
  public mutating func singleExpression(_ call: StageSyntax, usage: String) -> Expression? {
    guard let clauses = clauses(call) else { return nil }
    guard clauses.count == 1, clauses[0].count == 1 else {
      // `where rating > 3 and distance < 5`, `where not rating > 3`: the word says what was meant.
      if clauses.count == 1, clauses[0].count > 1 {
        let clause = clauses[0]
        let (word, span) = clause[0].identifierName?.lowercased() == "not" ? (clause[0], clause[0].span) : (clause[1], clause[1].span)
        var text: String?
        if clause.count > 2, case .string(let literal) = clause[2].kind { text = literal.text }
        if let name = word.identifierName, let misread = OperatorWords.diagnostic(name, at: span, attribute: nil, text: text) {
          report(misread)
          return nil
        }
      }
      let span = clauses.first.map { $0.count > 1 ? $0[1].span : call.span } ?? call.span
      report(Diagnostic("stage.usage", clauses.isEmpty ? "'\(call.name)' needs an argument" : "unexpected argument to '\(call.name)'",
                        at: clauses.isEmpty ? call.nameSpan : span, help: "write \(usage)"))
      return nil
    }
    return clauses[0][0]
  }

  /// The clauses of a call written with clause syntax, or a diagnostic for call syntax.
  public mutating func clauses(_ call: StageSyntax) -> [[Expression]]? {
    switch call.arguments {
    case .clauses(let clauses): return clauses
    case .call(let arguments):
      // `top(5)` reads as `top 5`: each positional argument is one clause.
      if arguments.allSatisfy({ $0.label == nil }) { return arguments.map { [$0.value] } }
      report(Diagnostic("stage.named-arguments", "'\(call.name)' does not take named arguments", at: call.span,
                        help: "write it as: \(call.name) ..."))
      return nil
    case .branches:
      report(Diagnostic("stage.unexpected-branches", "only fork takes branches", at: call.span))
      return nil
    }
  }

  /// Named or positional arguments checked against `parameters`: unknown names (with
  /// did-you-mean), types, ranges, choices, required parameters and defaults.
  public mutating func bindArguments(_ call: StageSyntax, parameters: [StageParameter]) -> [String: Value]? {
    var values: [String: Value] = [:]
    var given = Set<String>()
    var ok = true
    var arguments: [Argument] = []
    switch call.arguments {
    case .call(let list): arguments = list
    case .clauses(let clauses):
      for clause in clauses {
        guard clause.count == 1 else {
          report(Diagnostic("stage.unexpected-argument", "unexpected argument", at: clause[1].span,
                            help: "write \(call.name)(\(parameters.map { "\($0.name): ..." }.joined(separator: ", ")))"))
          return nil
        }
        arguments.append(Argument(label: nil, labelSpan: nil, value: clause[0]))
      }
    case .branches:
      report(Diagnostic("stage.unexpected-branches", "only fork takes branches", at: call.span))
      return nil
    }
    for (position, argument) in arguments.enumerated() {
      let parameter: StageParameter
      if let label = argument.label {
        guard let match = parameters.first(where: { $0.name == label }) else {
          report(Diagnostic("stage.unknown-parameter", "'\(call.name)' has no parameter '\(label)'", at: argument.labelSpan ?? argument.value.span)
            .suggesting(closestMatch(to: label, in: parameters.map(\.name))))
          ok = false
          continue
        }
        parameter = match
      } else {
        guard position < parameters.count else {
          report(Diagnostic("stage.too-many-arguments", "'\(call.name)' takes \(parameters.count) argument\(parameters.count == 1 ? "" : "s")", at: argument.value.span))
          ok = false
          continue
        }
        parameter = parameters[position]
      }
      if !given.insert(parameter.name).inserted {
        report(Diagnostic("stage.duplicate-argument", "'\(parameter.name)' is given twice", at: argument.value.span))
        ok = false
        continue
      }
      if let value = bindParameterValue(argument.value, parameter, stage: call.name) { values[parameter.name] = value } else { ok = false }
    }
    for parameter in parameters where values[parameter.name] == nil && !given.contains(parameter.name) {
      if let defaultValue = parameter.defaultValue {
        values[parameter.name] = defaultValue
      } else if parameter.isRequired {
        report(Diagnostic("stage.missing-argument", "'\(call.name)' needs '\(parameter.name)' (\(parameter.description))", at: call.nameSpan,
                          help: "write \(call.name)(\(parameter.name): ...)"))
        ok = false
      }
    }
    return ok ? values : nil
  }

  /// One argument value checked against its parameter.
  public mutating func bindParameterValue(_ expression: Expression, _ parameter: StageParameter, stage: String) -> Value? {
    var value: Value?
    switch expression.kind {
    case .number(let n): value = .number(n)
    case .duration(let seconds): value = .number(seconds)
    case .unary(.negate, let inner):
      if case .number(let n) = inner.kind { value = .number(-n) }
    case .string(let s):
      if let span = s.boostSpan {
        report(Diagnostic("text.misplaced-boost", "a weight (^) applies to text searches, not to '\(parameter.name)' of \(stage)", at: span,
                          help: "remove the ^ and its number"))
        return nil
      }
      value = .string(s.text)
    case .boolean(let b): value = .bool(b)
    case .identifier(let name):
      if let bound = binder.context.parameters[name] { value = bound }
      else if parameter.kind == .attribute || parameter.kind == .string { value = .string(name) }
    case .variable(let name): value = binder.context.variables[name]
    case .time:
      if let (bound, _) = bindValue(expression), case .constant(let constant) = bound { value = constant }
    default: break
    }
    guard let value else {
      report(Diagnostic("stage.expected-literal", "'\(parameter.name)' of \(stage) needs a literal \(parameter.kind.rawValue)", at: expression.span))
      return nil
    }
    if case .null = value { return value }  // a variable while type checking
    switch parameter.kind {
    case .number, .integer, .duration:
      guard let number = value.number, value != .bool(true), value != .bool(false) else {
        report(Diagnostic("type.mismatch", "'\(parameter.name)' of \(stage) is a number", at: expression.span,
                          help: parameter.range.map { "give a number from \(Self.format($0.lowerBound)) to \(Self.format($0.upperBound))" }))
        return nil
      }
      if parameter.kind == .integer, number != number.rounded() {
        report(Diagnostic("type.mismatch", "'\(parameter.name)' of \(stage) is a whole number", at: expression.span))
        return nil
      }
      if let range = parameter.range, !range.contains(number) {
        report(Diagnostic("stage.out-of-range", "'\(parameter.name)' of \(stage) must be from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound)); got \(Self.format(number))", at: expression.span))
        return nil
      }
    case .boolean:
      guard case .bool = value else {
        report(Diagnostic("type.mismatch", "'\(parameter.name)' of \(stage) is true or false", at: expression.span))
        return nil
      }
    case .string, .attribute, .attributes, .expression, .condition:
      guard case .string(let text) = value else {
        report(Diagnostic("type.mismatch", "'\(parameter.name)' of \(stage) is text", at: expression.span))
        return nil
      }
      if let choices = parameter.choices, !choices.contains(text) {
        report(Diagnostic("stage.invalid-choice", "'\(parameter.name)' of \(stage) must be one of \(choices.joined(separator: ", "))", at: expression.span)
          .suggesting(closestMatch(to: text, in: choices)))
        return nil
      }
      if parameter.kind == .attribute, binder.resolveAttribute(text) == nil {
        report(Diagnostic("name.unknown-attribute", "unknown attribute '\(text)'", at: expression.span)
          .suggesting(closestMatch(to: text, in: binder.context.catalog.allNames)))
        return nil
      }
    case .date:
      guard case .date = value else {
        report(Diagnostic("type.mismatch", "'\(parameter.name)' of \(stage) is a date", at: expression.span))
        return nil
      }
    }
    return value
  }

  public static func format(_ n: Double) -> String {
    n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
  }
}
