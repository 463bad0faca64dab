import QueryEngine
import SearchIndex

/// Picks one element: an item of each group, the largest group, a row of a table, or an item
/// of a list (Apple's `itemSelect`).
public struct SelectStage: StageDefinition {
  public init() {}

  public let descriptor = StageDescriptor(
    name: "select",
    abstract: "Pick one element: first, last, nth N, max-by or min-by an attribute (or count: the largest group, the top table row).",
    usage: "select first | last | nth N | max-by KEY | min-by KEY",
    signatures: [
      .init(.groupedItems, .items), .init(.groupedItems, .groupedItems), .init(.items, .items),
      .init(.scoredItems, .scoredItems), .init(.table, .table),
    ],
    parameters: [StageParameter("which", .string, "first, last, nth N, max-by KEY or min-by KEY", required: true)],
    examples: [
      #"search domainIdentifier == "trails" | group by stateOrProvince | select max-by rating"#,
      #"search domainIdentifier == "trails" | group by stateOrProvince | count | select max-by count"#,
    ])

  enum Which: Sendable {
    case first, last
    case nth(Int)
    case maxBy(BoundExpression?, column: String)
    case minBy(BoundExpression?, column: String)
  }

  public func bind(_ call: StageSyntax, input: PipelineType, context: inout StageBindingContext) -> (any BoundStage)? {
    guard let clauses = context.clauses(call), clauses.count == 1, let word = clauses[0].first?.identifierName else {
      context.report(Diagnostic("stage.usage", "'select' needs first, last, nth N, max-by KEY or min-by KEY", at: call.span,
                                help: "write \(descriptor.usage)"))
      return nil
    }
    let clause = clauses[0]
    let which: Which
    switch (word, clause.count) {
    case ("first", 1): which = .first
    case ("last", 1): which = .last
    case ("nth", 2):
      guard let n = context.bindInteger(clause[1], name: "nth", range: 1...1_000_000) else { return nil }
      which = .nth(n)
    case ("max-by", 2), ("min-by", 2):
      var keyName = clause[1].identifierName ?? ""
      var key: BoundExpression?
      if input == .table {
        // A column: `count`, `"avg(distance)"` or `avg(distance)`.
        guard let column = context.tableColumn(clause[1], purpose: "'\(word)' on a table") else { return nil }
        keyName = column
      } else if !(keyName == "count" && input == .groupedItems) {
        // `count` picks the largest group.
        guard let (bound, _) = context.bindValue(clause[1]) else { return nil }
        key = bound
      }
      which = word == "max-by" ? .maxBy(key, column: keyName) : .minBy(key, column: keyName)
    default:
      context.report(Diagnostic("stage.usage", "unknown selection '\(context.source.slice(clause[0].span))'", at: clause[0].span,
                                help: "write \(descriptor.usage)")
        .suggesting(closestMatch(to: word, in: ["first", "last", "nth", "max-by", "min-by"])))
      return nil
    }
    var output = input
    if input == .groupedItems {
      switch which {
      case .maxBy(nil, _), .minBy(nil, _): output = .groupedItems
      default: output = .items
      }
    }
    return Bound(
      which: which, outputType: output, outputColumns: output == input ? context.inputColumns : nil,
      picksAnItem: input == .items || input == .scoredItems)
  }

  struct Bound: BoundStage {
    let which: Which
    let outputType: PipelineType
    /// A table's (or groups') columns, when it keeps them.
    var outputColumns: [String]? = nil
    /// True when the input is items (not groups, not a table): then the element picked is
    /// an item, found by position or by its key alone, and only it is read whole
    /// (`search "budget" | select first` read a quarter of a million records at 1M).
    var picksAnItem = false
    var explanation: String { "select one element" }

    /// The first item is a limit of one (a sort's walk then stops at its first entry).
    func push(into plan: inout SQLPlan) -> Bool {
      guard picksAnItem, case .first = which, plan.groupBy == nil, plan.aggregate == nil else { return false }
      plan.limit = min(plan.limit ?? .max, 1)
      return true
    }

