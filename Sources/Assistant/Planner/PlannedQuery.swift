import QueryEngine
import SearchIndex

/// What the built-in planner made of a question: a query in Searchlight's language, what it
/// understood (one note per recognised phrase, in the order of the question), and the kind
/// of answer the query produces.
///
/// The query is a parsed query (`query`, the tree the parser gives for `dsl`) built by the
/// planner directly; `dsl` is its text, for display.
public struct PlannedQuery: Sendable, Hashable {
  /// The kind of answer a plan produces.
  public enum Intent: Sendable, Hashable {
    /// A ranked full-text search of the question's content words (best first).
    case search
    /// The items that satisfy the recognised filters, newest first.
    case list
    /// How many items satisfy the filters (`how many`).
    case count
    /// How many items per value of an attribute (`per state`), or per calendar period
    /// (`by month`: the attribute is the date attribute, `period` the unit).
    case groupCount(attribute: String, period: String?)
    /// A statistic of a numeric attribute (`average distance`), optionally per value of an
    /// attribute.
    case statistic(function: String, attribute: String, by: String?)
    /// The items with the largest or smallest value of an attribute (`longest`).
    case superlative(attribute: String, descending: Bool, limit: Int)
  }

  /// The question as asked.
  public var question: String
  /// The query, as the parser would give it for `dsl` (its spans point nowhere in
  /// particular): it type-checks and runs with `QueryExecutor.prepare(_:source:options:)`
  /// over the planner's index.
  public var query: QuerySyntax
  /// For aggregate answers (counts, groups, statistics): the query for the items behind the
  /// answer, so they can be shown or cited. Nil when `query` already returns items.
  public var evidence: QuerySyntax?
  /// What was understood, e.g. `“last week” -> contentModificationDate in [2026-11-16, 2026-11-23)`.
  public var notes: [String]
  public var intent: Intent
  /// The text-search terms with their weights (rarer terms weigh more), heaviest first. The
  /// query language does not carry term weights yet, so they are reported here (and in `notes`).
  public var termWeights: [TermWeight] = []
  /// Words of the question that no visible item contains, with the closest words of the
  /// index ("did you mean"), nearest and most frequent first. Empty when every word matched
  /// or nothing is close.
  public var suggestions: [Suggestion] = []
  /// True when the plan filters, counts, groups or sorts (anything but a ranked text search
  /// of the question's words).
  public var isStructured = false
  /// The words of the question that named the content types or domains the plan filters by
  /// ("emails", "work notes"); empty when it filters by none.
  var collectionWords: [String] = []
  /// True when a noun of the question named a content type or a domain the plan filters by.
  var filtersByCollection: Bool { !collectionWords.isEmpty }
  /// When the collection the question named had no match and the plan reads over every item
  /// instead: the words that named it, so an answer can say so before what it found elsewhere.
  public var collectionWithoutMatches: String?
  /// Whether the plan asks for items that lack an attribute ("packages with no homepage"):
  /// finding none is then the answer, not a misreading to fall back from.
  var asksForAbsence = false
  /// The content words that match no visible item (folded), the candidates for `suggestions`.
  var misspelt: [String] = []
  /// A ranked search plan's query without the `top` that ends it (`search "a"s || "b"s`,
  /// and its `people` stages), for a planner step that ranks its results again; nil for
  /// other plans.
  var rankedSearch: PipelineSyntax?
  /// For groups ranked by a count or a statistic ("which state has the most trails"): the
  /// attribute whose groups the answer's table lists, so the sources are the items of those
  /// groups rather than the first items of the collection.
  var rankedGroupAttribute: String?
  /// Every content word of the ranked search with its weight, those no visible item contains
  /// included (they weigh most): an item is evidence only when it covers enough of them.
  var evidenceTerms: [TermWeight] = []

  /// A word that matched nothing and the index's words close to it.
  public struct Suggestion: Sendable, Hashable {
    public var word: String
    public var alternatives: [String]
    public init(word: String, alternatives: [String]) {
      self.word = word
      self.alternatives = alternatives
    }
  }

  /// A text-search term and its weight: the inverse document frequency in the index.
  public struct TermWeight: Sendable, Hashable {
    public var term: String
    public var weight: Double
    public init(term: String, weight: Double) {
      self.term = term
      self.weight = weight
    }
  }

  public init(question: String, query: QuerySyntax, evidence: QuerySyntax? = nil, notes: [String], intent: Intent) {
    self.question = question
    self.query = query
    self.evidence = evidence
    self.notes = notes
    self.intent = intent
  }

  /// A plan of queries given as text, parsed.
  public init(question: String, dsl: String, evidenceDSL: String? = nil, notes: [String], intent: Intent) throws(QueryError) {
    let query = try QueryError.catching { try Parser.parse(SourceText(dsl)) }
    let evidence = try evidenceDSL.map { text throws(QueryError) in try QueryError.catching { try Parser.parse(SourceText(text)) } }
    self.init(question: question, query: query, evidence: evidence, notes: notes, intent: intent)
  }

  /// The query's text (`SyntaxPrinter.text`): it parses back to `query`.
  public var dsl: String { SyntaxPrinter.text(query) }

  /// The text of `evidence`.
  public var evidenceDSL: String? { evidence.map { SyntaxPrinter.text($0) } }

  /// The query whose items answer the question: `evidence` when there is one, else `query`.
  public var itemsQuery: QuerySyntax { evidence ?? query }

  /// The text of `itemsQuery`.
  public var itemsDSL: String { evidenceDSL ?? dsl }
}

extension PlannedQuery.Intent: CustomStringConvertible {
  public var description: String {
    switch self {
    case .search: "search"
    case .list: "list"
    case .count: "count"
    case .groupCount(let attribute, let period): period.map { "count per \($0) of \(attribute)" } ?? "count per \(attribute)"
    case .statistic(let function, let attribute, let by): "\(function)(\(attribute))" + (by.map { " by \($0)" } ?? "")
    case .superlative(let attribute, let descending, let limit): "\(descending ? "largest" : "smallest") \(attribute) (\(limit))"
    }
  }
}

extension PlannedQuery {
  /// The plan as `plan --format json` prints it (and `serve`'s `/v1/plan` answers): question,
  /// dsl, evidence (for counts and statistics), intent, notes, and suggestions when a word
  /// matched nothing.
  public var jsonObject: JSONObject {
    var object = JSONObject()
    object["question"] = .string(question)
    object["dsl"] = .string(dsl)
    if let evidenceDSL { object["evidence"] = .string(evidenceDSL) }
    object["intent"] = .string(intent.description)
    object["notes"] = .array(notes.map(JSONValue.string))
    if !suggestions.isEmpty {
      object["suggestions"] = .array(suggestions.map { suggestion in
        .object(JSONObject([("word", .string(suggestion.word)), ("alternatives", .array(suggestion.alternatives.map(JSONValue.string)))]))
      })
    }
    return object
  }
}
