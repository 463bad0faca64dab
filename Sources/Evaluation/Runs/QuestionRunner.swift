import Foundation
import QueryEngine

/// Runs questions through a planner and the executor and records what came back.
package struct QuestionRunner: Sendable {
  package var executor: QueryExecutor
  package var options: QueryOptions
  package var planner: any QuestionPlanner

  package init(executor: QueryExecutor, options: QueryOptions, planner: any QuestionPlanner) {
    self.executor = executor
    self.options = options
    self.planner = planner
  }

  /// What one question returned.
  package struct Outcome: Sendable {
    /// Item ids in reply order (items, scored items, and the items of groups), without repeats.
    package var identifiers: [String]
    /// From the start of planning to the first reply (or to the end when none came).
    package var firstReplySeconds: Double
    /// From the start of planning to the end of execution.
    package var totalSeconds: Double
  }

  /// Plans and runs `question`, asking for `depth` ranked items.
  package func run(_ question: String, depth: Int) throws -> Outcome {
    let clock = ContinuousClock()
    let start = clock.now
    let context = PlanningContext(executor: executor, options: options, limit: depth)
    let graph = try planner.plan(question, context: context).graph(context)
    var first: ContinuousClock.Instant?
    var identifiers: [String] = []
    var seen = Set<String>()
    try executor.execute(graph, options: options) { reply in
      if first == nil { first = clock.now }
      for item in reply.content.resultItems where seen.insert(item.id).inserted { identifiers.append(item.id) }
    }
    let end = clock.now
    return Outcome(identifiers: identifiers, firstReplySeconds: Self.seconds((first ?? end) - start), totalSeconds: Self.seconds(end - start))
  }

  static func seconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}
