import QueryEngine

/// A table of chosen attributes, one row per item.
public struct TableStage: StageDefinition {
  public init() {}

  public let descriptor = StageDescriptor(
    name: "table", abstract: "A table of the chosen attributes (or expressions), one row per item, columns in the order given.",
    usage: "table ATTRIBUTE, ...",
    signatures: [.init(.items, .table), .init(.scoredItems, .table), .init(.groupedItems, .table), .init(.table, .table)],
    parameters: [StageParameter("columns", .attributes, "Attributes or expressions, in column order", required: true)],
    examples: [#"search domainIdentifier == "trails" && stateOrProvince == "Utah" | table title, rating, distance"#])

  public func bind(_ call: StageSyntax, input: PipelineType, context: inout StageBindingContext) -> (any BoundStage)? {
    guard let clauses = context.clauses(call) else { return nil }
    if input == .table {
      // Keep chosen columns of a table: table count, stateOrProvince.
      var names: [String] = []
      for clause in clauses {
        guard clause.count == 1 else {
          context.report(Diagnostic("stage.usage", "expected ',' between columns", at: clause[1].span))
          return nil
        }
        guard let name = context.tableColumn(clause[0], purpose: "'table' after a table") else { return nil }
        names.append(name)
      }
      guard !names.isEmpty else {
        context.report(Diagnostic("stage.usage", "'table' needs at least one column", at: call.nameSpan))
        return nil
      }
      return Projection(names: names, outputColumns: context.inputColumns(named: names))
    }
    if input == .groupedItems {
      guard clauses.isEmpty else {
        context.report(Diagnostic("stage.usage", "after group by, 'table' takes no columns; it lists each key and count", at: call.span))
        return nil
      }
      return Bound(columns: [], keyColumns: context.inputColumns)
    }
    guard !clauses.isEmpty else {
      context.report(Diagnostic("stage.usage", "'table' needs at least one column", at: call.nameSpan, help: "write table title, rating"))
      return nil
    }
    var columns: [(String, BoundExpression)] = []
    var snippetColumns = Set<Int>()
    for clause in clauses {
      guard clause.count == 1 else {
        context.report(Diagnostic("stage.usage", "expected ',' between columns", at: clause[1].span))
        return nil
      }
      // `snippet`: the passage around the searched words (unless an attribute has that name).
      if case .identifier(Self.snippetColumn) = clause[0].kind, context.binder.resolveAttribute(Self.snippetColumn) == nil {
        snippetColumns.insert(columns.count)
        columns.append((Self.snippetColumn, .constant(.string(""))))
        continue
      }
      guard let (bound, _) = context.bindValue(clause[0]) else { return nil }
      columns.append((context.source.text(of: clause[0]), bound))
    }
    var snippet: Snippet?
    if !snippetColumns.isEmpty {
      let binder = context.binder
      snippet = Snippet(terms: Snippet.terms(in: context.source, before: call.span.start) { name in
        switch binder.resolveAttribute(name) {
        case .attribute(_, let type): type.scalar == .string
        case .anyText: true
        default: false
        }
      })
    }
    return Bound(columns: columns, snippet: snippet, snippetColumns: snippetColumns)
  }

  /// The column name `table` reads as the snippet of each item's text.
  public static let snippetColumn = "snippet"

  /// Chosen columns of a table.
  struct Projection: BoundStage {
    let names: [String]
    /// The input's columns as named, when known.
    let outputColumns: [String]?
    var outputType: PipelineType { .table }
    var explanation: String { "keep the columns \(names.joined(separator: ", "))" }

    func execute(_ input: PipelineData, context: any StageContext) throws -> PipelineData {
      guard case .table(let table) = input else { return input }
      let indexes = try names.map { try table.columnIndex(of: $0) }
      return .table(Table(columns: indexes.map { table.columns[$0] }, rows: table.rows.map { row in indexes.map { row[$0] } }))
    }
  }

  struct Bound: BoundStage, @unchecked Sendable {
    /// Column names and expressions (all Sendable values).
    let columns: [(String, BoundExpression)]
    var usesEmbeddings: Bool { columns.contains { $0.1.usesEmbeddings } }
    /// The searched words, when a column is `snippet`; the positions of those columns.
    var snippet: Snippet? = nil
    var snippetColumns: Set<Int> = []
    /// After groups: their key column, when known.
    var keyColumns: [String]? = nil
    var outputType: PipelineType { .table }
    var outputColumns: [String]? { columns.isEmpty ? keyColumns.map { $0 + ["count"] } : columns.map(\.0) }
    var explanation: String { columns.isEmpty ? "a table of group keys and counts" : "a table of \(columns.map(\.0).joined(separator: ", "))" }
    /// A row per item (not after groups, which make a row per group).
    var makesOneRowPerItem: Bool { !columns.isEmpty }
    /// The attributes its columns name, when every column is an attribute or an item field
    /// (`table title, rating`); nil for expressions and snippets, which may read more.
    var attributesRead: Set<String>? {
      guard snippet == nil else { return nil }
      var names: Set<String> = []
      for (_, expression) in columns {
        switch expression {
        case .attribute(.attribute(let name, _)): names.insert(name)
        case .attribute(.itemField), .relevance, .score, .engagement: continue
        default: return nil
        }
      }
      return names
    }

    func execute(_ input: PipelineData, context: any StageContext) throws -> PipelineData {
      if case .groupedItems(let grouped) = input {
        return .table(Table(columns: [grouped.attribute, "count"], rows: grouped.groups.map { [$0.key, .number(Double($0.count))] }))
      }
      let evaluator = ExpressionEvaluator(context: context)
      var rows: [[Value]] = []
      for item in input.resultItems {
        try context.cancellation.check()
        rows.append(try columns.enumerated().map { position, column in
          let expression = column.1
          if let snippet, snippetColumns.contains(position) { return .string(snippet.passage(of: item.item)) }
          if case .attribute(.attribute(let name, let type)) = expression, type.isList,
            let list = item.item.attributeSet[name]
          {
            return .string(list.displayText)
          }
          return try evaluator.evaluate(expression, on: item)
        })
      }
      return .table(Table(columns: columns.map(\.0), rows: rows))
    }
  }
}
