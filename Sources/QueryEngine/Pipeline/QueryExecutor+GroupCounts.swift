import SearchIndex

extension QueryExecutor {
  /// The tables of several `… | group by ATTRIBUTE | count` queries over the same items (a
  /// search page's facets), from one statement that reads each matching item once when the
  /// items are read at all (a text search, a domain: `SQLCompiler.groupCountsQuery`). Nil
  /// unless every graph is one such statement over the same search; run them one by one then.
  /// The tables are those the graphs' own executions give, in the graphs' order, all read
  /// from one state of the index.
  public func groupCounts(_ graphs: [QueryGraph], options: QueryOptions) throws(QueryError) -> [Table]? {
    // One moment decides expiry for every table, as for one execution.
    var options = options
    options.scope.now = options.scope.now
    return try QueryError.catching {
      try index.readPassingErrors { connection in
        let context = try makeContext(connection, options: options)
        var items: SQLPlan?
        var targets: [AttributeTarget] = []
        for graph in graphs {
          let plan = try context.plan(current(graph, in: context, options: options))
          guard plan.statements.count == 1, let statement = plan.statements.first, case .search = statement.input,
            statement.pipeline.window == nil, statement.pipeline.steps.count == 1,
            case .sql(let step) = statement.pipeline.steps[0], case .groupCount(let target) = step.operation
          else { return nil }
          var counted = step.plan
          counted.aggregate = nil
          if let items, items != counted { return nil }
          items = counted
          targets.append(target)
        }
        guard let items else { return nil }
        let tables = try context.groupCounts(items, by: targets)
        options.statementLog?.append(context.executedSQL)
        return tables
      }
    }
  }
}
