import Foundation
import SearchIndex

/// Describes how a query will run, without running it, from the `ExecutionPlan` the executor
/// runs: each statement's typed stages, the resolved predicate (with `$time` as absolute
/// dates), which stages run inside SQLite and which in Swift, the SQL, and SQLite's access
/// path for it (`EXPLAIN QUERY PLAN`).
public struct Explainer {
  /// A statement `explain` shows, with SQLite's plan for it.
  public struct Statement: Sendable {
    public var sql: String
    public var plan: QueryPlan
  }

  public let executor: QueryExecutor

  public init(executor: QueryExecutor) { self.executor = executor }

  /// The explanation of `graph`.
  public func explain(_ graph: QueryGraph, options: QueryOptions) throws -> String {
    try walk(nil, graph: graph, options: options).lines.joined(separator: "\n")
  }

  /// The explanation of a plan made by `QueryExecutor.plan(_:options:)`.
  public func explain(_ plan: ExecutionPlan, options: QueryOptions) throws -> String {
    try walk(plan, graph: plan.graph, options: options).lines.joined(separator: "\n")
  }

  /// The SQL statements `explain` shows for `graph`, in order, with their access paths.
  public func statements(_ graph: QueryGraph, options: QueryOptions) throws -> [Statement] {
    try walk(nil, graph: graph, options: options).statements
  }

  /// The SQL statements `explain` shows for a plan, in order, with their access paths.
  public func statements(_ plan: ExecutionPlan, options: QueryOptions) throws -> [Statement] {
    try walk(plan, graph: plan.graph, options: options).statements
  }

  /// Walks the plan the executor would run (`plan`, or the one `graph` gets now).
  private func walk(_ given: ExecutionPlan?, graph: QueryGraph, options: QueryOptions) throws -> (lines: [String], statements: [Statement]) {
    // One moment decides expiry for the whole explanation, even when the scope follows the
    // real clock.
    var options = options
    options.scope.now = options.scope.now
    var output = Output()
    try executor.index.readPassingErrors { connection in
      let context = try executor.makeContext(connection, options: options)
      let plan = try given ?? context.plan(graph)
      output.lines.append("clock: \(ISO8601.format(options.clock.now, in: options.clock.timeZone)) (TZ \(options.clock.timeZone.identifier))")
      for (index, statement) in plan.statements.enumerated() {
        var head = "statement \(index + 1)"
        if let name = statement.name { head += statement.isLet ? " (let \(name))" : " (\(name))" }
        head += ": \(statement.outputType)" + (statement.isTerminal ? ", a reply" : "")
        output.lines.append(head)
        switch statement.input {
        case .search(let predicate):
          output.lines.append("  search: \(predicate.explained(in: options.clock.timeZone))   -> items")
        case .reference(let source):
          output.lines.append("  from statement \(source + 1)")
        case .merge(let sources):
          output.lines.append("  merge statements \(sources.map { String($0 + 1) }.joined(separator: ", "))")
        }
        try explain(statement.pipeline, context: context, indent: "  ", into: &output)
      }
    }
    return (output.lines, output.statements)
  }

  private struct Output {
    var lines: [String] = []
    var statements: [Statement] = []
  }

  private func explain(_ pipeline: ExecutionPlan.Pipeline, context: ExecutionContext, indent: String, into output: inout Output) throws {
    for step in pipeline.steps {
      switch step {
      case .sql(let sql):
        for stage in sql.stages.dropFirst(sql.inherited) { output.lines.append(Self.line(stage, indent: indent, place: "SQL")) }
        if let perGroup = sql.itemsPerGroup, let counting = sql.groupCounting {
          output.lines.append("\(indent)groups counted first, then the items in order until each group has its first \(perGroup):")
          try appendSQL(try context.compile(counting, resolvingSimilar: false), context: context, indent: indent + "  ", into: &output)
        }
        try appendSQL(try context.compile(sql, resolvingSimilar: false), context: context, indent: indent, into: &output)
      case .swift(let swift):
        output.lines.append(Self.line(swift.summary, indent: indent, place: "Swift"))
      case .fork(let absorbed, let branches):
        for stage in absorbed { output.lines.append(Self.line(stage, indent: indent, place: "SQL")) }
        output.lines.append("\(indent)| fork into \(branches.count) branches")
        for (number, branch) in branches.enumerated() {
          output.lines.append("\(indent)  branch \(number + 1):")
          try explain(branch, context: context, indent: indent + "    ", into: &output)
        }
      }
    }
  }

  private static func line(_ stage: ExecutionPlan.StageSummary, indent: String, place: String) -> String {
    "\(indent)| \(stage.name): \(stage.explanation)   -> \(stage.outputType)   [\(place)]"
  }

