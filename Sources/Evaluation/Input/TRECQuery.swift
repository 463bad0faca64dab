import SearchIndex

/// One query of a TREC-style collection: a JSON Lines object `{"id","text"}` (BEIR's `_id`
/// is accepted for `id`; other members are ignored).
package struct TRECQuery: Sendable, Hashable {
  package var id: String
  package var text: String
  /// The line of the queries file it came from.
  package var line: Int

  package init(id: String, text: String, line: Int = 0) {
    self.id = id
    self.text = text
    self.line = line
  }

  /// Reads the queries in `path`.
  package static func load(path: String) throws(IngestError) -> [TRECQuery] {
    try parse(try EvaluationInput.read(path: path), file: path)
  }

  /// Parses query JSON Lines; any malformed line is an error naming its line.
  package static func parse(_ text: String, file: String) throws(IngestError) -> [TRECQuery] {
    var queries: [TRECQuery] = []
    var lineOfID: [String: Int] = [:]
    for (line, object) in try EvaluationInput.objects(text, file: file) {
      guard let id = try EvaluationInput.identifier(object["id"] ?? object["_id"], key: "id", file: file, line: line) else {
        throw IngestError(file: file, line: line, message: "missing 'id'")
      }
      if let first = lineOfID[id] {
        throw IngestError(file: file, line: line, message: "duplicate query id '\(id)' (first on line \(first))")
      }
      lineOfID[id] = line
      queries.append(TRECQuery(id: id, text: try EvaluationInput.text(object, key: "text", file: file, line: line), line: line))
    }
    guard !queries.isEmpty else { throw IngestError(file: file, line: nil, message: "no queries in the file") }
    return queries
  }
}