    /// Over groups, the first or the nth item of each reads no more of it.
    var itemsPerGroupRead: Int? {
      guard !picksAnItem, outputType == .items else { return nil }
      switch which {
      case .first: return 1
      case .nth(let n): return n
      default: return nil
      }
    }

    var readsOnlyPositions: Bool {
      guard picksAnItem else { return false }
      switch which {
      case .first, .last, .nth, .maxBy(nil, _), .minBy(nil, _): return true
      case .maxBy, .minBy: return false
      }
    }

    /// The first or the last: `execute` picks the same from that one item. (Not the nth,
    /// which `execute` counts among all of them: it gets every position, as rowids alone.)
    func keptPositions(among count: Int) -> [Int]? {
      guard picksAnItem else { return nil }
      switch which {
      case .first, .maxBy(nil, _), .minBy(nil, _): return count > 0 ? [0] : []
      case .last: return count > 0 ? [count - 1] : []
      case .nth, .maxBy, .minBy: return nil
      }
    }

    /// The expression `max-by` or `min-by` compares, when it has one: all that picking an
    /// item reads beside positions.
    private var key: BoundExpression? {
      switch which {
      case .maxBy(let key?, _), .minBy(let key?, _): key
      default: nil
      }
    }

    var attributesRead: Set<String>? {
      guard picksAnItem else { return nil }
      guard let key else { return [] }
      return key.attributesRead
    }

    var readsItemFields: Bool { picksAnItem ? key?.readsItemFields ?? false : true }
    var usesEmbeddings: Bool { key?.usesEmbeddings ?? false }

    func execute(_ input: PipelineData, context: any StageContext) throws -> PipelineData {
      let evaluator = ExpressionEvaluator(context: context)
      switch input {
      case .groupedItems(var grouped):
        if outputType == .groupedItems {
          let descending: Bool = if case .maxBy = which { true } else { false }
          let pick = grouped.groups.enumerated().max { a, b in
            a.element.count != b.element.count ? (descending ? a.element.count < b.element.count : a.element.count > b.element.count) : a.offset > b.offset
          }
          grouped.groups = pick.map { [$0.element] } ?? []
          return .groupedItems(grouped)
        }
        var picked: [ResultItem] = []
        for group in grouped.groups {
          if let item = try pick(from: group.items, evaluator) { picked.append(item) }
        }
        return .items(picked)
      case .table(var table):
        table.rows = try pickRow(table).map { [$0] } ?? []
        return .table(table)
      default:
        return input.replacingItems(try pick(from: input.resultItems, evaluator).map { [$0] } ?? [])
      }
    }

    private func pick(from items: [ResultItem], _ evaluator: ExpressionEvaluator) throws -> ResultItem? {
      switch which {
      case .first: return items.first
      case .last: return items.last
      case .nth(let n): return n <= items.count ? items[n - 1] : nil
      case .maxBy(let key, _), .minBy(let key, _):
        guard let key else { return items.first }
        let isMax: Bool = if case .maxBy = which { true } else { false }
        var best: (ResultItem, Double)?
        for item in items {
          guard let value = try evaluator.evaluate(key, on: item).number else { continue }
          if best == nil || (isMax ? value > best!.1 : value < best!.1) { best = (item, value) }
        }
        return best?.0
      }
    }

    private func pickRow(_ table: Table) throws -> [Value]? {
      switch which {
      case .first: return table.rows.first
      case .last: return table.rows.last
      case .nth(let n): return n <= table.rows.count ? table.rows[n - 1] : nil
      case .maxBy(_, let column), .minBy(_, let column):
        let index = try table.columnIndex(of: column)
        let isMax: Bool = if case .maxBy = which { true } else { false }
        return table.rows.filter { $0[index].number != nil }.max { a, b in
          isMax ? a[index].number! < b[index].number! : a[index].number! > b[index].number!
        }
      }
    }
  }
}
