import Testing
@testable import Evaluation
import SearchIndex

/// The three evaluation inputs: fixtures, TREC queries and judgments; malformed lines fail
/// with their line number.
@Suite struct FixtureTests {
  @Test func readsQuestionsWithDefaultsAndIgnoresUnknownMembers() throws {
    let fixtures = try Fixture.parse("""
      {"id": "f1", "question": "When is the Orion launch?", "expectedIdentifiers": ["note-28", "mail-13"], "expectNoEvidence": false}

      {"question": "What is my cat's name?", "expectNoEvidence": true, "category": "personal"}
      {"id": 7, "question": "Which trails?", "expectedIdentifiers": ["a", "a", "b"]}
      """, file: "f.jsonl")
    #expect(fixtures.count == 3)
    #expect(fixtures[0] == Fixture(id: "f1", question: "When is the Orion launch?", expectedIdentifiers: ["note-28", "mail-13"], expectNoEvidence: false, line: 1))
    #expect(fixtures[1].id == "line 3")
    #expect(fixtures[1].expectNoEvidence)
    #expect(fixtures[1].expectedIdentifiers.isEmpty)
    #expect(fixtures[2].id == "7")
    #expect(fixtures[2].expectedIdentifiers == ["a", "b"])
    #expect(fixtures[2].line == 4)
  }

  @Test(arguments: [
    (#"{"id": "x", "question": "q"}"# + "\n" + #"{"id": "y", "question": }"#, 2, "not a JSON object"),
    ("\n\n" + #"["a"]"#, 3, "expected a JSON object, found an array"),
    (#"{"id": "x"}"#, 1, "missing 'question'"),
    (#"{"id": "x", "question": 3}"#, 1, "'question' must be a string, found a number"),
    (#"{"id": "x", "question": "  "}"#, 1, "'question' is empty"),
    (#"{"id": "x", "question": "q", "expectedIdentifiers": "a"}"#, 1, "'expectedIdentifiers' must be an array of strings, found a string"),
    (#"{"id": "x", "question": "q", "expectedIdentifiers": [true]}"#, 1, "'expectedIdentifiers' must be an array of strings, found a boolean in it"),
    (#"{"id": "x", "question": "q", "expectNoEvidence": "yes"}"#, 1, "'expectNoEvidence' must be true or false, found a string"),
    (#"{"id": "x", "question": "q", "expectedIdentifiers": ["a"], "expectNoEvidence": true}"#, 1, "'expectNoEvidence' is true but 'expectedIdentifiers' is not empty"),
    (#"{"id": "x", "question": "q"}"# + "\n" + #"{"id": "x", "question": "r"}"#, 2, "duplicate id 'x' (first on line 1)"),
  ])
  func malformedLinesNameTheirLine(text: String, line: Int, message: String) {
    #expect {
      try Fixture.parse(text, file: "f.jsonl")
    } throws: { error in
      guard let error = error as? IngestError else { return false }
      return error.file == "f.jsonl" && error.line == line && error.message.hasPrefix(message) && error.kind == .badData
    }
  }

  @Test func anEmptyFileIsAnError() {
    #expect(throws: IngestError(file: "f.jsonl", line: nil, message: "no questions in the file")) {
      try Fixture.parse("\n  \n", file: "f.jsonl")
    }
  }

  @Test func aMissingFileIsMissingInput() {
    #expect(throws: IngestError(.missingInput, file: "/nonexistent/f.jsonl", line: nil, message: "no such file")) {
      try Fixture.load(path: "/nonexistent/f.jsonl")
    }
  }

  @Test func theSampleFixturesParse() throws {
    let path = #filePath.split(separator: "/").dropLast(2).joined(separator: "/")
    let fixtures = try Fixture.load(path: "/" + path + "/Fixtures/sample-fixtures.jsonl")
    #expect(fixtures.count == 30)
    #expect(fixtures.filter(\.expectNoEvidence).count == 4)
  }
}

@Suite struct TRECQueryTests {
  @Test func readsIdsAsStringsOrNumbersAndBEIRsUnderscoreID() throws {
    let queries = try TRECQuery.parse("""
      {"id": "1", "text": "what similarity laws must be obeyed"}
      {"_id": 2, "text": "structural problems", "metadata": {}}
      """, file: "q.jsonl")
    #expect(queries == [TRECQuery(id: "1", text: "what similarity laws must be obeyed", line: 1), TRECQuery(id: "2", text: "structural problems", line: 2)])
  }

  @Test(arguments: [
    (#"{"id": "1", "text": "a"}"# + "\n" + "not json", 2, "not a JSON object"),
    (#"{"text": "a"}"#, 1, "missing 'id'"),
    (#"{"id": "1"}"#, 1, "missing 'text'"),
    (#"{"id": [1], "text": "a"}"#, 1, "'id' must be a string, found an array"),
    (#"{"id": "1", "text": "a"}"# + "\n" + #"{"id": 1, "text": "b"}"#, 2, "duplicate query id '1' (first on line 1)"),
  ])
  func malformedLinesNameTheirLine(text: String, line: Int, message: String) {
    #expect {
      try TRECQuery.parse(text, file: "q.jsonl")
    } throws: { error in
      guard let error = error as? IngestError else { return false }
      return error.line == line && error.message.hasPrefix(message)
    }
  }
}

@Suite struct QrelsTests {
  @Test func readsTabSeparatedJudgmentsAfterAHeader() throws {
    let qrels = try Qrels.parse("query-id\tdoc-id\trelevance\n1\t184\t3\n1\t29\t0\r\n\n2\t12\t-1\n", file: "r.tsv")
    #expect(qrels.grades == ["1": ["184": 3, "29": 0], "2": ["12": -1]])
    #expect(qrels.count == 3)
    #expect(qrels["3"].isEmpty)
  }

  @Test func readsTheFourColumnTRECLayout() throws {
    let qrels = try Qrels.parse("401 0 FBIS3-10082 1\n401 0 FBIS3-10169 0\n", file: "r.qrels")
    #expect(qrels.grades == ["401": ["FBIS3-10082": 1, "FBIS3-10169": 0]])
  }

  @Test(arguments: [
    ("q\td\tgrade\n1\t2\n", 2, "expected query-id<TAB>doc-id<TAB>grade, found 2 fields"),
    ("1\t2\t3\n1\t3\thigh\n", 2, "grade 'high' is not a whole number"),
    ("1\t2\t3\n\t3\t1\n", 2, "empty query id"),
    ("1 2 3 4 5\n", 1, "expected query-id<TAB>doc-id<TAB>grade, found 5 fields"),
    ("1\t2\t3\n1\t2\t1\n", 2, "duplicate judgment of document '2' for query '1' (first on line 1)"),
  ])
  func malformedLinesNameTheirLine(text: String, line: Int, message: String) {
    #expect {
      try Qrels.parse(text, file: "r.tsv")
    } throws: { error in
      guard let error = error as? IngestError else { return false }
      return error.line == line && error.message == message
    }
  }

  @Test func aFileWithOnlyAHeaderIsAnError() {
    #expect(throws: IngestError(file: "r.tsv", line: nil, message: "no judgments in the file")) {
      try Qrels.parse("query-id\tcorpus-id\tscore\n", file: "r.tsv")
    }
  }
}
