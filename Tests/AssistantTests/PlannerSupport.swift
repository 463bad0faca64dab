import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Stages
import Testing

/// The planner over the bundled samples with their fixed clock (2026-11-29T12:00:00Z, UTC),
/// and helpers to run what it plans.
enum PlannerSupport {
  static let planner: BuiltinPlanner = try! BuiltinPlanner(index: SampleIndex.shared, clock: SampleIndex.clock)

  /// The planner without relevance feedback: its ranked searches are the question's words
  /// alone, unweighted, for tests of how words become terms.
  static let plannerWithoutFeedback: BuiltinPlanner = {
    var plain = PlannerSupport.planner
    plain.feedback = nil
    return plain
  }()

  /// The planner as its recognisers read questions: no fall-back to the words when a
  /// structured reading finds nothing, for tests of the readings themselves.
  static let structuredPlanner: BuiltinPlanner = {
    var structured = PlannerSupport.planner
    structured.neverEmptyHanded = false
    return structured
  }()

  /// A planner over the samples with the same instant seen from another time zone.
  static func planner(timeZone identifier: String) throws -> BuiltinPlanner {
    try BuiltinPlanner(index: SampleIndex.shared, clock: QueryClock(now: SampleIndex.now, timeZone: TimeZone(identifier: identifier)!))
  }

  static func plan(_ question: String) throws -> PlannedQuery { try planner.plan(question) }

  static let executor = QueryExecutor(index: SampleIndex.shared, registry: StandardLibrary.registry())

  /// Every reply of `query`, item batches joined.
  static func replies(_ query: String, on index: SearchIndex = SampleIndex.shared, clock: QueryClock = SampleIndex.clock) throws -> [Reply] {
    let executor = QueryExecutor(index: index, registry: StandardLibrary.registry())
    var replies: [Reply] = []
    var pending: [ResultItem] = []
    try executor.run(query, options: QueryOptions(scope: AccessScope(now: clock.now), clock: clock)) { reply in
      if reply.isPartial {
        pending += reply.content.resultItems
        return
      }
      var whole = reply
      if case .items(let items) = reply.content, !pending.isEmpty { whole.content = .items(pending + items) }
      pending = []
      replies.append(whole)
    }
    return replies
  }

  /// The identifiers of the items `query` returns, in order.
  static func ids(_ query: String, on index: SearchIndex = SampleIndex.shared, clock: QueryClock = SampleIndex.clock) throws -> [String] {
    try replies(query, on: index, clock: clock).flatMap { reply -> [String] in
      switch reply.content {
      case .items(let items), .scoredItems(let items): items.map(\.id)
      default: []
      }
    }
  }

  /// The count a counting query returns.
  static func count(_ query: String, on index: SearchIndex = SampleIndex.shared) throws -> Int? {
    for reply in try replies(query, on: index) { if case .count(let n) = reply.content { return n } }
    return nil
  }

  /// True when `query` parses and type-checks over the samples.
  static func typeChecks(_ query: String, on index: SearchIndex = SampleIndex.shared) -> Bool {
    let executor = QueryExecutor(index: index, registry: StandardLibrary.registry())
    return (try? executor.prepare(query, options: SampleIndex.options)) != nil
  }
}
