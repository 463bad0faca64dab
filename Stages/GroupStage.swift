import QueryEngine

/// Groups items by the values of an attribute; an item with several values (keywords)
/// joins each of their groups.
public struct GroupStage: StageDefinition {
  public init() {}

  public let descriptor = StageDescriptor(
    name: "group", abstract: "Group items by an attribute's values; an item with several values joins each group.",
    usage: "group by ATTRIBUTE",
    signatures: [.init(.items, .groupedItems), .init(.scoredItems, .groupedItems)],
    parameters: [StageParameter("by", .attribute, "The attribute to group by", required: true)],
    examples: [
      #"search domainIdentifier == "trails" | group by stateOrProvince | count"#,
      #"search domainIdentifier == "trails" | group by keywords | count | limit 5"#,
    ])

  public func bind(_ call: StageSyntax, input: PipelineType, context: inout StageBindingContext) -> (any BoundStage)? {
    guard let clauses = context.clauses(call) else { return nil }
    var clause = clauses.first ?? []
    if let first = clause.first?.identifierName, first == "by" { clause.removeFirst() }
    guard clauses.count == 1, clause.count == 1 else {
      context.report(Diagnostic("stage.usage", "'group' needs one attribute", at: call.span, help: "write group by ATTRIBUTE"))
      return nil
    }
    guard let target = context.bindAttribute(clause[0], purpose: "group by") else { return nil }
    if case .anyText = target {
      context.report(Diagnostic("stage.usage", "group by needs one attribute, not '*'", at: clause[0].span))
      return nil
    }
    return Bound(target: target)
  }

  struct Bound: BoundStage {
    let target: AttributeTarget
    var outputType: PipelineType { .groupedItems }
    var explanation: String { "group by \(target.displayName)" }
    /// The column the groups' key becomes in a table.
    var outputColumns: [String]? { [target.displayName] }

    func push(into plan: inout SQLPlan) -> Bool {
      guard plan.groupBy == nil, plan.aggregate == nil, plan.limit == nil else { return false }
      plan.groupBy = target
      return true
    }

    func execute(_ input: PipelineData, context: any StageContext) throws -> PipelineData {
      .groupedItems(Aggregation.group(input.resultItems, by: target))
    }
  }
}
