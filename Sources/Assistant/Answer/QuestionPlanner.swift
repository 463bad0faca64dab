import QueryEngine
import SearchIndex

/// Turns a plain question into a query of the language, with no model: what the offline
/// responder (and a model that never searched) runs.
package protocol QuestionPlanner: Sendable {
  func plan(_ question: String) throws -> AnswerPlan
}

/// A planned question.
package struct AnswerPlan: Sendable {
  /// The query that answers the question; empty when the question has nothing to search for.
  package var dsl: String
  /// For aggregate answers (counts, groups, statistics): the query for the items behind the
  /// answer, which the answer cites. Nil when `dsl` returns items.
  package var evidenceDSL: String?
  /// What the planner understood.
  package var notes: [String]
  /// When `dsl` is a plain ranked text search: its terms with their weights (rarer terms
  /// weigh more). The no-evidence check keeps only items that contain enough of them.
  package var rankedTerms: [(term: String, weight: Double)]

  package init(dsl: String, evidenceDSL: String? = nil, notes: [String] = [], rankedTerms: [(term: String, weight: Double)] = []) {
    self.dsl = dsl
    self.evidenceDSL = evidenceDSL
    self.notes = notes
    self.rankedTerms = rankedTerms
  }
}

/// The plainest planner: a ranked search for any of the question's content words.
package struct RankedTextPlanner: QuestionPlanner {
  /// Items the search keeps.
  package var resultLimit: Int

  package init(resultLimit: Int = 10) {
    self.resultLimit = resultLimit
  }

  static let stopWords: Set<String> = [
    "a", "about", "all", "an", "and", "any", "are", "as", "at", "be", "been", "by", "can", "did", "do", "does", "find", "for",
    "from", "had", "has", "have", "how", "i", "in", "is", "it", "its", "list", "me", "my", "of", "on", "or", "say", "show",
    "tell", "that", "the", "there", "this", "to", "was", "we", "were", "what", "when", "where", "which", "who", "why",
    "with", "you", "your",
  ]

  package func plan(_ question: String) throws -> AnswerPlan {
    var seen = Set<String>()
    let words = question.split { !$0.isLetter && !$0.isNumber }.map { TextFolding.fold(String($0)) }
      .filter { !Self.stopWords.contains($0) && seen.insert($0).inserted }
    guard !words.isEmpty else { return AnswerPlan(dsl: "", notes: ["no content words"]) }
    let text = words.map { DSLWriter.pattern($0) }.joined(separator: " || ")
    return AnswerPlan(dsl: "search \(text) | top \(resultLimit)", rankedTerms: words.map { ($0, 1) })
  }
}
