import QueryEngine

/// Keeps the items for which a condition holds (Apple's `filter`).
public struct WhereStage: StageDefinition {
  public init() {}

  public let descriptor = StageDescriptor(
    name: "where", abstract: "Keep the items for which a condition holds.",
    usage: "where CONDITION",
    signatures: [.init(.items, .items), .init(.scoredItems, .scoredItems)],
    parameters: [StageParameter("condition", .condition, "A predicate over attributes, relevance or score", required: true)],
    examples: [
      #"search domainIdentifier == "trails" | where rating >= 4.7 | table title, rating"#,
      #"search "budget" | score relevance | where score > 0 | count"#,
    ])

  public func bind(_ call: StageSyntax, input: PipelineType, context: inout StageBindingContext) -> (any BoundStage)? {
    guard let expression = context.singleExpression(call, usage: descriptor.usage),
      let condition = context.bindCondition(expression)
    else { return nil }
    return Bound(condition: condition, outputType: input)
  }

  struct Bound: BoundStage {
    let condition: BoundExpression
    let outputType: PipelineType
    var explanation: String { "keep items where the condition holds" }
    /// A condition on a few attributes gets items with only those (`where score > 1` over
    /// the matches of a text search reads no record); the items it keeps are read whole later.
    var attributesRead: Set<String>? { condition.attributesRead }
    var readsItemFields: Bool { condition.readsItemFields }
    var usesEmbeddings: Bool { condition.usesEmbeddings }

    func push(into plan: inout SQLPlan) -> Bool {
      guard condition.isStoredOnly, plan.acceptsFilter else { return false }
      plan.addFilter(condition)
      return true
    }

    func execute(_ input: PipelineData, context: any StageContext) throws -> PipelineData {
      let evaluator = ExpressionEvaluator(context: context)
      var kept: [ResultItem] = []
      for item in input.resultItems {
        try context.cancellation.check()
        if try evaluator.evaluate(condition, on: item).truth { kept.append(item) }
      }
      return input.replacingItems(kept)
    }
  }
}
