import Assistant
import Foundation
import QueryEngine
import SearchIndex

extension SearchlightAPI {
  /// `POST /v1/query {"query","now"?,"limit"?,"fetch"?}`: the replies as JSON Lines, one per
  /// line exactly as `query --format json` prints them (item replies in batches).
  func query(_ request: HTTPRequest, scope: AccessScope) -> HTTPResponse {
    let body: JSONValue
    switch jsonObject(request) {
    case .success(let value): body = value
    case .failure(let error): return error.response
    }
    guard let text = body["query"]?.stringValue else {
      return APIError.response(400, "the body needs \"query\": a query string, e.g. {\"query\":\"title == \\\"june*\\\"cd\"}")
    }
    var now: Date?
    if let value = body["now"], !value.isNull {
      guard let string = value.stringValue, let date = ISO8601.parse(string, defaultZone: TimeZone.current) else {
        return APIError.response(400, "\"now\" must be an ISO-8601 date (e.g. 2026-11-29T12:00:00Z)")
      }
      now = date
    }
    var limit: Int?
    if let value = body["limit"], !value.isNull {
      guard let number = value.intValue, number >= 0 else { return APIError.response(400, "\"limit\" must be a whole number, 0 or more") }
      limit = number
    }
    var fetch: [String]?
    if let value = body["fetch"], !value.isNull {
      guard let names = value.arrayValue?.compactMap(\.stringValue), names.count == value.arrayValue?.count else {
        return APIError.response(400, "\"fetch\" must be an array of attribute names")
      }
      fetch = names
    }
    var windowed = options(scope, now: now)
    // A limit reads only the items it keeps (the cut of each batch below then holds across
    // batches too).
    windowed.itemWindow = limit.map { ItemWindow(first: $0, countsAll: false) }
    let options = windowed
    let executor = executor
    let graph: QueryGraph
    do { graph = try executor.prepareTyped(text, options: options).graph } catch {
      return Self.failure(error)
    }
    let (replyLimit, attributes) = (limit, fetch)
    return Self.streamingReplies(options: options, wholeUpTo: configuration.wholeResponseBytes) { write in
      _ = try executor.execute(graph, options: options) { reply in
        var reply = reply
        if let replyLimit { reply.content = Self.truncate(reply.content, to: replyLimit) }
        try write(reply.jsonValue(fetch: attributes).compactText + "\n")
      }
    }
  }

  /// Runs `body` on a thread of its own and answers with the JSON Lines it writes: whole when
  /// the run ends within `wholeResponseBytes` bytes (an error is then the error response), streamed
  /// otherwise (an error then ends the stream with an `{"error":...}` line). A client that
  /// leaves cancels the run.
  static func streamingReplies(
    options: QueryOptions, wholeUpTo wholeResponseBytes: Int, _ body: @escaping @Sendable (_ write: (String) throws -> Void) throws -> Void
  ) -> HTTPResponse {
    let handoff = StreamHandoff()
    Thread.detachNewThread {
      var buffered = ""
      var stream: ResponseStream?
      do {
        try body { line in
          if let stream {
            if stream.isCancelled { throw QueryCancelled() }
            stream.write(line, waitingAbove: wholeResponseBytes)
            return
          }
          buffered += line
          if buffered.utf8.count > wholeResponseBytes {
            let started = ResponseStream()
            started.onCancel { options.cancellation.cancel() }
            started.write(buffered)
            buffered = ""
            stream = started
            handoff.answer(.success(HTTPResponse(status: 200, headers: [("Content-Type", "application/x-ndjson")], body: .stream(started))))
          }
        }
        if let stream {
          stream.finish()
        } else {
          handoff.answer(.success(ndjson(buffered)))
        }
      } catch {
        if let stream {
          stream.write(failure(error).bodyText)
          stream.finish()
        } else {
          handoff.answer(.failure(error))
        }
      }
    }
    switch handoff.wait() {
    case .success(let response): return response
    case .failure(let error): return failure(error)
    }
  }

  /// At most `limit` items, rows or groups (as the CLI's `--limit`).
  package static func truncate(_ data: PipelineData, to limit: Int) -> PipelineData {
    switch data {
    case .items(let items): return .items(Array(items.prefix(limit)))
    case .scoredItems(let items): return .scoredItems(Array(items.prefix(limit)))
    case .table(var table):
      table.rows = Array(table.rows.prefix(limit))
      return .table(table)
    case .groupedItems(var grouped):
      grouped.groups = Array(grouped.groups.prefix(limit))
      return .groupedItems(grouped)
    default: return data
    }
  }

  /// `POST /v1/tool-call` with Apple's FullArguments: the replies as JSON Lines, as
  /// `tool-call` prints them; an invalid call is 400 with the tool's error object.
  func toolCall(_ request: HTTPRequest, scope: AccessScope) -> HTTPResponse {
    guard !request.body.isEmpty else { return APIError.response(400, "the body must be the tool call's arguments (FullArguments JSON)") }
    let tool = SearchTool(executor: executor, options: options(scope))
    let result: SearchTool.Result
    do { result = try tool.call(String(decoding: request.body, as: UTF8.self)) } catch {
      return Self.failure(error)
    }
    if let error = result.error {
      return APIError.jsonResponse(400, error.jsonValue)
    }
    if result.replies.isEmpty {
      // Schema and help answers are text.
      return Self.ndjson(JSONValue.object(JSONObject([("text", .string(result.text))])).compactText + "\n")
    }
    return Self.ndjson(result.replies.map { $0.jsonValue().compactText + "\n" }.joined())
  }

  /// `POST /v1/plan {"question"}`: what the built-in planner makes of a question, as
  /// `plan --format json` (without the tool call): `{"question","dsl","evidence"?,"intent","notes"}`.
  func plan(_ request: HTTPRequest, scope: AccessScope) -> HTTPResponse {
    let body: JSONValue
    switch jsonObject(request) {
    case .success(let value): body = value
    case .failure(let error): return error.response
    }
    guard let question = body["question"]?.stringValue, !question.trimmingCharacters(in: .whitespaces).isEmpty else {
      return APIError.response(400, "the body needs \"question\": a non-empty string")
    }
    do {
      let planner = try BuiltinPlanner(index: index, clock: options(scope).clock, scope: scope)
      let plan = try planner.plan(question)
      return Self.json(.object(plan.jsonObject))
    } catch {
      return Self.failure(error)
    }
  }
}
