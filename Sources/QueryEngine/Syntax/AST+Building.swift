/// Building parsed queries without text: tools that decode another form of a query (the
/// tool-call decoder, the planner) build the same nodes the parser would, and move spans
/// when they splice parsed fragments together.

// MARK: Moving spans

extension SourceSpan {
  /// The span moved by `offset` bytes.
  public func shifted(by offset: Int) -> SourceSpan { SourceSpan(start + offset, end + offset) }
}

extension Expression {
  /// The expression with every span (its own and its parts') transformed: `{ $0.shifted(by: n) }`
  /// to splice it into a longer text, `{ _ in SourceSpan(0, 0) }` to compare structure only.
  public func mappingSpans(_ transform: (SourceSpan) -> SourceSpan) -> Expression {
    func map(_ e: Expression) -> Expression { e.mappingSpans(transform) }
    let kind: ExpressionKind
    switch self.kind {
    case .boolean, .number, .duration, .identifier, .anyAttribute, .variable: kind = self.kind
    case .string(var literal):
      literal.modifierSpan = literal.modifierSpan.map(transform)
      literal.boostSpan = literal.boostSpan.map(transform)
      kind = .string(literal)
    case .time(var literal):
      literal.functionSpan = transform(literal.functionSpan)
      kind = .time(literal)
    case .unary(let op, let operand): kind = .unary(op, map(operand))
    case .binary(let op, let lhs, let rhs): kind = .binary(op, map(lhs), map(rhs))
    case .comparison(let op, let lhs, let rhs, let modifiers): kind = .comparison(op, map(lhs), map(rhs), bracketModifiers: modifiers)
    case .call(let name, let nameSpan, let arguments):
      kind = .call(name: name, nameSpan: transform(nameSpan), arguments: arguments.map {
        Argument(label: $0.label, labelSpan: $0.labelSpan.map(transform), value: map($0.value))
      })
    case .similar(var similar):
      similar.maxDistanceSpan = similar.maxDistanceSpan.map(transform)
      similar.maxCountSpan = similar.maxCountSpan.map(transform)
      kind = .similar(similar)
    }
    return Expression(kind, transform(span))
  }
}

extension StageSyntax {
  /// The stage with every span transformed (see `Expression.mappingSpans`).
  public func mappingSpans(_ transform: (SourceSpan) -> SourceSpan) -> StageSyntax {
    let arguments: Arguments
    switch self.arguments {
    case .clauses(let clauses): arguments = .clauses(clauses.map { $0.map { $0.mappingSpans(transform) } })
    case .call(let list):
      arguments = .call(list.map { Argument(label: $0.label, labelSpan: $0.labelSpan.map(transform), value: $0.value.mappingSpans(transform)) })
    case .branches(let branches): arguments = .branches(branches.map { $0.mappingSpans(transform) })
    }
    return StageSyntax(name: name, nameSpan: transform(nameSpan), arguments: arguments, label: label, labelSpan: labelSpan.map(transform),
                       span: transform(span))
  }
}

extension PipelineSyntax {
  /// The pipeline with every span transformed (see `Expression.mappingSpans`).
  public func mappingSpans(_ transform: (SourceSpan) -> SourceSpan) -> PipelineSyntax {
    let source: SourceSyntax?
    switch self.source {
    case .search(let predicate, let keywordSpan)?: source = .search(predicate.mappingSpans(transform), keywordSpan: transform(keywordSpan))
    case .reference(let name, let span)?: source = .reference(name, transform(span))
    case .merge(let names, let spans, let keywordSpan)?: source = .merge(names, spans.map(transform), keywordSpan: transform(keywordSpan))
    case nil: source = nil
    }
    return PipelineSyntax(source: source, stages: stages.map { $0.mappingSpans(transform) }, span: transform(span))
  }
}

extension QuerySyntax {
  /// The query with every span transformed (see `Expression.mappingSpans`).
  public func mappingSpans(_ transform: (SourceSpan) -> SourceSpan) -> QuerySyntax {
    QuerySyntax(statements: statements.map {
      StatementSyntax(name: $0.name, nameSpan: $0.nameSpan.map(transform), isLet: $0.isLet, pipeline: $0.pipeline.mappingSpans(transform),
                      span: transform($0.span))
    }, span: transform(span))
  }

  /// The query without where it was written: two queries with the same structure are equal
  /// whatever their spacing, parentheses or source.
  public var structure: QuerySyntax { mappingSpans { _ in SourceSpan(0, 0) } }
}
