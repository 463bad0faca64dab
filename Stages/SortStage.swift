import QueryEngine
import SearchIndex

/// Orders items by attributes, relevance, score or expressions, or a table's rows by its columns.
public struct SortStage: StageDefinition {
  public init() {}

  public let descriptor = StageDescriptor(
    name: "sort", abstract: "Order items (or a table's rows) by one or more keys, each ascending (default) or descending.",
    usage: "sort [by] KEY [asc|desc], ...",
    signatures: [.init(.items, .items), .init(.scoredItems, .scoredItems), .init(.table, .table)],
    parameters: [
      StageParameter(
        "keys", .attributes, "Attributes, relevance, score or expressions (a table's column names), each followed by asc or desc",
        required: true)
    ],
    examples: [
      #"search domainIdentifier == "trails" | sort rating desc, title | limit 5 | table title, rating"#,
      #"search contentType == "email" | sort contentCreationDate desc | limit 3"#,
      #"search domainIdentifier == "trails" | stats avg(distance) by stateOrProvince | sort avg(distance) desc | limit 3"#,
    ])

  public func bind(_ call: StageSyntax, input: PipelineType, context: inout StageBindingContext) -> (any BoundStage)? {
    guard var clauses = context.clauses(call) else { return nil }
    // `sort by rating desc` reads as `sort rating desc` (as in `group by`); a lone `by` or
    // `by desc` is an attribute named by.
    if let first = clauses.first, first.count >= 2, first[0].identifierName == "by",
      !(first.count == 2 && ["asc", "desc"].contains(first[1].identifierName))
    {
      clauses[0].removeFirst()
    }
    guard !clauses.isEmpty else {
      context.report(Diagnostic("stage.usage", "'sort' needs at least one key", at: call.nameSpan, help: "write \(descriptor.usage)"))
      return nil
    }
    var keys: [Key] = []
    var columns: [Column] = []
    for clause in clauses {
      var descending = false
      if clause.count == 2, let word = clause[1].identifierName, word == "asc" || word == "desc" {
        descending = word == "desc"
      } else if clause.count != 1 {
        var diagnostic = Diagnostic("stage.usage", "expected asc or desc after the sort key", at: clause[1].span, help: "write \(descriptor.usage)")
        // `descending`, `ascending`, `DESC`: the direction meant.
        if clause.count == 2, let word = clause[1].identifierName?.lowercased() {
          diagnostic = diagnostic.suggesting(word.hasPrefix("desc") ? "desc" : word.hasPrefix("asc") ? "asc" : nil)
        }
        context.report(diagnostic)
        return nil
      }
      if input == .table {
        guard let name = context.tableColumn(clause[0], purpose: "sorting a table") else { return nil }
        columns.append(Column(name: name, descending: descending))
        continue
      }
      guard let (bound, type) = context.bindValue(clause[0]) else { return nil }
      if type == .boolean {
        context.report(Diagnostic("type.sort-key", "cannot sort by a condition", at: clause[0].span))
        return nil
      }
      keys.append(Key(expression: bound, descending: descending))
    }
    return Bound(keys: keys, columns: columns, outputType: input, outputColumns: context.inputColumns)
  }

  /// A key of a table's sort: a column and its direction.
  struct Column: Sendable {
    var name: String
    var descending: Bool
  }

  struct Key: Sendable {
    var expression: BoundExpression
    var descending: Bool
  }

  struct Bound: BoundStage {
    let keys: [Key]
    var usesEmbeddings: Bool { keys.contains { $0.expression.usesEmbeddings } }
    /// The keys of a table's sort (`keys` is empty then).
    var columns: [Column] = []
    let outputType: PipelineType
    /// A table's columns, which it keeps.
    var outputColumns: [String]? = nil
    var explanation: String {
      outputType == .table
        ? "sort the rows by \(columns.map(\.name).joined(separator: ", "))"
        : "sort by \(keys.count) key\(keys.count == 1 ? "" : "s")"
    }

    func push(into plan: inout SQLPlan) -> Bool {
      guard outputType != .table, plan.acceptsSort else { return false }
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
      if case .table(var table) = input {
        let indexes = try columns.map { try table.columnIndex(of: $0.name) }
        let descending = columns.map(\.descending)
        let keyed = table.rows.enumerated().map { offset, row in (offset, indexes.map { row[$0] }) }
        table.rows = Self.sorted(keyed, descending: descending).map { table.rows[$0] }
        return .table(table)
      }
      let evaluator = ExpressionEvaluator(context: context)
      let items = input.resultItems
      var rows: [(Int, [Value])] = []
      for (offset, item) in items.enumerated() {
        try context.cancellation.check()
        rows.append((offset, try keys.map { try evaluator.evaluate($0.expression, on: item) }))
      }
      return input.replacingItems(Self.sorted(rows, descending: keys.map(\.descending)).map { items[$0] })
    }

    /// The offsets of `rows` (offset, key values) in the order of their keys, stable.
    static func sorted(_ rows: [(Int, [Value])], descending: [Bool]) -> [Int] {
      rows.sorted { a, b in
        for (index, descending) in descending.enumerated() {
          let x = a.1[index], y = b.1[index]
          if x == y { continue }
          // Missing values sort last in both directions.
          if case .null = x { return false }
          if case .null = y { return true }
          // Values that order the same (Zürich and zurich) fall through to the next key.
          if less(x, y) { return !descending }
          if less(y, x) { return descending }
        }
        return a.0 < b.0
      }.map(\.0)
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
