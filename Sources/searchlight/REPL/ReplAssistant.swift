import QueryEngine

/// What the REPL needs from the Assistant module for `.json`, `.plan` and `.ask`.
///
/// The planner tool (the JSON form of a query), the built-in planner and the answer loop have
/// not landed yet; until they do, `ReplCommand` uses `PendingAssistant`, which says so. Wiring
/// them in means writing a type that conforms to this protocol and returning it from
/// `ReplAssistantProvider.make`.
protocol ReplAssistant {
  /// `.json QUERY`: the query in the planner tool's JSON form (`{"query":{"type":"search",...}}`).
  func plannerJSON(for query: String, context: ReplQueryContext) throws -> String
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

/// The assistant the REPL uses; the one place to change when the Assistant module lands.
enum ReplAssistantProvider {
  static func make() -> any ReplAssistant { PendingAssistant() }
}

/// Stands in for the Assistant module until it exists: every command says what it needs.
struct PendingAssistant: ReplAssistant {
  func plannerJSON(for query: String, context: ReplQueryContext) throws -> String {
    throw Self.unavailable(".json")
  }

  func plan(_ question: String, context: ReplQueryContext) throws -> String {
    throw Self.unavailable(".plan")
  }

  func ask(_ question: String, context: ReplQueryContext, output: (String) -> Void) throws {
    throw Self.unavailable(".ask")
  }

  private static func unavailable(_ command: String) -> CommandFailure {
    var failure = CommandFailure(.usage, "'\(command)' is not available yet: it needs the planner tool")
    failure.hints = ["note: use '.explain QUERY' for the typed graph and the SQL"]
    return failure
  }
}
