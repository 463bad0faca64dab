import Foundation

/// Where an OpenAI-compatible server lives and how patiently to talk to it; shared by the
/// chat and embeddings clients so both follow the same timeout and retry rules.
public struct ModelServer: Sendable {
  /// With or without a trailing `/v1`: `http://host:8080` and `http://host:8080/v1/`
  /// reach the same endpoints, since servers document either form.
  public var baseURL: URL
  /// Sent as `Authorization: Bearer …`; nil or empty sends no header (local servers
  /// started without a key reject nothing, but some proxies reject an empty bearer).
  public var apiKey: String?
  /// Upper bound on one attempt, from sending the request to the last byte. It is also the
  /// only limit before the response starts, because prompt processing on a CPU can take
  /// minutes before the first byte.
  public var requestTimeout: Duration
  /// Longest silence tolerated once the response has started.
  public var idleTimeout: Duration
  /// Pause before the single retry of a transient failure.
  public var retryDelay: Duration
  /// Extra request headers, e.g. for a gateway in front of the server.
  public var headers: [String: String]

  public init(
    baseURL: URL,
    apiKey: String? = nil,
    requestTimeout: Duration = .seconds(300),
    idleTimeout: Duration = .seconds(60),
    retryDelay: Duration = .seconds(1),
    headers: [String: String] = [:]
  ) {
    self.baseURL = baseURL
    self.apiKey = apiKey
    self.requestTimeout = requestTimeout
    self.idleTimeout = idleTimeout
    self.retryDelay = retryDelay
    self.headers = headers
  }

  /// `{baseURL}/v1/{path}`, adding `/v1` only when the base URL does not already end in it.
  func endpoint(_ path: String) -> URL {
    var base = baseURL.absoluteString
    while base.hasSuffix("/") { base.removeLast() }
    if !base.hasSuffix("/v1") { base += "/v1" }
    // The base URL came from a valid URL and path is a fixed ASCII literal, so this
    // cannot fail; falling back keeps the function total anyway.
    return URL(string: base + "/" + path) ?? baseURL.appendingPathComponent(path)
  }
}
