import QueryEngine

/// Scores items with an expression and orders them best first.
public struct ScoreStage: StageDefinition {
  public init() {}

  public let descriptor = StageDescriptor(
    name: "score",
    abstract: "Score items with an expression (relevance, attributes, recency, arithmetic) and order them best first.",
    usage: "score EXPRESSION",
    signatures: [.init(.items, .scoredItems), .init(.scoredItems, .scoredItems)],
    parameters: [StageParameter("expression", .expression, "A scoring expression, e.g. 0.7 * relevance + 0.3 * recency(contentModificationDate, 30d)", required: true)],
    examples: [
      #"search "budget" | score 0.7 * relevance + 0.3 * recency(contentModificationDate, 30d) | top 5 | table title, contentModificationDate"#,
      #"search domainIdentifier == "trails" | score rating / 5 + 0.2 * log(distance) | top 3"#,
    ])

  public func bind(_ call: StageSyntax, input: PipelineType, context: inout StageBindingContext) -> (any BoundStage)? {
    guard let expression = context.singleExpression(call, usage: descriptor.usage),
      let (bound, type) = context.bindValue(expression)
    else { return nil }
    guard type != .string, type != .boolean else {
      context.report(Diagnostic("type.score-not-number", "a score must be a number, found \(type == .string ? "text" : "a condition")",
                                at: expression.span, help: "use if(condition, 1, 0) to score a condition"))
      return nil
    }
    return Bound(expression: bound, terms: Self.terms(of: bound, source: context.source, syntax: expression))
  }

  /// The additive terms of a score, for `--why`: `0.7 * relevance + 0.3 * recency(...)` has two.
  static func terms(of expression: BoundExpression, source: SourceText, syntax: Expression) -> [(String, BoundExpression)] {
    var terms: [(String, BoundExpression)] = []
    func collect(_ bound: BoundExpression, _ syntax: Expression, negate: Bool) {
      if case .arithmetic(let op, let lhs, let rhs) = bound, op == .add || op == .subtract,
        case .binary(_, let lhsSyntax, let rhsSyntax) = syntax.kind
      {
        collect(lhs, lhsSyntax, negate: negate)
        collect(rhs, rhsSyntax, negate: negate != (op == .subtract))
      } else {
        terms.append(((negate ? "-" : "") + source.text(of: syntax), negate ? .negate(bound) : bound))
      }
    }
    collect(expression, syntax, negate: false)
    return terms
  }

  struct Bound: BoundStage {
    let expression: BoundExpression
    let terms: [(String, BoundExpression)]
    var outputType: PipelineType { .scoredItems }
    var explanation: String { "score each item, best first" }

    /// The attributes the expression reads, so the stage gets items with only those; nil
    /// when it tests any text or reads embeddings (those read the whole item).
    var attributesRead: Set<String>? { expression.attributesRead }
    var readsItemFields: Bool { expression.readsItemFields }
    var usesEmbeddings: Bool { expression.usesEmbeddings }

    func execute(_ input: PipelineData, context: any StageContext) throws -> PipelineData {
      let score = scorer(context: context)
      var scored: [ResultItem] = []
      scored.reserveCapacity(input.resultItems.count)
      for var item in input.resultItems {
        try context.cancellation.check()
        try score(&item)
        scored.append(item)
      }
      return .scoredItems(Self.bestFirst(scored, by: { $0.score ?? 0 }))
    }

    func itemScorer(context: any StageContext) -> ItemScorer? { scorer(context: context) }

    private func scorer(context: any StageContext) -> ItemScorer {
      let evaluator = ExpressionEvaluator(context: context)
      let expression = expression, terms = terms
      if terms.count > 1 {
        let names = terms.map(\.0)
        return { item in
          var total = 0.0
          item.scoreTerms = []
          item.scoreTerms.reserveCapacity(terms.count)
          for (offset, (_, term)) in terms.enumerated() {
            let value = try evaluator.score(term, on: item)
            item.scoreTerms.append(ScoreTerm(name: names[offset], value: value))
            total += value
          }
          item.score = total
        }
      }
      let name = terms.first?.0 ?? "score"
      return { item in
        let value = try evaluator.score(expression, on: item)
        item.score = value
        item.scoreTerms = [ScoreTerm(name: name, value: value)]
      }
    }

    /// The first `limit` of `items` ordered by `key`, highest first; ties keep their order.
    /// The keys and positions are sorted, not the items (a quarter of a million of them
    /// moved about took half of `score` and of `top` after it).
    static func bestFirst(_ items: [ResultItem], by key: (ResultItem) -> Double, limit: Int = .max) -> [ResultItem] {
      var order = items.indices.map { (key: key(items[$0]), offset: $0) }
      order.sort { a, b in a.key != b.key ? a.key > b.key : a.offset < b.offset }
      return order.prefix(limit).map { items[$0.offset] }
    }
  }
}

// Terms are (label, expression) pairs; both parts are Sendable values.
extension ScoreStage.Bound: @unchecked Sendable {}
