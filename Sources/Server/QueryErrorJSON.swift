import QueryEngine
import SearchIndex

/// A query error as `query --format json` prints it (`ErrorReporter` in the CLI):
/// `{"error":{"message","line","column","hint","id","exitCode":65}}`, plus `endColumn` (the end
/// of the span on its line) so a page can underline it.
enum QueryErrorJSON {
  static func json(_ error: DiagnosticsError) -> JSONValue {
    let primary = error.primary
    let (line, column) = error.source.location(of: primary.span.start)
    let (endLine, endColumn) = error.source.location(of: primary.span.end)
    var object = JSONObject()
    object["message"] = .string(primary.message)
    object["line"] = .number(Double(line))
    object["column"] = .number(Double(column))
    // The help line (the fix) is the hint; the first note only when there is no help.
    object["hint"] = (primary.help ?? primary.notes.first?.message).map(JSONValue.string) ?? .null
    object["id"] = .string(primary.id)
    object["exitCode"] = 65
    object["endColumn"] = .number(Double(endLine == line ? max(endColumn, column + 1) : column + 1))
    return .object(JSONObject([("error", .object(object))]))
  }

  static func response(_ error: DiagnosticsError) -> HTTPResponse {
    APIError.jsonResponse(400, json(error))
  }
}
