import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Stages

/// Sessions over the sample index, scripted model turns, and collectors for answer events.
enum AnswerFixture {
  /// A session over `index` (the shared samples by default) with the fixed sample clock.
  static func session(
    model: (any LanguageModel)?, index: SearchIndex = SampleIndex.shared, guidance: ToolGuidance = .focused,
    planner: (any AnswerPlanner)? = nil, configure: (inout AnswerSession.Configuration) -> Void = { _ in }
  ) throws -> AnswerSession {
    let registry = StandardLibrary.registry()
    let planner = try planner ?? BuiltinPlanner(index: index, clock: SampleIndex.clock, registry: registry)
    let tool = SearchTool(executor: QueryExecutor(index: index, registry: registry), options: SampleIndex.options, maximumResultCount: 10)
    let schema = try ToolSchemaGenerator(index: index, registry: registry, scope: SampleIndex.options.scope).tool(guidance)
    var configuration = AnswerSession.Configuration()
    configure(&configuration)
    return AnswerSession(
      tool: tool, toolDefinition: ToolDefinition(openAIFunction: schema)!, model: model, planner: planner,
      configuration: configuration)
  }

  /// Everything a response produced, and the error that ended it.
  struct Collected {
    var events: [AnswerEvent] = []
    var error: AnswerError?
    /// The model's failure, when that ended the answer.
    var modelError: ModelError? { if case .model(let failure)? = error { failure } else { nil } }

    var text: String { events.compactMap { if case .text(let piece) = $0 { piece } else { nil } }.joined() }
    var textPieces: [String] { events.compactMap { if case .text(let piece) = $0 { piece } else { nil } } }
    var sourceIDs: [String] { events.compactMap { if case .source(let source) = $0 { source.id } else { nil } } }
    var replies: [Reply] { events.compactMap { if case .reply(let reply) = $0 { reply } else { nil } } }
    var notices: [String] { events.compactMap { if case .notice(let message) = $0 { message } else { nil } } }
    var summary: AnswerSummary? { if case .done(let summary)? = events.last { summary } else { nil } }
  }

  static func collect(_ stream: AnswerEvents) async -> Collected {
    var collected = Collected()
    do throws(AnswerError) {
      for try await event in stream { collected.events.append(event) }
    } catch {
      collected.error = error
    }
    return collected
  }

  // MARK: Scripted model turns

  /// A streamed turn that calls the search tool, the arguments split over `pieces` chunks.
  static func toolCallTurn(_ calls: [(id: String, arguments: String)], name: String = "search_items", pieces: Int = 3) -> ScriptedResponse {
    var chunks: [String] = []
    for (index, call) in calls.enumerated() {
      chunks.append(chunk(["tool_calls": [["index": .number(Double(index)), "id": .string(call.id), "type": "function",
                                          "function": ["name": .string(name), "arguments": ""]]]]))
      let characters = Array(call.arguments)
      let size = max(1, (characters.count + pieces - 1) / pieces)
      for start in stride(from: 0, to: characters.count, by: size) {
        let piece = String(characters[start..<min(start + size, characters.count)])
        chunks.append(chunk(["tool_calls": [["index": .number(Double(index)), "function": ["arguments": .string(piece)]]]]))
      }
    }
    return .events(chunks + [TestSupport.finishChunk("tool_calls"), "[DONE]"])
  }

  static func toolCallTurn(id: String, arguments: String) -> ScriptedResponse {
    toolCallTurn([(id, arguments)])
  }

  /// A streamed turn that answers with text, one chunk per piece.
  static func answerTurn(_ pieces: [String]) -> ScriptedResponse {
    .events(pieces.map(TestSupport.textChunk) + [TestSupport.finishChunk("stop"), "[DONE]"])
  }

  private static func chunk(_ delta: JSONValue) -> String {
    let value: JSONValue = ["object": "chat.completion.chunk", "choices": [["index": 0, "delta": delta, "finish_reason": nil]]]
    return value.compactText
  }

  /// Search tool arguments for a text search of all `terms`.
  static func textSearch(_ terms: [String], pageSize: Int = 5) -> String {
    let value: JSONValue = [
      "query": ["type": "search", "value": ["root": ["type": "allText", "value": ["terms": .array(terms.map(JSONValue.string))]],
                                             "pageSize": .number(Double(pageSize))]],
    ]
    return value.compactText
  }

  /// Search tool arguments for a query of the language.
  static func dslSearch(_ query: String) -> String {
    let value: JSONValue = ["query": ["type": "dsl", "value": ["query": .string(query)]]]
    return value.compactText
  }

  /// The `messages` of a recorded request.
  static func messages(_ request: LoopbackHTTPServer.RecordedRequest) -> [JSONValue] {
    request.json?["messages"]?.arrayValue ?? []
  }

  /// The content of the recorded request's messages with `role`.
  static func contents(_ request: LoopbackHTTPServer.RecordedRequest, role: String) -> [String] {
    messages(request).filter { $0["role"]?.stringValue == role }.compactMap { $0["content"]?.stringValue }
  }
}

/// A planner that returns a fixed plan.
struct FixedPlanner: AnswerPlanner {
  var plan: PlannedQuery
  func plan(_ question: String) throws -> PlannedQuery { plan }
}
