import Assistant
import Foundation
import QueryEngine
import SearchIndex

/// The HTTP API of `searchlight serve` (DESIGN §7) and the web page: routes requests to the
/// engine and answers in the CLI's `--format json` shapes.
///
/// Every `/v1` request gets an access scope: with tokens, the protection classes its bearer
/// token grants (401 without a valid one); without, the classes the server was started with.
/// Hidden items leave no trace in any answer, as in the CLI.
package struct SearchlightAPI: Sendable {
  package struct Configuration: Sendable {
    package var index: SearchIndex
    package var registry: StageRegistry
    /// Identity, delegate and embedder for queries; scope and clock are set per request.
    package var queryOptions = QueryOptions()
    /// The clock of `--now`; nil follows the real clock at each request.
    package var fixedNow: Date?
    /// Classes granted to every request when there are no tokens.
    package var protection: Set<String> = []
    /// Bearer tokens; nil serves without authentication (loopback only).
    package var tokens: AccessTokens?
    /// The model `ask` uses (nil: the offline answerer) and its server's name for models.
    package var model: (any LanguageModel)?
    /// Makes the model for a request that names one (`{"model": NAME}`); nil when the server
    /// has no model URL.
    package var modelNamed: (@Sendable (String) -> any LanguageModel)?
    /// Bounds for answers (max tokens, grounding), as `ask` sets them from its flags.
    package var configureAnswer: @Sendable (inout AnswerSession.Configuration) -> Void = { _ in }
    /// Items an answer lists and cites at most (as `ask`).
    package var answerResultLimit = 10
    /// Query answers up to this many bytes are sent whole (an error during the run is still a
    /// 400); larger ones stream, chunked, with at most this much held unread.
    package var wholeResponseBytes = 1 << 20
    /// Runs after `POST /v1/items` wrote items (`serve` embeds them when the index has
    /// embeddings, as `index` does), off the request's thread.
    package var afterItemsWritten: (@Sendable () -> Void)?

    package init(index: SearchIndex, registry: StageRegistry) {
      self.index = index
      self.registry = registry
    }
  }

  package let configuration: Configuration

  package init(_ configuration: Configuration) {
    self.configuration = configuration
  }

  var index: SearchIndex { configuration.index }
  var executor: QueryExecutor { QueryExecutor(index: configuration.index, registry: configuration.registry) }

  /// Answers one request; never throws, every failure is an error response.
  package func handle(_ request: HTTPRequest) -> HTTPResponse {
    let path = request.path
    if !path.hasPrefix("/v1/") && path != "/v1" {
      return WebPage.response(for: request)
    }
    let scope: AccessScope
    if let tokens = configuration.tokens {
      guard let token = tokens.token(forAuthorization: request.header("Authorization")) else {
        var response = APIError.response(401, "missing or unknown bearer token; send 'Authorization: Bearer TOKEN'")
        response.headers.append(("WWW-Authenticate", "Bearer realm=\"searchlight\""))
        return response
      }
      scope = AccessScope(protectionClasses: token.protection)
    } else {
      scope = AccessScope(protectionClasses: configuration.protection)
    }
    let route = Route(path)
    switch route {
    case .health: return only(["GET"], request) { health(scope) }
    case .query: return only(["POST"], request) { query(request, scope: scope) }
    case .toolCall: return only(["POST"], request) { toolCall(request, scope: scope) }
    case .ask: return only(["POST"], request) { ask(request, scope: scope) }
    case .plan: return only(["POST"], request) { plan(request, scope: scope) }
    case .facets: return only(["POST"], request) { facets(request, scope: scope) }
    case .schema: return only(["GET"], request) { schema(request, scope: scope) }
    case .openAPI: return only(["GET"], request) { OpenAPIDocument.response }
    case .items:
      switch request.method {
      case "POST": return addItems(request)
      case "DELETE": return deleteDomain(request, scope: scope)
      default: return methodNotAllowed(["POST", "DELETE"])
      }
    case .item(let id):
      switch request.method {
      case "GET": return item(id, scope: scope)
      case "DELETE": return deleteItem(id, scope: scope)
      default: return methodNotAllowed(["GET", "DELETE"])
      }
    case .unknown:
      return APIError.response(404, "no endpoint '\(path)'; see /v1/openapi.json")
    }
  }

  /// The endpoints, from the path.
  enum Route: Equatable {
    case health, query, toolCall, ask, plan, facets, schema, openAPI, items
    case item(String)
    case unknown

    init(_ path: String) {
      switch path {
      case "/v1/health": self = .health
      case "/v1/query": self = .query
      case "/v1/tool-call": self = .toolCall
      case "/v1/ask": self = .ask
      case "/v1/plan": self = .plan
      case "/v1/facets": self = .facets
      case "/v1/schema": self = .schema
      case "/v1/openapi.json": self = .openAPI
      case "/v1/items", "/v1/items/": self = .items
      default:
        let prefix = "/v1/items/"
        if path.hasPrefix(prefix) {
          self = .item(String(path.dropFirst(prefix.count)))
        } else {
          self = .unknown
        }
      }
    }
  }

  private func only(_ methods: [String], _ request: HTTPRequest, _ body: () -> HTTPResponse) -> HTTPResponse {
    // HEAD is GET without a body; libmicrohttpd drops the body itself.
    guard methods.contains(request.method) || (request.method == "HEAD" && methods.contains("GET")) else {
      return methodNotAllowed(methods)
    }
    return body()
  }

  private func methodNotAllowed(_ methods: [String]) -> HTTPResponse {
    var response = APIError.response(405, "method not allowed here; use \(methods.joined(separator: " or "))")
    response.headers.append(("Allow", methods.joined(separator: ", ")))
    return response
  }

  // MARK: Shared helpers

  /// Query options for one request: the scope, and the clock of `now` (the request's),
  /// `--now`, or the real clock.
  func options(_ scope: AccessScope, now: Date? = nil) -> QueryOptions {
    var options = configuration.queryOptions
    options.scope = scope
    options.clock = QueryClock(now: now ?? configuration.fixedNow ?? Date(), timeZone: TimeZone.current)
    options.cancellation = CancellationFlag()
    return options
  }

  /// The request body as a JSON object, or the 400 to answer.
  func jsonObject(_ request: HTTPRequest) -> Result<JSONValue, HTTPResponseError> {
    guard !request.body.isEmpty else { return .failure(HTTPResponseError(APIError.response(400, "the request needs a JSON object body"))) }
    do {
      let value = try JSONParser.parse(String(decoding: request.body, as: UTF8.self))
      guard value.objectValue != nil else {
        return .failure(HTTPResponseError(APIError.response(400, "the body must be a JSON object, not \(value.kindDescription)")))
      }
      return .success(value)
    } catch {
      return .failure(HTTPResponseError(APIError.response(400, "the body is not JSON: \(error)")))
    }
  }

  static func ndjson(_ lines: String) -> HTTPResponse {
    .text(200, lines, contentType: "application/x-ndjson")
  }

  static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
    APIError.jsonResponse(status, value)
  }

  // MARK: Health and schema

  func health(_ scope: AccessScope) -> HTTPResponse {
    do {
      let statistics = try index.statistics(scope: scope)
      return Self.json(["status": "ok", "items": .number(Double(statistics.items)), "schemaVersion": .number(Double(Schema.version))])
    } catch {
      return Self.failure(error)
    }
  }

  func schema(_ request: HTTPRequest, scope: AccessScope) -> HTTPResponse {
    let guidance: ToolGuidance
    do { guidance = try ToolGuidance(parsing: request.query["mode"] ?? "focused") } catch {
      return APIError.response(400, error.message)
    }
    do {
      let tool = try ToolSchemaGenerator(index: index, registry: configuration.registry, scope: scope).tool(guidance)
      return Self.json(tool)
    } catch {
      return Self.failure(error)
    }
  }

  /// A failure that is not the client's fault: 500 with the message (never an item's content).
  static func failure(_ error: any Error) -> HTTPResponse {
    switch error {
    case let error as QueryError: return failure(error.underlying)
    case let error as AnswerError: return failure(error.underlying)
    case let error as DiagnosticsError: return QueryErrorJSON.response(error)
    case let error as QueryRuntimeError: return APIError.response(400, error.message, extra: [("exitCode", 65)])
    case is QueryCancelled: return APIError.response(503, "the query was cancelled")
    case let error as EmbeddingError: return APIError.response(error.isIOFailure ? 502 : 400, error.message)
    case let error as SearchIndexError:
      switch error {
      case .invalidItem, .clientStateMismatch: return APIError.response(400, error.description)
      default: return APIError.response(500, error.description)
      }
    default: return APIError.response(500, "\(error)")
    }
  }
}

/// A response to send instead of going on, carried as an error.
struct HTTPResponseError: Error {
  var response: HTTPResponse
  init(_ response: HTTPResponse) { self.response = response }
}
