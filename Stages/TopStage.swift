import QueryEngine

/// Keeps the N best items: highest score, else highest relevance, else the first N.
public struct TopStage: StageDefinition {
  public init() {}

  public let descriptor = StageDescriptor(
    name: "top", abstract: "Keep the N best items: highest score first, or highest text relevance.",
    usage: "top N",
    signatures: [.init(.items, .items), .init(.scoredItems, .scoredItems)],
    parameters: [StageParameter("count", .integer, "How many items to keep", default: .number(10), range: 1...10_000)],
    examples: [#"search "launch" | top 3"#, #"search domainIdentifier == "trails" | score rating | top 5 | table title, rating"#],
    hints: [.table: "for the first rows, write limit N", .groupedItems: "for the first groups, write limit N"])

  public func bind(_ call: StageSyntax, input: PipelineType, context: inout StageBindingContext) -> (any BoundStage)? {
    guard let clauses = context.clauses(call) else { return nil }
    var count = 10
    if !clauses.isEmpty {
      guard clauses.count == 1, clauses[0].count == 1 else {
        var help = "write top N"
        // `top 5 by rating`: the best by an attribute is a sort.
        if clauses.count == 1, clauses[0].count == 3, clauses[0][1].identifierName == "by", let name = clauses[0][2].identifierName {
          help = "top keeps the best by relevance or score; for the highest \(name), write sort \(name) desc | limit \(context.source.slice(clauses[0][0].span))"
        }
        context.report(Diagnostic("stage.usage", "unexpected argument to 'top'", at: call.span, help: help))
        return nil
      }
      guard let n = context.bindInteger(clauses[0][0], name: "top", range: 1...10_000) else { return nil }
      count = n
    }
    return Bound(count: count, outputType: input)
  }

  struct Bound: BoundStage {
    let count: Int
    let outputType: PipelineType
    var explanation: String { "keep the best \(count)" }
    /// Scores and relevance only.
    var attributesRead: Set<String>? { [] }
    var readsItemFields: Bool { false }
    /// The best of scored items are their first.
    var keepsFirstScored: Int? { outputType == .scoredItems ? count : nil }

    func push(into plan: inout SQLPlan) -> Bool {
      guard plan.groupBy == nil, plan.aggregate == nil else { return false }
      // Ranked searches come out best first already; otherwise keep the current order.
      plan.limit = min(plan.limit ?? .max, count)
      return true
    }

    func execute(_ input: PipelineData, context: any StageContext) throws -> PipelineData {
      let items = input.resultItems
      if case .scoredItems = input {
        return input.replacingItems(ScoreStage.Bound.bestFirst(items, by: { $0.score ?? 0 }, limit: count))
      }
      if items.contains(where: { $0.relevance != 0 }) {
        return input.replacingItems(ScoreStage.Bound.bestFirst(items, by: \.relevance, limit: count))
      }
      return input.replacingItems(Array(items.prefix(count)))
    }
  }
}
