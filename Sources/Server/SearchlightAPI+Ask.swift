import Assistant
import Dispatch
import Foundation
import QueryEngine
import SearchIndex
import Synchronization

extension SearchlightAPI {
  /// `POST /v1/ask {"question","model"?}`. With `Accept: text/event-stream`, server-sent
  /// events whose `data:` lines are the events of `ask --format json`, `done` last; otherwise
  /// one object at the end: `{"question","answer","sources","events"}`.
  func ask(_ request: HTTPRequest, scope: AccessScope) -> HTTPResponse {
    let body: JSONValue
    switch jsonObject(request) {
    case .success(let value): body = value
    case .failure(let error): return error.response
    }
    guard let question = body["question"]?.stringValue, !question.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
      return APIError.response(400, "the body needs \"question\": a non-empty string")
    }
    var model = configuration.model
    if let value = body["model"], !value.isNull {
      guard let name = value.stringValue, !name.isEmpty else { return APIError.response(400, "\"model\" must be a model name (a string)") }
      guard let named = configuration.modelNamed else {
        return APIError.response(400, "this server has no model; start it with --model-url URL to ask a model")
      }
      model = named(name)
    }
    let session: AnswerSession
    do { session = try answerSession(scope: scope, model: model) } catch {
      return Self.failure(error)
    }
    let events = session.streamResponse(to: question)
    let wantsStream = (request.header("Accept") ?? "").lowercased().contains("text/event-stream")
    if wantsStream {
      // A comment line after 15 s of silence (a slow model) lets a client that left be noticed.
      let stream = ResponseStream(heartbeat: ": keep-alive\n\n")
      let task = Task {
        do {
          for try await event in events {
            if Task.isCancelled { break }
            stream.write("data: " + event.jsonValue.compactText + "\n\n")
          }
        } catch {
          stream.write("data: " + Self.errorEvent(error).compactText + "\n\n")
        }
        stream.finish()
        // Keeps the session alive while its stream runs.
        withExtendedLifetime(session) {}
      }
      stream.onCancel { task.cancel() }
      return HTTPResponse(
        status: 200,
        headers: [("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-cache"), ("X-Accel-Buffering", "no")],
        body: .stream(stream))
    }
    // One object: wait for the whole answer on this connection's thread.
    let outcome = Mutex<Result<[AnswerEvent], any Error>?>(nil)
    let finished = DispatchSemaphore(value: 0)
    Task {
      var collected: [AnswerEvent] = []
      let result: Result<[AnswerEvent], any Error>
      do {
        for try await event in events { collected.append(event) }
        result = .success(collected)
      } catch {
        result = .failure(error)
      }
      outcome.withLock { $0 = result }
      finished.signal()
      withExtendedLifetime(session) {}
    }
    finished.wait()
    switch outcome.withLock({ $0 }) ?? .success([]) {
    case .failure(let error):
      return Self.failure(error)
    case .success(let collected):
      var answer = ""
      var sources: [JSONValue] = []
      for event in collected {
        switch event {
        case .text(let delta): answer += delta
        case .source: if let item = event.jsonValue["item"] { sources.append(item) }
        default: break
        }
      }
      return Self.json([
        "question": .string(question), "answer": .string(answer), "sources": .array(sources),
        "events": .array(collected.map(\.jsonValue)),
      ])
    }
  }

  /// The event a stream ends with when the index fails mid-answer.
  static func errorEvent(_ error: any Error) -> JSONValue {
    if let error = error as? QueryError { return errorEvent(error.underlying) }
    if let error = error as? AnswerError { return errorEvent(error.underlying) }
    let message: String = switch error {
    case let error as DiagnosticsError: error.primary.message
    case let error as SearchIndexError: error.description
    default: "\(error)"
    }
    return ["event": "error", "message": .string(message)]
  }

  /// An answer session as `ask` makes one: the search tool (focused guidance), the built-in
  /// planner, at most `answerResultLimit` items listed and cited.
  func answerSession(scope: AccessScope, model: (any LanguageModel)?) throws -> AnswerSession {
    let options = options(scope)
    let limit = configuration.answerResultLimit
    let tool = SearchTool(executor: executor, options: options, maximumResultCount: limit)
    let schema = try ToolSchemaGenerator(index: index, registry: configuration.registry, scope: scope).tool(.focused)
    guard let definition = ToolDefinition(openAIFunction: schema) else { throw SessionError.noToolDefinition }
    var answerConfiguration = AnswerSession.Configuration()
    answerConfiguration.resultLimit = limit
    configuration.configureAnswer(&answerConfiguration)
    let planner = try BuiltinPlanner(index: index, clock: options.clock, scope: scope, resultLimit: limit, registry: configuration.registry)
    return AnswerSession(tool: tool, toolDefinition: definition, model: model, planner: planner, configuration: answerConfiguration)
  }

  enum SessionError: Error, CustomStringConvertible {
    case noToolDefinition
    var description: String { "the search tool has no definition" }
  }
}
