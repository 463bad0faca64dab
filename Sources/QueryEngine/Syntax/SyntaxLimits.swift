/// The parser's limits, for queries built without text (a decoded tool call): the same
/// statements, comparisons and calls, words and nesting a parsed query may have, refused with
/// the parser's diagnostics at the node that crossed the limit.
extension Parser {
  /// Throws the parser's diagnostic for the first limit `syntax` crosses.
  public static func checkLimits(_ syntax: QuerySyntax, source: SourceText) throws(DiagnosticsError) {
    func refuse(_ id: String, _ message: String, _ span: SourceSpan, help: String) -> DiagnosticsError {
      DiagnosticsError(source: source, diagnostics: [Diagnostic(id, message, at: span, help: help)])
    }
    if syntax.statements.count > maximumStatements {
      throw refuse("parse.too-many-statements", "the query has more than \(maximumStatements) statements", syntax.statements[maximumStatements].span,
                   help: "combine statements, or split the query")
    }
    var conditions = 0
    var words = 0
    // Expressions in source order; each checked in post-order, as the parser completes them.
    var expressions: [Expression] = []
    var pipelines = syntax.statements.map(\.pipeline)
    while !pipelines.isEmpty {
      let pipeline = pipelines.removeFirst()
      if case .search(let predicate, _)? = pipeline.source { expressions.append(predicate) }
      for stage in pipeline.stages {
        switch stage.arguments {
        case .clauses(let clauses): expressions += clauses.flatMap { $0 }
        case .call(let arguments): expressions += arguments.map(\.value)
        case .branches(let branches): pipelines.insert(contentsOf: branches, at: 0)
        }
      }
    }
    for expression in expressions {
      if height(of: expression) > maximumDepth {
        throw refuse("parse.too-deep", "the query is nested too deeply (more than \(maximumDepth) levels)", expression.span,
                     help: "split it into smaller queries, or use fewer parentheses, '!' and arithmetic operators in a row")
      }
      var pending: [(node: Expression, visited: Bool)] = [(expression, false)]
      while let (node, visited) = pending.popLast() {
        if !visited {
          pending.append((node, true))
          var children: [Expression] = []
          switch node.kind {
          case .unary(_, let operand): children = [operand]
          case .binary(_, let lhs, let rhs), .comparison(_, let lhs, let rhs, _): children = [lhs, rhs]
          case .call(_, _, let arguments): children = arguments.map(\.value)
          default: break
          }
          pending += children.reversed().map { ($0, false) }
          continue
        }
        switch node.kind {
        case .comparison, .call:
          conditions += 1
          if conditions > maximumConditions {
            // Where the parser reports it: the comparison's operands, the call from its name
            // (a parenthesised node's own span includes the parentheses).
            var span = node.span
            if case .comparison(_, let lhs, let rhs, _) = node.kind { span = lhs.span.union(rhs.span) }
            if case .call(_, let nameSpan, _) = node.kind { span = SourceSpan(nameSpan.start, node.span.end) }
            throw refuse("parse.too-many-conditions", "the query has more than \(maximumConditions) comparisons and calls", span,
                         help: "split it into smaller queries, or search for the words in one string: \"alpha beta gamma\"")
          }
        case .string(let literal):
          words += literal.text.split(whereSeparator: \.isWhitespace).count
        case .similar(let similar):
          words += similar.phrase.split(whereSeparator: \.isWhitespace).count + (similar.keywords ?? "").split(whereSeparator: \.isWhitespace).count
        default: break
        }
        if words > maximumWords {
          throw refuse("parse.too-many-words", "the query's strings have more than \(maximumWords) words", node.span,
                       help: "search for fewer words: the rarest few find the same items")
        }
      }
    }
  }
}
