import Foundation
import SearchIndex

/// Describes how a query will run, without running it: each statement's typed stages, the
/// resolved predicate (with `$time` as absolute dates), which stages run inside SQLite and
/// which in Swift, the SQL, and SQLite's access path for it (`EXPLAIN QUERY PLAN`).
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
    try walk(graph, options: options).lines.joined(separator: "\n")
  }

  /// The SQL statements `explain` shows for `graph`, in order, with their access paths.
  public func statements(_ graph: QueryGraph, options: QueryOptions) throws -> [Statement] {
    try walk(graph, options: options).statements
  }

  private func walk(_ graph: QueryGraph, options: QueryOptions) throws -> (lines: [String], statements: [Statement]) {
    var options = options
    options.scope.now = options.scope.now
    var lines: [String] = []
    var statements: [Statement] = []
    try executor.index.readPassingErrors { connection in
      let context = try ExecutionContext(
        index: executor.index, connection: connection, scope: options.scope, clock: options.clock,
        catalog: try SearchIndex.loadCatalogForQuery(connection), cancellation: options.cancellation,
        token: QueryToken(now: options.clock.now, timeZone: options.clock.timeZone, generation: 0))
      lines.append("clock: \(ISO8601.format(options.clock.now, in: options.clock.timeZone)) (TZ \(options.clock.timeZone.identifier))")
      for (index, statement) in graph.statements.enumerated() {
        var head = "statement \(index + 1)"
        if let name = statement.name { head += statement.isLet ? " (let \(name))" : " (\(name))" }
        head += ": \(statement.outputType)" + (statement.isTerminal ? ", a reply" : "")
        lines.append(head)
        var plan: SQLPlan?
        switch statement.source {
        case .search(let predicate):
          lines.append("  search: \(predicate.explained(in: options.clock.timeZone))   -> items")
          plan = SQLPlan(predicate: predicate)
        case .reference(let source):
          lines.append("  from statement \(source + 1)")
        case .merge(let sources):
          lines.append("  merge statements \(sources.map { String($0 + 1) }.joined(separator: ", "))")
        }
        plan = try explainNodes(statement.nodes, plan: plan, context: context, indent: "  ", into: &lines, &statements)
        if let plan { try appendSQL(plan, context: context, indent: "  ", into: &lines, &statements) }
      }
    }
    return (lines, statements)
  }

  private func explainNodes(
    _ nodes: [QueryGraph.Node], plan startPlan: SQLPlan?, context: ExecutionContext, indent: String, into lines: inout [String],
    _ statements: inout [Statement]
  ) throws -> SQLPlan? {
    var plan = startPlan
    for node in nodes {
      switch node.kind {
      case .stage(let stage):
        if var pending = plan, stage.push(into: &pending, context: context) {
          plan = pending
          lines.append("\(indent)| \(node.name): \(stage.explanation)   -> \(node.outputType)   [SQL]")
          continue
        }
        if let pending = plan {
          try appendSQL(pending, context: context, indent: indent, into: &lines, &statements)
          plan = nil
        }
        lines.append("\(indent)| \(node.name): \(stage.explanation)   -> \(node.outputType)   [Swift]")
      case .fork(let branches):
        lines.append("\(indent)| fork into \(branches.count) branches")
        for (number, branch) in branches.enumerated() {
          lines.append("\(indent)  branch \(number + 1):")
          if let rest = try explainNodes(branch, plan: plan, context: context, indent: indent + "    ", into: &lines, &statements) {
            try appendSQL(rest, context: context, indent: indent + "    ", into: &lines, &statements)
          }
        }
        return nil
      }
    }
    return plan
  }

  private func appendSQL(
    _ plan: SQLPlan, context: ExecutionContext, indent: String, into lines: inout [String], _ statements: inout [Statement]
  ) throws {
    var compiler = context.compiler()
    let compiled: SQLCompiler.Compiled
    switch plan.aggregate {
    case .count?: compiled = try compiler.countQuery(plan)
    case .groupCount(let target)?: compiled = try compiler.groupCountQuery(plan, by: target)
    case .statistics(let requests, let group)?: compiled = try compiler.statisticQuery(plan, requests[0], by: group)
    case nil:
      if let ranked = try compiler.rankedPlan(plan) {
        lines.append("\(indent)\(ranked.summary)")
        lines.append("\(indent)  candidates: \(ranked.filterSQL)")
        try appendAccessPath(ranked.filter.statement, context: context, indent: indent + "  ", into: &lines, &statements)
        return
      }
      compiled = try compiler.itemsQuery(plan)
    }
    lines.append("\(indent)SQL: \(compiled.sql)")
    lines.append("\(indent)  arguments: \(compiled.arguments.map(Self.describe).joined(separator: ", "))")
    try appendAccessPath(compiled, context: context, indent: indent + "  ", into: &lines, &statements)
  }

  /// SQLite's plan for `compiled`, one line a step, nested steps indented.
  private func appendAccessPath(
    _ compiled: SQLCompiler.Compiled, context: ExecutionContext, indent: String, into lines: inout [String],
    _ statements: inout [Statement]
  ) throws {
    let plan = try context.queryPlan(compiled)
    statements.append(Statement(sql: compiled.sql, plan: plan))
    lines.append("\(indent)access path:")
    lines.append(contentsOf: plan.lines.map { "\(indent)  \($0)" })
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
