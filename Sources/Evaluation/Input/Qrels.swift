import SearchIndex

/// Relevance judgments: for each query, the grade of every judged document.
///
/// The file is tab-separated `query-id<TAB>doc-id<TAB>grade` with an optional header line
/// (BEIR's layout); the four-column TREC layout `query-id iteration doc-id grade` (spaces or
/// tabs) is read too. Grades are whole numbers, higher is better; 0 or less means judged not
/// relevant.
package struct Qrels: Sendable, Hashable {
  /// Grades by query id, then document id.
  package var grades: [String: [String: Int]]

  package init(_ grades: [String: [String: Int]] = [:]) { self.grades = grades }

  /// The judgments of one query (empty when it has none).
  package subscript(query: String) -> [String: Int] { grades[query] ?? [:] }

  /// Number of judgments.
  package var count: Int { grades.values.reduce(0) { $0 + $1.count } }

  /// Reads the judgments in `path`.
  package static func load(path: String) throws(IngestError) -> Qrels {
    try parse(try EvaluationInput.read(path: path), file: path)
  }

  /// Parses judgments; any malformed line is an error naming its line.
  package static func parse(_ text: String, file: String) throws(IngestError) -> Qrels {
    var qrels = Qrels()
    var lineOf: [String: [String: Int]] = [:]
    for (index, (line, content)) in EvaluationInput.lines(text).enumerated() {
      let fields = content.contains("\t")
        ? content.split(separator: "\t", omittingEmptySubsequences: false).map { $0.trimmingWhitespace }
        : content.split(whereSeparator: { $0 == " " }).map { Substring($0) }
      let (query, document, gradeText): (Substring, Substring, Substring)
      switch fields.count {
      case 3: (query, document, gradeText) = (fields[0], fields[1], fields[2])
      case 4: (query, document, gradeText) = (fields[0], fields[2], fields[3])
      default:
        throw IngestError(file: file, line: line, message: "expected query-id<TAB>doc-id<TAB>grade, found \(fields.count) field\(fields.count == 1 ? "" : "s")")
      }
      guard let grade = Int(gradeText) else {
        // The first line may be a header (query-id, corpus-id, score).
        if index == 0 { continue }
        throw IngestError(file: file, line: line, message: "grade '\(gradeText)' is not a whole number")
      }
      guard !query.isEmpty, !document.isEmpty else {
        throw IngestError(file: file, line: line, message: query.isEmpty ? "empty query id" : "empty document id")
      }
      let (q, d) = (String(query), String(document))
      if let first = lineOf[q]?[d] {
        throw IngestError(file: file, line: line, message: "duplicate judgment of document '\(d)' for query '\(q)' (first on line \(first))")
      }
      lineOf[q, default: [:]][d] = line
      qrels.grades[q, default: [:]][d] = grade
    }
    guard qrels.count > 0 else { throw IngestError(file: file, line: nil, message: "no judgments in the file") }
    return qrels
  }
}

extension Substring {
  var trimmingWhitespace: Substring {
    var s = self
    while let first = s.first, first.isWhitespace { s = s.dropFirst() }
    while let last = s.last, last.isWhitespace { s = s.dropLast() }
    return s
  }
}
