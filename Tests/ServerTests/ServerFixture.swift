import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Server
import Stages

/// A server on a free loopback port over a fresh copy of the sample index, with two hidden
/// items besides: `secret-1` (protection class `classA`) and `gone-1` (expired).
final class ServerFixture: Sendable {
  let index: SearchIndex
  let server: HTTPServer
  var client: HTTPTestClient { HTTPTestClient(port: server.port) }
  /// A client that waits up to ten minutes for an answer (a bound, not an expectation).
  var patientClient: HTTPTestClient {
    var client = HTTPTestClient(port: server.port)
    client.timeoutSeconds = 600
    return client
  }

  init(tokens: AccessTokens? = nil, maximumBodyBytes: Int = 1 << 20, wholeResponseBytes: Int = 1 << 20) throws {
    index = try SampleIndex.make()
    try index.indexSearchableItems([
      SearchableItem(
        uniqueIdentifier: "secret-1", domainIdentifier: "vault", protectionClass: "classA",
        attributeSet: AttributeSet([("title", .string("Secret waterfall plan"))])),
      SearchableItem(
        uniqueIdentifier: "gone-1", domainIdentifier: "vault", expirationDate: Date(timeIntervalSinceNow: -3600),
        attributeSet: AttributeSet([("title", .string("Expired waterfall memo"))])),
    ])
    var configuration = SearchlightAPI.Configuration(index: index, registry: StandardLibrary.registry())
    configuration.fixedNow = SampleIndex.now
    configuration.tokens = tokens
    configuration.wholeResponseBytes = wholeResponseBytes
    let api = SearchlightAPI(configuration)
    var http = HTTPServer.Configuration()
    http.port = 0
    http.maximumBodyBytes = maximumBodyBytes
    http.connectionTimeout = 20
    server = try HTTPServer(configuration: http) { api.handle($0) }
  }

  deinit { server.stop() }

  /// What `query --format json` prints for `query`: one reply per line.
  func expectedLines(_ query: String, limit: Int? = nil) throws -> String {
    let executor = QueryExecutor(index: index, registry: StandardLibrary.registry())
    let options = QueryOptions(scope: AccessScope(), clock: QueryClock(now: SampleIndex.now, timeZone: TimeZone.current))
    var lines = ""
    _ = try executor.execute(try executor.prepareTyped(query, options: options).graph, options: options) { reply in
      var reply = reply
      if let limit { reply.content = SearchlightAPI.truncate(reply.content, to: limit) }
      lines += reply.jsonValue().compactText + "\n"
    }
    return Self.withoutTokens(lines)
  }

  /// Query tokens are random per run (`q` + 10 base-36 characters): replaced for comparisons.
  static func withoutTokens(_ text: String) -> String {
    text.replacingOccurrences(of: #""queryToken":"q[0-9a-z]{10}""#, with: #""queryToken":"Q""#, options: .regularExpression)
  }
}

/// `{"query": text}` and friends, as request bodies.
func jsonBody(_ members: [(String, JSONValue)]) -> String { JSONValue.object(JSONObject(members)).compactText }
