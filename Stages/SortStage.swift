import QueryEngine
import SearchIndex

/// Orders items by attributes, relevance, score or expressions.
public struct SortStage: StageDefinition {
  public init() {}

  public let descriptor = StageDescriptor(
    name: "sort", abstract: "Order items by one or more keys, each ascending (default) or descending.",
    usage: "sort KEY [asc|desc], ...",
    signatures: [.init(.items, .items), .init(.scoredItems, .scoredItems)],
    parameters: [StageParameter("keys", .attributes, "Attributes, relevance, score or expressions, each followed by asc or desc", required: true)],
    examples: [
      #"search domainIdentifier == "trails" | sort rating desc, title | limit 5 | table title, rating"#,
      #"search contentType == "email" | sort contentCreationDate desc | limit 3"#,
    ])

  public func bind(_ call: StageSyntax, input: PipelineType, context: inout StageBindingContext) -> (any BoundStage)? {
    guard let clauses = context.clauses(call) else { return nil }
    guard !clauses.isEmpty else {
      context.report(Diagnostic("stage.usage", "'sort' needs at least one key", at: call.nameSpan, help: "write \(descriptor.usage)"))
      return nil
    }
    var keys: [Key] = []
    for clause in clauses {
      var descending = false
      if clause.count == 2, let word = clause[1].identifierName, word == "asc" || word == "desc" {
        descending = word == "desc"
      } else if clause.count != 1 {
        context.report(Diagnostic("stage.usage", "expected asc or desc after the sort key", at: clause[1].span, help: "write \(descriptor.usage)"))
        return nil
      }
      guard let (bound, type) = context.bindValue(clause[0]) else { return nil }
      if type == .boolean {
        context.report(Diagnostic("type.sort-key", "cannot sort by a condition", at: clause[0].span))
        return nil
      }
      keys.append(Key(expression: bound, descending: descending))
    }
    return Bound(keys: keys, outputType: input)
  }

  struct Key: Sendable {
    var expression: BoundExpression
    var descending: Bool
  }

  struct Bound: BoundStage {
    let keys: [Key]
    let outputType: PipelineType
    var explanation: String { "sort by \(keys.count) key\(keys.count == 1 ? "" : "s")" }

    func push(into plan: inout SQLPlan) -> Bool {
      guard plan.acceptsSort else { return false }
      var sort: [SQLPlan.SortKey] = []
      for key in keys {
        switch key.expression {
        case .attribute(let target):
          if case .anyText = target { return false }
          if case .anyAttribute = target { return false }
          sort.append(.attribute(target, descending: key.descending))
        case .relevance where key.descending: sort.append(.relevance)
        default: return false
        }
      }
      plan.sort = sort
      return true
    }

    func execute(_ input: PipelineData, context: any StageContext) throws -> PipelineData {
      let evaluator = ExpressionEvaluator(context: context)
      let items = input.resultItems
      var rows: [(Int, [Value])] = []
      for (offset, item) in items.enumerated() {
        try context.cancellation.check()
        rows.append((offset, try keys.map { try evaluator.evaluate($0.expression, on: item) }))
      }
      rows.sort { a, b in
        for (index, key) in keys.enumerated() {
          let x = a.1[index], y = b.1[index]
          if x == y { continue }
          // Missing values sort last in both directions.
          if case .null = x { return false }
          if case .null = y { return true }
          // Values that order the same (Zürich and zurich) fall through to the next key.
          if Self.less(x, y) { return !key.descending }
          if Self.less(y, x) { return key.descending }
        }
        return a.0 < b.0
      }
      return input.replacingItems(rows.map { items[$0.0] })
    }

    /// Numbers and dates by value; text by its folded form (no case, no diacritics), compared
    /// bytewise like the `fold` column SQLite sorts by, so a sort gives the same order in both.
    static func less(_ a: Value, _ b: Value) -> Bool {
      if let x = a.number, let y = b.number, !(a.isText || b.isText) { return x < y }
      return Array(TextFolding.fold(a.displayText).utf8).lexicographicallyPrecedes(TextFolding.fold(b.displayText).utf8)
    }
  }
}

extension Value {
  var isText: Bool { if case .string = self { return true }; return false }
}

import Foundation
