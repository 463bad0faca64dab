import Assistant
import Foundation
import QueryEngine

/// What the REPL needs from the Assistant module for `.json`, `.plan` and `.ask`.
///
/// `.json` uses the planner tool's encoder (`explain --json`), `.plan` the built-in planner and
/// `.ask` the answer loop (offline, or the model of SEARCHLIGHT_MODEL_URL).
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
    // Offline unless SEARCHLIGHT_MODEL_URL names a model server.
    let environment = ProcessInfo.processInfo.environment
    var model: (any LanguageModel)?
    if let text = environment["SEARCHLIGHT_MODEL_URL"], !text.isEmpty, let url = URL(string: text) {
      let name = environment["SEARCHLIGHT_MODEL"].flatMap { $0.isEmpty ? nil : $0 }
      model = OpenAICompatibleModel(server: ModelServer(baseURL: url, apiKey: ModelAccess.environmentKey(environment)), model: name)
    }
    let session = try AskCommand.session(
      executor: context.executor, options: context.options, guidance: .focused, model: model, resultLimit: AskCommand.resultLimit)
    // The answer streams to the terminal as it comes, like `searchlight ask`.
    _ = try AskCommand.answer(question, with: session, printer: AnswerPrinter(json: false))
  }

}
