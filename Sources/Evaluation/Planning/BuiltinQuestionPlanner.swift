import Assistant
import Foundation
import QueryEngine
import SearchIndex

/// The built-in planner (Assistant) for evaluation: each question becomes the query the
/// planner builds, limited to the evaluation depth when it ranks items.
///
/// The planner reads the index's vocabulary once, on the first question.
package final class BuiltinQuestionPlanner: QuestionPlanner, @unchecked Sendable {
  // @unchecked: `planner` is created once under `lock` and only read afterwards.
  private let lock = NSLock()
  private var planner: BuiltinPlanner?
  /// Hybrid (text + embeddings) ranking on or off; nil: on when the index has embeddings.
  let hybrid: Bool?

  package init(hybrid: Bool? = nil) { self.hybrid = hybrid }

  package var name: String { hybrid == true ? "builtin, hybrid" : hybrid == false ? "builtin, text only" : "builtin" }

  package func plan(_ question: String, context: PlanningContext) throws -> EvaluationQuery {
    lock.lock()
    if planner == nil {
      do {
        planner = try BuiltinPlanner(
          index: context.executor.index, clock: context.options.clock, scope: context.options.scope, resultLimit: context.limit,
          registry: context.executor.registry)
        if let hybrid { planner?.hybrid = hybrid }
      } catch {
        lock.unlock()
        throw error
      }
    }
    let planner = self.planner!
    lock.unlock()
    let plan = try planner.plan(question)
    // Counts and statistics are judged by the items behind them.
    return .graph(try context.executor.prepare(plan.itemsQuery, source: SourceText(plan.itemsDSL), options: context.options))
  }
}
