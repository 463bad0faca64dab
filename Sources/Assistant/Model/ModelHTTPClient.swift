import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SearchIndex

/// Sends JSON POSTs to a `ModelServer` with the retry and error rules shared by chat and
/// embeddings: at most one retry, only for failures that happen before any response byte
/// (connection refused or reset) or for statuses that mean "try again" (429, 502, 503, 504).
/// Once a 2xx response has started nothing is retried, so output is never duplicated.
struct ModelHTTPClient: Sendable {
  let server: ModelServer

  /// Statuses that a load balancer or a busy server sends when the same request may
  /// succeed moments later. 500 is not here: it usually means the request itself broke
  /// the server (e.g. a template error) and would fail again.
  static let retryableStatuses: Set<Int> = [429, 502, 503, 504]

  /// Longest wait a server's `Retry-After` may impose; an interactive search should fail
  /// visibly rather than hang on a server that asks for minutes.
  static let maximumRetryAfter: Duration = .seconds(10)

  /// Error bodies are read only this far: enough for any real message, bounded for HTML
  /// pages or endless streams.
  static let errorBodyLimit = 64 * 1024

  /// POSTs `body` to `/v1/{path}` and returns once a 2xx response head has arrived.
  /// Throws `ModelError` only.
  func post(_ path: String, body: Data, accept: String) async throws -> HTTPResponseStream {
    try await send(makeRequest(url: server.endpoint(path), body: body, accept: accept))
  }

  /// GETs `/v1/{path}` and returns its whole body (at most `limit` bytes), with the same
  /// retry and error rules as `post`. Throws `ModelError` only.
  func get(_ path: String, limit: Int) async throws -> Data {
    var request = makeRequest(url: server.endpoint(path), body: nil, accept: "application/json")
    request.httpMethod = "GET"
    var response = try await send(request)
    return try await response.readAll(limit: limit)
  }

  private func send(_ request: URLRequest) async throws -> HTTPResponseStream {
    let url = request.url ?? server.baseURL
    var attempt = 1
    while true {
      let parts = HTTPExchange.start(request, requestTimeout: server.requestTimeout, idleTimeout: server.idleTimeout)
      var iterator = parts.makeAsyncIterator()
      let retryAfter: Duration?
      do {
        guard case .head(let status, let headers)? = try await iterator.next() else {
          // The exchange always sends a head or an error, so an empty end means
          // our own task was cancelled and the stream was torn down.
          throw Task.isCancelled
            ? ModelError.cancelled
            : ModelError.unreachable(url: url.absoluteString, reason: "connection closed before a response")
        }
        if (200..<300).contains(status) {
          return HTTPResponseStream(url: url, status: status, headers: headers, iterator: iterator)
        }
        if attempt == 1, Self.retryableStatuses.contains(status) {
          retryAfter = Self.parseRetryAfter(headers["retry-after"])
        } else {
          var response = HTTPResponseStream(url: url, status: status, headers: headers, iterator: iterator)
          let body = await response.readErrorBody(limit: Self.errorBodyLimit)
          throw ModelError.http(status: status, body: Self.errorExcerpt(body))
        }
      } catch let failure as HTTPExchange.Failure {
        guard attempt == 1, failure.retryable else { throw failure.error }
        retryAfter = nil
      } catch {
        throw ModelError(wrapping: error)
      }
      attempt += 1
      do {
        try await Task.sleep(for: retryAfter.map { min($0, Self.maximumRetryAfter) } ?? server.retryDelay)
      } catch {
        throw ModelError.cancelled
      }
    }
  }

  func makeRequest(url: URL, body: Data?, accept: String) -> URLRequest {
    var request = URLRequest(url: url)
    request.httpMethod = "POST"
    request.httpBody = body
    for (name, value) in server.headers {
      request.setValue(value, forHTTPHeaderField: name)
    }
    if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
    request.setValue(accept, forHTTPHeaderField: "Accept")
    if let key = server.apiKey, !key.isEmpty {
      request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
    }
    return request
  }

  /// Delta-seconds only; the HTTP-date form is rare from model servers and not worth a
  /// date parser.
  static func parseRetryAfter(_ value: String?) -> Duration? {
    guard let value, let seconds = Double(value.trimmingCharacters(in: .whitespaces)), seconds >= 0 else { return nil }
    return .milliseconds(Int64(seconds * 1000))
  }

  /// Prefers the server's own `error.message` (OpenAI, llama.cpp, vLLM, Ollama all send
  /// one) over the raw body, which may be a pretty-printed object or an HTML page.
  static func errorExcerpt(_ body: Data) -> String {
    if let json = try? JSONParser.parse(body) {
      if let message = json["error"]?["message"]?.stringValue ?? json["error"]?.stringValue ?? json["message"]?.stringValue ?? json["detail"]?.stringValue {
        return ModelError.excerpt(message)
      }
    }
    return ModelError.excerpt(body)
  }
}
