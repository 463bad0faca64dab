import QueryEngine

/// Keeps the first N items in their current order, optionally after skipping M.
public struct LimitStage: StageDefinition {
  public init() {}

  public let descriptor = StageDescriptor(
    name: "limit", abstract: "Keep the first N items in their current order, optionally after skipping M.",
    usage: "limit N [offset M]",
    signatures: [.init(.items, .items), .init(.scoredItems, .scoredItems), .init(.groupedItems, .groupedItems), .init(.table, .table)],
    parameters: [
      StageParameter("count", .integer, "How many to keep", required: true),
      StageParameter("offset", .integer, "How many to skip first", default: .number(0), range: 0...1_000_000),
    ],
    examples: [
      #"search domainIdentifier == "trails" | sort distance desc | limit 3 | table title, distance"#,
      #"search domainIdentifier == "trails" | sort distance desc | limit 3 offset 3 | table title, distance"#,
    ])

  public func bind(_ call: StageSyntax, input: PipelineType, context: inout StageBindingContext) -> (any BoundStage)? {
    guard let clauses = context.clauses(call) else { return nil }
    // `limit N` or `limit N offset M`.
    guard clauses.count == 1, clauses[0].count == 1 || (clauses[0].count == 3 && clauses[0][1].identifierName == "offset") else {
      let span = clauses.first.map { $0.count > 1 ? $0[1].span : call.span } ?? call.span
      context.report(Diagnostic("stage.usage", clauses.isEmpty ? "'limit' needs an argument" : "unexpected argument to 'limit'",
                                at: clauses.isEmpty ? call.nameSpan : span, help: "write \(descriptor.usage)"))
      return nil
    }
    guard let count = context.bindInteger(clauses[0][0], name: "limit", range: 0...1_000_000) else { return nil }
    var offset = 0
    if clauses[0].count == 3 {
      guard let skipped = context.bindInteger(clauses[0][2], name: "offset", range: 0...1_000_000) else { return nil }
      offset = skipped
    }
    return Bound(count: count, offset: offset, outputType: input, outputColumns: context.inputColumns)
  }

  struct Bound: BoundStage {
    let count: Int
    var offset = 0
    let outputType: PipelineType
    /// A table's (or groups') columns, which it keeps.
    var outputColumns: [String]? = nil
    var explanation: String { offset == 0 ? "keep the first \(count)" : "skip \(offset), then keep the first \(count)" }
    /// Positions only.
    var attributesRead: Set<String>? { [] }
    var readsItemFields: Bool { false }
    var keepsFirstScored: Int? { offset == 0 && outputType == .scoredItems ? count : nil }

    func push(into plan: inout SQLPlan) -> Bool {
      // Skipping runs in Swift over the items SQLite returns (an offset after a LIMIT already
      // pushed would skip from the wrong place).
      guard offset == 0, plan.groupBy == nil, plan.aggregate == nil, outputType != .groupedItems, outputType != .table else { return false }
      plan.limit = min(plan.limit ?? .max, count)
      return true
    }

    func execute(_ input: PipelineData, context: any StageContext) throws -> PipelineData {
      switch input {
      case .groupedItems(var grouped):
        grouped.groups = Array(grouped.groups.dropFirst(offset).prefix(count))
        return .groupedItems(grouped)
      case .table(var table):
        table.rows = Array(table.rows.dropFirst(offset).prefix(count))
        return .table(table)
      default:
        return input.replacingItems(Array(input.resultItems.dropFirst(offset).prefix(count)))
      }
    }
  }
}
