import SearchIndex

/// One question of an Apple-style result-coverage fixture file: a JSON Lines object
/// `{"id","question","expectedIdentifiers":[...],"expectNoEvidence":bool}`.
///
/// `expectedIdentifiers` are the items a good answer is grounded in; `expectNoEvidence` marks a
/// question the index cannot answer (nothing should come back). Other members are ignored, so
/// fixture files may carry notes or categories.
package struct Fixture: Sendable, Hashable {
  package var id: String
  package var question: String
  package var expectedIdentifiers: [String]
  package var expectNoEvidence: Bool
  /// The line of the fixture file it came from.
  package var line: Int

  package init(id: String, question: String, expectedIdentifiers: [String], expectNoEvidence: Bool, line: Int = 0) {
    self.id = id
    self.question = question
    self.expectedIdentifiers = expectedIdentifiers
    self.expectNoEvidence = expectNoEvidence
    self.line = line
  }

  /// Reads the fixtures in `path`.
  package static func load(path: String) throws(IngestError) -> [Fixture] {
    try parse(try EvaluationInput.read(path: path), file: path)
  }

  /// Parses fixture JSON Lines; any malformed line is an error naming its line.
  package static func parse(_ text: String, file: String) throws(IngestError) -> [Fixture] {
    var fixtures: [Fixture] = []
    var lineOfID: [String: Int] = [:]
    for (line, object) in try EvaluationInput.objects(text, file: file) {
      let id = try EvaluationInput.identifier(object["id"], key: "id", file: file, line: line) ?? "line \(line)"
      if let first = lineOfID[id] {
        throw IngestError(file: file, line: line, message: "duplicate id '\(id)' (first on line \(first))")
      }
      lineOfID[id] = line
      let question = try EvaluationInput.text(object, key: "question", file: file, line: line)
      var expected: [String] = []
      switch object["expectedIdentifiers"] {
      case nil, .null?: break
      case .array(let elements)?:
        for element in elements {
          let identifier: String
          switch element {
          case .string(let s) where !s.isEmpty: identifier = s
          case .number(let n): identifier = JSONValue.format(number: n)
          default:
            throw IngestError(
              file: file, line: line,
              message: "'expectedIdentifiers' must be an array of strings, found \(element == .string("") ? "an empty string" : element.kindDescription) in it")
          }
          if !expected.contains(identifier) { expected.append(identifier) }
        }
      case let other?:
        throw IngestError(file: file, line: line, message: "'expectedIdentifiers' must be an array of strings, found \(other.kindDescription)")
      }
      var expectNoEvidence = false
      switch object["expectNoEvidence"] {
      case nil, .null?: break
      case .bool(let b)?: expectNoEvidence = b
      case let other?:
        throw IngestError(file: file, line: line, message: "'expectNoEvidence' must be true or false, found \(other.kindDescription)")
      }
      if expectNoEvidence && !expected.isEmpty {
        throw IngestError(file: file, line: line, message: "'expectNoEvidence' is true but 'expectedIdentifiers' is not empty")
      }
      fixtures.append(Fixture(id: id, question: question, expectedIdentifiers: expected, expectNoEvidence: expectNoEvidence, line: line))
    }
    guard !fixtures.isEmpty else { throw IngestError(file: file, line: nil, message: "no questions in the file") }
    return fixtures
  }
}
