import Foundation

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
