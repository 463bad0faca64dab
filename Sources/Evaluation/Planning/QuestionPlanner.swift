import QueryEngine

/// Turns a plain-language question into a query the executor can run, so `eval` and `bench`
/// can measure any planner the same way.
///
/// `PlainQuestionPlanner` (`--planner plain`) ships here; the built-in planner and model-backed
/// planners conform from their own modules and are handed to `eval` by the command line.
///
/// ```swift
/// let planned = try PlainQuestionPlanner().plan("When is the Orion launch?", context: context)
/// ```
package protocol QuestionPlanner: Sendable {
  /// The name `--planner` selects (`plain`).
  var name: String { get }
  /// The query for `question`, returning at most `context.limit` items when it ranks them.
  func plan(_ question: String, context: PlanningContext) throws -> EvaluationQuery
}

/// What a planner may use: the executor (for the index's catalogue and stage registry), the
/// query options (clock, scope) and how many ranked items the evaluation needs.
package struct PlanningContext: Sendable {
  package var executor: QueryExecutor
  package var options: QueryOptions
  /// The number of ranked items to return (the evaluation depth).
  package var limit: Int

  package init(executor: QueryExecutor, options: QueryOptions, limit: Int) {
    self.executor = executor
    self.options = options
    self.limit = limit
  }
}

/// A planned query: query text in the language, or a graph built directly.
package enum EvaluationQuery: Sendable {
  case text(String)
  case graph(QueryGraph)

  /// The graph to execute (parsing and type-checking text).
  package func graph(_ context: PlanningContext) throws -> QueryGraph {
    switch self {
    case .text(let text): try context.executor.prepare(text, options: context.options)
    case .graph(let graph): graph
    }
  }
}
