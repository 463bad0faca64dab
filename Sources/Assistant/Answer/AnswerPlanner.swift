import QueryEngine
import SearchIndex

/// Turns a plain question into a query of the language with no model: what the offline
/// responder runs, and what a model that answered without searching is given.
/// `BuiltinPlanner` is the standard one.
public protocol AnswerPlanner: Sendable {
  func plan(_ question: String) throws -> PlannedQuery
}

extension BuiltinPlanner: AnswerPlanner {}

extension PlannedQuery {
  /// True when the plan searches for nothing (a question of stop words becomes "the most
  /// recent items"): whatever it returns is no evidence for the question.
  var searchesNothing: Bool {
    guard intent == .list, case .search(let predicate, _)? = query.statements.first?.pipeline.source else { return false }
    return predicate.kind == .anyAttribute(deep: false)
  }

  /// For a plain ranked text search, its terms and their weights: its items are evidence
  /// only when they contain enough of them. The question's words that no visible item
  /// contains count too, at the weight of the rarest word: "What is my cat's name?" is not
  /// answered by items that only mention a name. Empty for plans with filters or aggregates.
  var rankedTerms: [TermWeight] {
    intent == .search ? (evidenceTerms.isEmpty ? termWeights : evidenceTerms) : []
  }
}
