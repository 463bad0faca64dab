import QueryEngine

/// Counts items, or the items of each group.
public struct CountStage: StageDefinition {
  public init() {}

  public let descriptor = StageDescriptor(
    name: "count", abstract: "Count the items; after group by, a table of each group's key and count.",
    usage: "count",
    signatures: [.init(.items, .count), .init(.scoredItems, .count), .init(.groupedItems, .table)],
    examples: [#"search "budget" | count"#, #"search domainIdentifier == "mail*" | group by domainIdentifier | count"#])

  public func bind(_ call: StageSyntax, input: PipelineType, context: inout StageBindingContext) -> (any BoundStage)? {
    guard let clauses = context.clauses(call) else { return nil }
    if let first = clauses.first?.first {
      context.report(Diagnostic("stage.usage", "'count' takes no arguments", at: first.span,
                                help: "to count per value, write group by ATTRIBUTE | count"))
      return nil
    }
    return Bound(outputType: input == .groupedItems ? .table : .count, keyColumns: context.inputColumns)
  }

  struct Bound: BoundStage {
    let outputType: PipelineType
    /// The groups' key column, when known.
    var keyColumns: [String]?
    var outputColumns: [String]? { outputType == .table ? keyColumns.map { $0 + ["count"] } : nil }
    var explanation: String { outputType == .table ? "count the items of each group" : "count the items" }
    /// A count of items reads none of them: items carrying a few values (after `score`) or
    /// rowids alone serve it, and are never read whole.
    var attributesRead: Set<String>? { [] }
    var readsItemFields: Bool { false }
    var readsOnlyPositions: Bool { outputType == .count }

    func push(into plan: inout SQLPlan) -> Bool {
      guard plan.aggregate == nil else { return false }
      if let group = plan.groupBy {
        plan.groupBy = nil
        plan.aggregate = .groupCount(group)
      } else {
        plan.aggregate = .count
      }
      return true
    }

    func execute(_ input: PipelineData, context: any StageContext) throws -> PipelineData {
      if case .groupedItems(let grouped) = input {
        return .table(Table(columns: [grouped.attribute, "count"], rows: grouped.groups.map { [$0.key, .number(Double($0.count))] }))
      }
      return .count(input.resultItems.count)
    }
  }
}
