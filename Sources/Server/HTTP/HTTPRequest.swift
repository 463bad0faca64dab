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
