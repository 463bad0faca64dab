import Assistant
import QueryEngine

/// What the REPL needs from the Assistant module for `.json`, `.plan` and `.ask`.
///
/// `.json` uses the planner tool's encoder (`explain --json`) and `.plan` the built-in planner.
/// `.ask` waits for the answer loop: wiring it means filling in `ask` of `AssistantBridge`.
protocol ReplAssistant {
  /// `.json QUERY`: the query as a tool call in the planner's JSON form, and a note when it is
  /// printed in the `dsl` form (with the reason).
  func plannerJSON(for query: String, context: ReplQueryContext) throws -> (json: String, note: String?)
  /// `.plan QUESTION`: the graph the built-in planner makes of a plain question.
  func plan(_ question: String, context: ReplQueryContext) throws -> String
  /// `.ask QUESTION`: an answer with its sources, written through `output` as it streams.
  func ask(_ question: String, context: ReplQueryContext, output: (String) -> Void) throws
}

/// What a REPL command runs against: the index, the stage registry and the session's current
/// options (clock, time zone, protection classes, the cancellation flag of this command).
struct ReplQueryContext {
  var executor: QueryExecutor
  var options: QueryOptions
}

/// The assistant the REPL uses; the one place to change when the planner or the answer loop lands.
enum ReplAssistantProvider {
  static func make() -> any ReplAssistant { AssistantBridge() }
}

/// The REPL's view of the Assistant module.
struct AssistantBridge: ReplAssistant {
  func plannerJSON(for query: String, context: ReplQueryContext) throws -> (json: String, note: String?) {
    let encoded = try ToolCallEncoder().encode(query, verifyingWith: context.executor, options: context.options)
    return (encoded.json.compactText, encoded.reason.map { "printed as a dsl query: \($0)" })
  }

  func plan(_ question: String, context: ReplQueryContext) throws -> String {
    let planner = try BuiltinPlanner(
      index: context.executor.index, clock: context.options.clock, scope: context.options.scope, registry: context.executor.registry)
    return PlanCommand.text(for: try planner.plan(question))
  }

  func ask(_ question: String, context: ReplQueryContext, output: (String) -> Void) throws {
    throw Self.unavailable(".ask", needs: "the answer loop")
  }

  /// The error of a command whose part of the Assistant module has not landed.
  static func unavailable(_ command: String, needs part: String) -> CommandFailure {
    var failure = CommandFailure(.usage, "'\(command)' is not available yet: it needs \(part)")
    failure.hints = ["note: '.json QUERY' shows a query as a tool call; '.explain QUERY' shows its graph and SQL"]
    return failure
  }
}
