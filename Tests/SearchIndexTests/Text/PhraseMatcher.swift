@testable import SearchIndex

/// A model of FTS5 phrase matching over analyzer output, small enough to trust by reading.
///
/// Positions are assigned as FTS5 does: each token that is not colocated starts a new
/// position, a colocated token shares the previous one. In a document, a position holds all
/// its tokens; in a query, the tokens of one position are alternatives (FTS5 ORs colocated
/// query tokens). A phrase matches when its positions line up with consecutive document
/// positions, each sharing at least one token.
enum PhraseMatcher {
  static func positions(_ tokens: [AnalyzedToken]) -> [Set<String>] {
    var result: [Set<String>] = []
    for token in tokens {
      if token.colocated, !result.isEmpty {
        result[result.count - 1].insert(token.text)
      } else {
        result.append([token.text])
      }
    }
    return result
  }

  static func matches(document: [AnalyzedToken], query: [AnalyzedToken]) -> Bool {
    let doc = positions(document)
    let phrase = positions(query)
    guard !phrase.isEmpty, phrase.count <= doc.count else { return false }
    for start in 0...(doc.count - phrase.count) {
      if phrase.indices.allSatisfy({ !doc[start + $0].isDisjoint(with: phrase[$0]) }) { return true }
    }
    return false
  }

  /// Tokenizes both sides with `analyzer` and matches the query as one phrase.
  static func matches(_ analyzer: TextAnalyzer, document: String, query: String, mode: TokenizeMode = .query) -> Bool {
    matches(document: analyzer.tokens(document, mode: .document), query: analyzer.tokens(query, mode: mode))
  }
}
