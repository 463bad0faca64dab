import QueryEngine

/// Keeps the first N items in their current order.
public struct LimitStage: StageDefinition {
  public init() {}

  public let descriptor = StageDescriptor(
    name: "limit", abstract: "Keep the first N items in their current order.",
    usage: "limit N",
    signatures: [.init(.items, .items), .init(.scoredItems, .scoredItems), .init(.groupedItems, .groupedItems), .init(.table, .table)],
    parameters: [StageParameter("count", .integer, "How many to keep", required: true)],
    examples: [#"search domainIdentifier == "trails" | sort distance desc | limit 3 | table title, distance"#])

  public func bind(_ call: StageSyntax, input: PipelineType, context: inout StageBindingContext) -> (any BoundStage)? {
    guard let expression = context.singleExpression(call, usage: descriptor.usage),
      let count = context.bindInteger(expression, name: "limit", range: 0...1_000_000)
    else { return nil }
    return Bound(count: count, outputType: input)
  }

  struct Bound: BoundStage {
    let count: Int
    let outputType: PipelineType
    var explanation: String { "keep the first \(count)" }

    func push(into plan: inout SQLPlan) -> Bool {
      guard plan.groupBy == nil, plan.aggregate == nil, outputType != .groupedItems, outputType != .table else { return false }
      plan.limit = min(plan.limit ?? .max, count)
      return true
    }

    func execute(_ input: PipelineData, context: any StageContext) throws -> PipelineData {
      switch input {
      case .groupedItems(var grouped):
        grouped.groups = Array(grouped.groups.prefix(count))
        return .groupedItems(grouped)
      case .table(var table):
        table.rows = Array(table.rows.prefix(count))
        return .table(table)
      default:
        return input.replacingItems(Array(input.resultItems.prefix(count)))
      }
    }
  }
}
