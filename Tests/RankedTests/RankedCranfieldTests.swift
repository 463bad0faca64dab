import Foundation
import Testing
@testable import SearchIndex

/// The 225 Cranfield questions (content words, as the planner sends them: an OR of the
/// words without stop words) against the 1,400 abstracts indexed as items: the query
/// path returns exactly the exhaustive BM25F top 10 of the stored ranked index, which
/// agrees with the reference model. Reads the collection from the shared data folder.
@Suite struct RankedCranfieldTests {
  static let directory = ProcessInfo.processInfo.environment["CRANFIELD_DIR"]
    ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("shared/data/cranfield").path

  static func records(_ file: String) throws -> [[String: String]] {
    let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
    return try text.split(separator: "\n").map { try JSONDecoder().decode([String: String].self, from: Data($0.utf8)) }
  }

  @Test
  func everyQuestionMatchesExhaustiveScoring() throws {
    let fixture = try RankedTestIndex()
    let documents = try Self.records("corpus.jsonl")
    #expect(documents.count == 1_400)
    try fixture.upsert(documents.map { record in
      SearchableItem(
        uniqueIdentifier: record["id"]!, domainIdentifier: "cranfield",
        attributeSet: AttributeSet([("title", .string(record["title"]!)), ("textContent", .string(record["text"]!))]))
    })
    #expect(try fixture.consistencyProblems() == [])
    let questions = try Self.records("queries.jsonl")
    #expect(questions.count == 225)
    for (number, question) in questions.enumerated() {
      var words: [String] = []
      RankedAnalysis.analyzer.tokenize(question["text"]!, mode: .query) { token in
        let word = token.token.text
        if !StopWords.english.contains(word) && !words.contains(word) { words.append(word) }
      }
      guard !words.isEmpty else { continue }
      let terms = words.map { QueryTerm($0) }
      let query = RankedQueryTests.dsl(words, " | top 10")
      // A single word is an AND search, which stays on FTS5.
      let items = words.count > 1 ? try fixture.query(query) : nil
      // Every 5th question also against the independent reference model.
      let expected: [SearchHit]
      if number % 5 == 0 {
        expected = try fixture.expectExact(terms, k: 10, "question \(number + 1)")
      } else {
        expected = try fixture.ranked(terms, k: 10, algorithm: nil)
        #expect(try fixture.ranked(terms, k: 10) == expected, "question \(number + 1)")
      }
      #expect(expected.count == 10)
      if let items {
        #expect(items.map(\.rowid) == expected.map(\.id), "question \(number + 1)")
        #expect(items.map(\.relevance) == expected.map(\.score), "question \(number + 1)")
      }
    }
  }
}
