import Foundation
import Testing
@testable import SearchIndex

/// All 225 Cranfield questions against the 1,400 abstracts (title + text):
/// pruned top-k equals the exhaustive top-k for every query.
@Suite struct CranfieldTests {
  static let directory = ProcessInfo.processInfo.environment["CRANFIELD_DIR"]
    ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("shared/data/cranfield").path

  /// Lower-case, split on anything that is not a letter or digit.
  static func tokenize(_ text: String) -> [String] {
    text.lowercased().split { !($0.isLetter || $0.isNumber) }.map(String.init)
  }

  static func records(_ file: String) throws -> [[String: String]] {
    let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
    return try text.split(separator: "\n").map {
      try JSONDecoder().decode([String: String].self, from: Data($0.utf8))
    }
  }

  @Test
  func allQueriesMatchExhaustive() throws {
    let parameters = BM25FParameters.titleBody
    var index = InMemoryRankedIndex(parameters: parameters, store: InMemoryPostingStore())
    var model = ReferenceModel(parameters: parameters)
    let documents = try Self.records("corpus.jsonl").map {
      IndexedDocument(id: DocID($0["id"]!)!, fields: [Self.tokenize($0["title"]!), Self.tokenize($0["text"]!)])
    }
    #expect(documents.count == 1_400)
    try index.add(contentsOf: documents)
    documents.forEach { model.upsert($0) }
    let queries = try Self.records("queries.jsonl").map { Self.tokenize($0["text"]!).map { QueryTerm($0) } }
    #expect(queries.count == 225)
    for (number, query) in queries.enumerated() {
      for k in number % 4 == 0 ? [10, 100] : [10] {
        let expected = index.searchExhaustive(query, k: k)
        #expect(expected.count == k)
        for algorithm in RetrievalAlgorithm.allCases {
          #expect(index.search(query, k: k, algorithm: algorithm) == expected, "query \(number + 1) k=\(k)")
        }
        if k == 10 { #expect(agreesWithReference(expected, model.search(query, k: k)), "query \(number + 1)") }
      }
    }
  }
}
