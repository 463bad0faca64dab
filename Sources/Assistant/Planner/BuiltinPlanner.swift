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
/// Plans are built as parsed queries (`PlannedQuery.query`, see `PlanSyntax`), never as text
/// to parse: the planner's own searches (probes, relevance feedback, the known-item check)
/// run those trees, and `dsl` is their printed text.
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
  /// A structured reading that finds nothing gives way to the ranked search of the question's
  /// words, and misspelt words are retried as the index's closest words (see `plan(_:)`).
  /// Off only to inspect what the recognisers make of a question.
  public var neverEmptyHanded = true
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
  ///
  /// Never empty-handed: a structured reading (dates, counts, phrases, known values) that
  /// finds nothing, while the question's words do, gives way to the ranked text search of its
  /// content words; a word that matches nothing is retried as the index's closest word. The
  /// notes say which reading was used and why.
  public func plan(_ question: String) throws(QueryError) -> PlannedQuery {
    try QueryError.catching { try readingPlan(question) }
  }

  /// `plan`, untyped inside: the readings, the probes and the index's errors.
  func readingPlan(_ question: String) throws -> PlannedQuery {
    if let groups = PlanBuilder.rankedGroupsQuestion(question, vocabulary: vocabulary, clock: clock) {
      var plan = try readingPlan(groups.question)
      if plan.rankedGroupAttribute == groups.attribute {
        plan.notes.insert("\u{201C}\(question)\u{201D} read as \u{201C}\(groups.question)\u{201D}", at: 0)
        plan.question = question
        return plan
      }
    }
    if let asked = try attributePlan(question), try findsAny(asked.itemsQuery) { return asked }
    if let related = try relationPlan(question), try findsAny(related.itemsQuery) { return related }
    var plan = try readPlan(question, structured: true)
    guard neverEmptyHanded else { return plan }
    if plan.isStructured, !plan.asksForAbsence, try !finds(plan) {
      // The collection a noun names may be what finds nothing ("how many documents mention
      // systemd" where the text files are notes): the same reading over every item keeps
      // the count, the dates and the filters; then the words alone.
      let everywhere = plan.filtersByCollection ? try readPlan(question, structured: true, filteringByCollection: false) : nil
      if let everywhere, try finds(everywhere) {
        var fallback = everywhere
        fallback.notes.insert("the structured reading found nothing (\(plan.dsl)); read over every item instead", at: 0)
        fallback.collectionWithoutMatches = Self.collectionPhrase(plan.collectionWords)
        plan = fallback
      } else {
        let text = try readPlan(question, structured: false)
        if try finds(text) {
          var fallback = text
          fallback.notes.insert(
            "the structured reading found nothing (\(plan.dsl)); searched the question's words instead", at: 0)
          fallback.collectionWithoutMatches = Self.collectionPhrase(plan.collectionWords)
          plan = fallback
        }
      }
    }
    if !plan.misspelt.isEmpty {
      plan = try respelt(plan)
    }
    return try boostingKnownItem(plan)
  }

  /// "emails", "notes or emails": the collection a question named, for the answer that says
  /// it had no match; nil when it named none.
  static func collectionPhrase(_ words: [String]) -> String? {
    words.isEmpty ? nil : words.map(plural).joined(separator: " or ")
  }

  /// A collection noun as "None of your … match" needs it: "note" is said "notes", "library"
  /// "libraries", "inbox" "inboxes"; a plural stays as typed.
  static func plural(_ word: String) -> String {
    if PlanBuilder.isPlural(word) || word.count < 3 { return word }
    if word.hasSuffix("y"), let before = word.dropLast().last, !"aeiou".contains(before) { return word.dropLast() + "ies" }
    if ["s", "x", "z", "ch", "sh"].contains(where: word.hasSuffix) { return word + "es" }
    return word + "s"
  }

  /// A ranked search whose words are exactly an item's title (`git`, "Mist Trail") puts
  /// that item first: who types a name wants the thing of that name, not the items that
  /// mention it most. The ranked list's first 1000 are re-scored with a bonus for the title.
  /// `named` is the part of the question that names the item, when not all of it does.
  func boostingKnownItem(_ plan: PlannedQuery, named: String? = nil) throws -> PlannedQuery {
    guard case .search = plan.intent, let search = plan.rankedSearch else { return plan }
    let words = PlanBuilder(question: QuestionText.withoutQuotes(named ?? plan.question), vocabulary: vocabulary, clock: clock, resultLimit: resultLimit).contentWords
    guard (1...8).contains(words.count) else { return plan }
    let title = PlanSyntax.compare("title", .equal, PlanSyntax.quoted(words.joined(separator: " "), modifiers: "cd"))
    guard try findsAny(PlanSyntax.query(PlanSyntax.search(title, []))) else { return plan }
    // relevance + 1000 * if(title == "..."cd, 1, 0)
    let bonus = PlanSyntax.binary(
      .add, PlanSyntax.name("relevance"),
      PlanSyntax.binary(.multiply, PlanSyntax.number(1000), PlanSyntax.call("if", [title, PlanSyntax.number(1), PlanSyntax.number(0)])))
    // The titled item joins the ranked list even when its own name ranks it past the first
    // 1000 (the package python3, 2,736th for "python3": thousands of packages depend on it).
    // `merge` keeps an item's first copy, the ranked one with its relevance, when both have it.
    var boosted = plan
    boosted.query = PlanSyntax.query([
      ("ranked", search.appending(PlanSyntax.stage("top", words: "\(max(1000, resultLimit))"))),
      ("titled", PlanSyntax.search(title, [])),
      (nil, PlanSyntax.merge(["ranked", "titled"], [PlanSyntax.stage("score", [[bonus]]), PlanSyntax.stage("top", words: "\(resultLimit)")])),
    ])
    boosted.rankedSearch = nil
    boosted.notes.append("an item is titled \u{201C}\(words.joined(separator: " "))\u{201D}: it ranks first (known item)")
    return boosted
  }

  /// Suggestions for the words of `plan` that match no visible item, from the index's
  /// vocabulary; when `plan` finds nothing, the plan of the question with each such word
  /// replaced by its best suggestion, if that finds something.
  func respelt(_ plan: PlannedQuery) throws -> PlannedQuery {
    var plan = plan
    var replacements: [String: String] = [:]
    for word in plan.misspelt {
      let suggestions = try index.spellingSuggestions(for: word, scope: scope)
      guard let best = suggestions.first else { continue }
      plan.suggestions.append(PlannedQuery.Suggestion(word: word, alternatives: suggestions.map(\.word)))
      replacements[word] = best.word
    }
    guard !replacements.isEmpty else { return plan }
    let listed = plan.suggestions.map { suggestion in
      "\u{201C}\(suggestion.word)\u{201D}: did you mean " + suggestion.alternatives.map { "\u{201C}\($0)\u{201D}" }.joined(separator: " or ") + "?"
    }
    guard try !finds(plan) else {
      plan.notes.append("no item contains " + listed.joined(separator: "; "))
      return plan
    }
    let corrected = QuestionText.replacingWords(in: plan.question, replacements)
    var retried = try readPlan(corrected, structured: true)
    if retried.isStructured, try !finds(retried) { retried = try readPlan(corrected, structured: false) }
    guard try finds(retried) else {
      plan.notes.append("no item contains " + listed.joined(separator: "; "))
      return plan
    }
    let used = replacements.sorted { $0.key < $1.key }.map { "\u{201C}\($0.key)\u{201D} -> \u{201C}\($0.value)\u{201D}" }
    retried.question = plan.question
    retried.suggestions = plan.suggestions
    retried.notes.insert("nothing matched the question as written; searched it with the closest words of the index: " + used.joined(separator: ", "), at: 0)
    return retried
  }

  /// True when the items of `plan` (for an aggregate, the items behind it) are not empty.
  func finds(_ plan: PlannedQuery) throws -> Bool {
    // A hybrid plan's `similar` side needs the embeddings endpoint, which planning never
    // calls (and which finds neighbours for anything): whether a reading finds something is
    // decided by the same reading without it.
    var probe = plan
    if hybrid {
      var textOnly = self
      textOnly.hybrid = false
      probe = try textOnly.readPlan(plan.question, structured: plan.isStructured)
    }
    return try findsAny(probe.itemsQuery)
  }

  /// True when the items query `items` finds at least one item the scope may see.
  func findsAny(_ items: QuerySyntax) throws -> Bool {
    var found = false
    try run(Self.existenceQuery(items)) { reply in
      if case .count(let count) = reply.content, count > 0 { found = true }
    }
    return found
  }

  /// The query that asks whether `items` finds anything: its items, at most one, counted.
  /// Only existence matters, so no ranking runs: the count of a text search is one FTS5
  /// statement that stops at its first visible match, where `| limit 1` alone would rank
  /// (the exact top 1 of an OR search reads every candidate its filter allows).
  static func existenceQuery(_ items: QuerySyntax) -> QuerySyntax {
    items.appending(PlanSyntax.stage("limit", words: "1"), PlanSyntax.stage("count"))
  }

  /// Type-checks `query` over the index and runs it.
  func run(_ query: QuerySyntax, onReply: (Reply) throws -> Void) throws {
    let executor = QueryExecutor(index: index, registry: registry)
    let options = QueryOptions(scope: scope, clock: clock)
    try executor.execute(try prepare(query, executor: executor, options: options), options: options, onReply: onReply)
  }

  /// `query` type-checked, its text (where diagnostics point) printed from it.
  func prepare(_ query: QuerySyntax, executor: QueryExecutor, options: QueryOptions) throws(QueryError) -> QueryGraph {
    try executor.prepare(query, source: SourceText(SyntaxPrinter.text(query)), options: options)
  }

  /// The plan of one reading: `structured` runs every recogniser; otherwise the question is
  /// read as text only (quotes ignored), its content words a ranked search.
  func readPlan(_ question: String, structured: Bool, filteringByCollection: Bool = true) throws -> PlannedQuery {
    var builder = PlanBuilder(
      question: structured ? question : QuestionText.withoutQuotes(question), vocabulary: vocabulary, clock: clock,
      resultLimit: resultLimit)
    builder.filtersByCollection = filteringByCollection
    if structured { builder.recognize() } else { builder.releaseCollectionNouns() }
    builder.stemming = stemming
    builder.hybrid = hybrid
    let frequencies = try IndexVocabulary.documentFrequencies(builder.searchTerms, index: index, scope: scope)
    let unassembled = builder
    var plan = builder.assemble(documentFrequencies: frequencies)
    if !structured {
      plan.question = question
      plan.notes.insert("read as text: the question's content words, ranked", at: 0)
    }
    if let feedback, case .search = plan.intent, builder.textTerms.count >= max(1, feedback.minimumQuestionTerms),
      let expanded = try? expand(unassembled, firstSearch: builder, frequencies: frequencies, feedback: feedback)
    {
      plan = expanded
      if !structured { plan.question = question }
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
    var found: [(rowid: Int64, relevance: Double)] = []
    try run(PlanSyntax.query(firstSearch.source(ranked: true).appending(PlanSyntax.stage("top", words: "\(feedback.documents)")))) { reply in
      for item in reply.content.resultItems { found.append((item.rowid, item.relevance)) }
    }
    guard !found.isEmpty else { return nil }
    let texts = try index.fullTextColumns(ofItems: found.map(\.rowid))
    let evidence = found.map { rowid, relevance in RelevanceFeedback.Evidence(texts: texts[rowid] ?? [], relevance: relevance) }
    let n = max(vocabulary.documentCount, 1)
    let rarity = Dictionary(firstSearch.textTerms.map { ($0, PlanBuilder.weight(documentFrequency: frequencies[$0] ?? 0, documents: n)) }, uniquingKeysWith: max)
    let terms = feedback.expand(firstSearch.textTerms, evidence: evidence, rarity: rarity)
    let added = terms.filter(\.added)
    guard !added.isEmpty else { return nil }
    var builder = builder
    var plan = builder.assemble(documentFrequencies: frequencies, feedbackTerms: terms)
    let listed = added.map { "\(TermForms.display($0.term)) \(DSLText.weight($0.weight))" }.joined(separator: ", ")
    plan.notes.append("relevance feedback: the best \(found.count) items of a first search added \(listed)")
    return plan
  }

  /// Type-checks a plan's queries over the index.
  func check(_ plan: PlannedQuery) throws {
    let executor = QueryExecutor(index: index, registry: registry)
    let options = QueryOptions(scope: scope, clock: clock)
    _ = try prepare(plan.query, executor: executor, options: options)
    if let evidence = plan.evidence { _ = try prepare(evidence, executor: executor, options: options) }
  }

  /// The plain ranked text search of a question's content words.
  func fallback(_ question: String) throws -> PlannedQuery {
    var builder = PlanBuilder(question: question, vocabulary: vocabulary, clock: clock, resultLimit: resultLimit)
    builder.stemming = stemming
    let all = try IndexVocabulary.documentFrequencies(builder.searchTerms, index: index, scope: scope)
    return builder.assemble(documentFrequencies: all)
  }
}
