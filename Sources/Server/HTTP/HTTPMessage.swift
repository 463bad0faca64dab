import Foundation

/// One HTTP request as the handler sees it: the whole body has been read (within the size
/// limit) before the handler runs.
package struct HTTPRequest: Sendable {
  /// `GET`, `POST`, ... as the client sent it.
  package var method: String
  /// The path without the query string, percent-decoded.
  package var path: String
  /// Header values by lowercased name (the last one when a header repeats).
  package var headers: [String: String]
  /// Query-string arguments, percent-decoded (the last one when an argument repeats).
  package var query: [String: String]
  package var body: [UInt8]

  package init(method: String, path: String, headers: [String: String] = [:], query: [String: String] = [:], body: [UInt8] = []) {
    self.method = method
    self.path = path
    self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
    self.query = query
    self.body = body
  }

  /// The value of header `name` (any case).
  package func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// What a handler answers: a status, headers, and a body that is either complete or streamed.
package struct HTTPResponse: Sendable {
  package enum Body: Sendable {
    case bytes([UInt8])
    /// Written by a producer while the client reads it (server-sent events); sent chunked.
    case stream(ResponseStream)
  }

  package var status: Int
  package var headers: [(name: String, value: String)]
  package var body: Body

  package init(status: Int, headers: [(name: String, value: String)] = [], body: Body) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// A complete body of `text` with `contentType`.
  package static func text(_ status: Int, _ text: String, contentType: String) -> HTTPResponse {
    HTTPResponse(status: status, headers: [("Content-Type", contentType)], body: .bytes(Array(text.utf8)))
  }
}
