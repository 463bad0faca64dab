import Foundation
import QueryEngine
import SearchIndex
import Stages

/// The built-in, deterministic planner: turns a plain-language question into a query of
/// Searchlight's language, so search works with no model at all (DESIGN §5).
///
/// It reads the index's attribute catalogue and the values of its low-cardinality text
/// attributes once, at initialisation, and then recognises in each question:
/// - dates, relative and absolute ("yesterday", "last week" = the previous calendar week,
///   "past 7 days", "in October", "since June", "2025"), resolved against `clock`;
/// - values the index knows ("in California", "by Sam Ortiz", "tagged waterfall") and content
///   types ("trails", "hikes", "emails");
/// - numeric phrases on numeric attributes ("rated 4 or more", "under 5 km");
/// - counting ("how many"), grouping ("per state", "by month"), statistics ("average
///   distance") and superlatives ("highest rated", "longest");
/// - quoted phrases;
/// and searches the remaining content words (question words and stop words dropped) as a
/// ranked text search, rare terms weighted more. Every plan it returns type-checks against
/// the index; an unexpected failure falls back to the plain text search.
///
/// ```swift
/// let planner = try BuiltinPlanner(index: index, clock: QueryClock(now: now, timeZone: .current))
/// let plan = try planner.plan("how many trails per state")
/// // plan.dsl == #"search contentType == "trail" | group by stateOrProvince | count"#
/// ```
public struct BuiltinPlanner: Sendable {
  public let index: SearchIndex
  public let clock: QueryClock
  /// Who is asking: only items visible to this scope shape plans (known values, term weights).
  public let scope: AccessScope
  /// How many items a ranked search keeps (`| top N`), and a plural superlative.
  public let resultLimit: Int
  /// Search words of five letters or more as prefixes of their stems ("models" -> `model*`).
  public let stemming: Bool
  /// Ranked searches fuse text and embedding retrieval (`fuse`); true by default when the
  /// index has embeddings. Running such plans needs `QueryOptions.embedder`.
  public var hybrid: Bool
  /// Relevance feedback for ranked text searches (RM3, see `RelevanceFeedback`): the first
  /// search's best items add weighted words to the query. Nil turns it off.
  public var feedback: RelevanceFeedback? = RelevanceFeedback.configured
  let registry: StageRegistry
  let vocabulary: IndexVocabulary

  /// Reads the vocabulary of `index`.
  ///
  /// - Parameters:
  ///   - scope: what the asker may see; by default no protection classes, expiry by the real clock.
  ///   - registry: the stages plans are checked against; the standard library by default.
  public init(
    index: SearchIndex, clock: QueryClock, scope: AccessScope? = nil, resultLimit: Int = 10, stemming: Bool = true,
    registry: StageRegistry = StandardLibrary.registry()
  ) throws {
    self.stemming = stemming
    self.index = index
    self.clock = clock
    self.scope = scope ?? AccessScope()
    self.resultLimit = max(1, resultLimit)
    self.registry = registry
    self.vocabulary = try IndexVocabulary.load(index, scope: self.scope)
    self.hybrid = try index.embeddingConfiguration() != nil
  }

  /// The query for `question`, with notes on what was understood.
  public func plan(_ question: String) throws -> PlannedQuery {
    var builder = PlanBuilder(question: question, vocabulary: vocabulary, clock: clock, resultLimit: resultLimit)
    builder.recognize()
    builder.stemming = stemming
    builder.hybrid = hybrid
    let frequencies = try IndexVocabulary.documentFrequencies(builder.searchTerms, index: index, scope: scope)
    let unassembled = builder
    var plan = builder.assemble(documentFrequencies: frequencies)
    if let feedback, case .search = plan.intent, builder.textTerms.count >= max(1, feedback.minimumQuestionTerms),
      let expanded = try? expand(unassembled, firstSearch: builder, frequencies: frequencies, feedback: feedback)
    {
      plan = expanded
    }
    do {
      try check(plan)
    } catch {
      // A recogniser produced something the language rejects: search the words instead.
      let reason = "\(error)".split(separator: "\n").first.map(String.init) ?? "\(error)"
      plan = try fallback(question)
      plan.notes.append("the structured plan did not type-check (\(reason)); searching the words instead")
      try check(plan)
    }
    return plan
  }

  /// The plan with relevance feedback: runs the ranked text search of `firstSearch` (an
  /// assembled builder), reads the full text of its best items, and assembles `builder`
  /// again with the expanded, weighted terms. Nil when the first search finds nothing or
  /// suggests no words.
  func expand(
    _ builder: PlanBuilder, firstSearch: PlanBuilder, frequencies: [String: Int], feedback: RelevanceFeedback
  ) throws -> PlannedQuery? {
    let executor = QueryExecutor(index: index, registry: registry)
    let options = QueryOptions(scope: scope, clock: clock)
    var found: [(rowid: Int64, relevance: Double)] = []
    _ = try executor.run(firstSearch.source(ranked: true) + " | top \(feedback.documents)", options: options) { reply in
      for item in reply.content.resultItems { found.append((item.rowid, item.relevance)) }
    }
    guard !found.isEmpty else { return nil }
    let texts = try index.fullTextColumns(ofItems: found.map(\.rowid))
    let evidence = found.map { rowid, relevance in RelevanceFeedback.Evidence(texts: texts[rowid] ?? [], relevance: relevance) }
    let terms = feedback.expand(firstSearch.textTerms, evidence: evidence)
    let added = terms.filter(\.added)
    guard !added.isEmpty else { return nil }
    var builder = builder
    var plan = builder.assemble(documentFrequencies: frequencies, feedbackTerms: terms)
    let listed = added.map { "\(TermForms.display($0.term)) \(DSLText.weight($0.weight))" }.joined(separator: ", ")
    plan.notes.append("relevance feedback: the best \(found.count) items of a first search added \(listed)")
    return plan
  }

  /// Parses and type-checks a plan's queries over the index.
  func check(_ plan: PlannedQuery) throws {
    let executor = QueryExecutor(index: index, registry: registry)
    let options = QueryOptions(scope: scope, clock: clock)
    _ = try executor.prepare(plan.dsl, options: options)
    if let evidence = plan.evidenceDSL { _ = try executor.prepare(evidence, options: options) }
  }

  /// The plain ranked text search of a question's content words.
  func fallback(_ question: String) throws -> PlannedQuery {
    var builder = PlanBuilder(question: question, vocabulary: vocabulary, clock: clock, resultLimit: resultLimit)
    builder.stemming = stemming
    let all = try IndexVocabulary.documentFrequencies(builder.searchTerms, index: index, scope: scope)
    return builder.assemble(documentFrequencies: all)
  }
}
