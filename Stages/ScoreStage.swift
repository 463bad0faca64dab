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
    /// when it tests text or reads embeddings (those read the whole item).
    var attributesRead: Set<String>? { Self.attributes(readBy: expression) }
    var readsItemFields: Bool { Self.readsItemFields(expression) }

    /// Whether the expression reads an item field or the engagement.
    static func readsItemFields(_ expression: BoundExpression) -> Bool {
      switch expression {
      case .constant, .relevance, .score, .attribute(.attribute): return false
      case .negate(let part): return readsItemFields(part)
      case .arithmetic(_, let a, let b), .compare(_, let a, let b): return readsItemFields(a) || readsItemFields(b)
      case .function(_, let arguments): return arguments.contains(where: readsItemFields)
      default: return true
      }
    }

    static func attributes(readBy expression: BoundExpression) -> Set<String>? {
      func union(_ parts: [BoundExpression]) -> Set<String>? {
        var names: Set<String> = []
        for part in parts {
          guard let read = attributes(readBy: part) else { return nil }
          names.formUnion(read)
        }
        return names
      }
      switch expression {
      case .constant, .relevance, .score, .engagement, .attribute(.itemField): return []
      case .attribute(.attribute(let name, _)): return [name]
      case .negate(let part): return attributes(readBy: part)
      case .arithmetic(_, let a, let b), .compare(_, let a, let b): return union([a, b])
      case .function(.similarity, _): return nil
      // The item's own position.
      case .function(.distance, let arguments): return union(arguments).map { $0.union(["latitude", "longitude"]) }
      case .function(_, let arguments): return union(arguments)
      default: return nil
      }
    }

    func execute(_ input: PipelineData, context: any StageContext) throws -> PipelineData {
      let evaluator = ExpressionEvaluator(context: context)
      var scored: [ResultItem] = []
      for var item in input.resultItems {
        try context.cancellation.check()
        if terms.count > 1 {
          var total = 0.0
          item.scoreTerms = []
          for (name, term) in terms {
            let value = try evaluator.score(term, on: item)
            item.scoreTerms.append(ScoreTerm(name: name, value: value))
            total += value
          }
          item.score = total
        } else {
          let value = try evaluator.score(expression, on: item)
          item.score = value
          item.scoreTerms = [ScoreTerm(name: terms.first?.0 ?? "score", value: value)]
        }
        scored.append(item)
      }
      return .scoredItems(Self.bestFirst(scored))
    }

    /// Orders by score, highest first; ties keep their order.
    static func bestFirst(_ items: [ResultItem]) -> [ResultItem] {
      items.enumerated().sorted { a, b in
        let x = a.element.score ?? 0, y = b.element.score ?? 0
        return x != y ? x > y : a.offset < b.offset
      }.map(\.element)
    }
  }
}

// Terms are (label, expression) pairs; both parts are Sendable values.
extension ScoreStage.Bound: @unchecked Sendable {}
