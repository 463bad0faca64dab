import Foundation
import QueryEngine
import SearchIndex
import Stages

extension AnswerSession {
  /// A session that answers from `executor`'s index: the search tool described at
  /// `guidance` for the caller's scope, the built-in planner for the offline answer (and
  /// for a model that does not search) unless `planner` is given, and `model` (nil
  /// answers offline).
  ///
  /// ```swift
  /// let session = try AnswerSession(executor: executor, model: MyModel())
  /// for try await event in session.streamResponse(to: "What went wrong at the Orion launch?") {
  ///   if case .text(let piece) = event { print(piece, terminator: "") }
  /// }
  /// ```
  public convenience init(
    executor: QueryExecutor, options: QueryOptions = QueryOptions(), model: (any LanguageModel)?,
    guidance: ToolGuidance = .focused, planner: (any AnswerPlanner)? = nil, configuration: Configuration = Configuration()
  ) throws {
    let tool = SearchTool(executor: executor, options: options, maximumResultCount: configuration.resultLimit)
    let schema = try ToolSchemaGenerator(index: executor.index, registry: executor.registry, scope: options.scope).tool(guidance)
    guard let definition = ToolDefinition(openAIFunction: schema) else {
      throw ToolCallError(path: "$", message: "the generated search tool has no function definition")
    }
    let planner = try planner ?? BuiltinPlanner(
      index: executor.index, clock: options.clock, scope: options.scope, resultLimit: configuration.resultLimit, registry: executor.registry)
    self.init(tool: tool, toolDefinition: definition, model: model, planner: planner, configuration: configuration)
  }
}