  /// The statements of a compiled step, with their arguments and access paths.
  private func appendSQL(_ step: CompiledStep, context: ExecutionContext, indent: String, into output: inout Output) throws {
    switch step {
    case .ranked(let ranked, _):
      output.lines.append("\(indent)\(ranked.summary)")
      if ranked.scoring == .everyTerm, let k = ranked.k, case .predicate(let allowed, let check, _) = ranked.filter {
        // What runs: the check, a match at a time (its first argument the match's rowid); the
        // items that pass the tests are read only when the best matches hold too few of them.
        output.lines.append(
          "\(indent)  candidates: the first \(ExecutionContext.everyTermChecks(k: k)) matches in rank order, each checked until \(k) pass:")
        var shown = check
        shown.arguments = [.null] + check.arguments
        try appendStatement(shown, context: context, indent: indent + "    ", into: &output)
        output.lines.append(
          "\(indent)  when some but fewer pass and more remain, twice as many as their share says k needs, up to \(ExecutionContext.everyTermCheckLimit)")
        output.lines.append("\(indent)  when those hold fewer, or none passed, the items that pass the tests: \(allowed.sql)")
      } else if let statement = ranked.filter.statement {
        output.lines.append("\(indent)  candidates: \(statement.sql)")
        try appendAccessPath(statement, context: context, indent: indent + "  ", into: &output)
      } else {
        output.lines.append("\(indent)  candidates: every item the scope shows (its hidden rows are read once per index generation)")
      }
    case .items(let compiled), .groupedItems(let compiled, _), .count(let compiled), .groupCount(let compiled, _):
      try appendStatement(compiled, context: context, indent: indent, into: &output)
    case .positions(let compiled, let sortsRowids):
      output.lines.append(
        "\(indent)positions only: the items' rowids\(sortsRowids ? " (put in rowid order after reading)" : ""); the ones the next stage keeps are read whole")
      try appendStatement(compiled, context: context, indent: indent + "  ", into: &output)
    case .rankedPositions:
      output.lines.append(
        "\(indent)positions only: every visible match in rank order from the ranked index's listing (no item row read); the ones the next stage keeps are read whole")
    case .numbers(let compiled, let values, let itemFields):
      output.lines.append(
        "\(indent)numbers only: the matches' \(itemFields ? "fields, relevance" : "rowids, relevance")\(values.isEmpty ? "" : " and " + values.map(\.name).joined(separator: ", ")), not their records; the ones the next stage keeps are read whole")
      try appendStatement(compiled, context: context, indent: indent + "  ", into: &output)
    case .sortWalk(let walk, let fallback, let limit, let values):
      if let values {
        output.lines.append(
          "\(indent)numbers only: the items' fields\(values.isEmpty ? "" : " and " + values.map(\.name).joined(separator: ", ")), not their records; the ones the next stage keeps are read whole")
      }
      output.lines.append("\(indent)index walk: the sorted attribute's first entries in order, stopping at \(limit) matches")
      try appendStatement(walk, context: context, indent: indent + "  ", into: &output)
      if walk.walkedEntries != nil {
        output.lines.append(
          "\(indent)when it finds some but fewer: the walk again over twice the entries their share says \(limit) need, up to \(SQLCompiler.sortWalkEntryLimit)")
      }
      output.lines.append("\(indent)full sort, when the walk finds fewer than \(limit):")
      try appendStatement(fallback, context: context, indent: indent + "  ", into: &output)
    case .statistics(let statements, let groups, _):
      for (_, compiled) in statements { try appendStatement(compiled, context: context, indent: indent, into: &output) }
      if let groups { try appendStatement(groups, context: context, indent: indent, into: &output) }
    }
  }

  private func appendStatement(_ compiled: SQLCompiler.Compiled, context: ExecutionContext, indent: String, into output: inout Output) throws {
    output.lines.append("\(indent)SQL: \(compiled.sql)")
    let arguments = compiled.arguments.map { argument in
      if case .text(let text) = argument, let shown = compiled.undisclosed[text] { return Self.describe(.text(shown)) }
      return Self.describe(argument)
    }
    output.lines.append("\(indent)  arguments: \(arguments.joined(separator: ", "))")
    try appendAccessPath(compiled, context: context, indent: indent + "  ", into: &output)
  }

  /// SQLite's plan for `compiled`, one line a step, nested steps indented.
  private func appendAccessPath(_ compiled: SQLCompiler.Compiled, context: ExecutionContext, indent: String, into output: inout Output) throws {
    let plan = try context.queryPlan(compiled)
    output.statements.append(Statement(sql: compiled.sql, plan: plan))
    output.lines.append("\(indent)access path:")
    output.lines.append(contentsOf: plan.lines.map { "\(indent)  \($0)" })
  }

  private static func describe(_ value: SQLValue) -> String {
    switch value {
    case .null: "NULL"
    case .integer(let i): String(i)
    case .real(let d): JSONValue.format(number: d)
    case .text(let s): JSONValue.string(s).compactText
    case .blob(let b): "<\(b.count) bytes>"
    }
  }
}
