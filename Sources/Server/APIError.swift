import SearchIndex

/// The error bodies of the API: `{"error":{"message":...}}`, with the fields of the CLI's
/// `--format json` errors where they apply (query errors add line, column, hint and id;
/// tool-call errors are the tool's own `{"error":{"path","message","expected","example"}}`).
enum APIError {
  static func json(_ message: String, extra: [(String, JSONValue)] = []) -> JSONValue {
    var error = JSONObject()
    error["message"] = .string(message)
    for (key, value) in extra { error[key] = value }
    return .object(JSONObject([("error", .object(error))]))
  }

  static func response(_ status: Int, _ message: String, extra: [(String, JSONValue)] = []) -> HTTPResponse {
    jsonResponse(status, json(message, extra: extra))
  }

  static func jsonResponse(_ status: Int, _ value: JSONValue) -> HTTPResponse {
    .text(status, value.compactText + "\n", contentType: "application/json")
  }
}

extension HTTPResponse {
  /// The body as text (for a complete body; empty for a stream).
  var bodyText: String {
    if case .bytes(let bytes) = body { return String(decoding: bytes, as: UTF8.self) }
    return ""
  }
}
