import SearchIndex

/// A text search of bare words answered by the ranked index instead of FTS5, which would
/// score every matching row: an OR of words (`"a" || "b"`) by exact BM25F top-k with
/// block-max pruning, and an AND of words with a limit (`"a b" | top 10`) by the exact
/// top k of the words' posting lists intersected, scored as FTS5 scores them.
///
/// The compiler produces one for a plan whose ranking search is such a search, ordered by
/// relevance and not aggregated. Everything else in the plan becomes a candidate filter the
/// ranked index applies before scoring: the access scope (expiry, protection) and the
/// rest of the predicate (attribute tests, date ranges, other text searches through
/// FTS5). The executor then fetches the items of the returned rowids, in rank order,
/// with their scores as relevance.
public struct RankedPlan: Sendable {
  /// How the candidates are restricted.
  package enum Filter: Sendable {
    /// Only the access scope: the rowids it hides, which the executor reads once
    /// per generation and scope (`SearchIndex.queryHiddenRows`), not per query.
    case scopeOnly
    /// A predicate beside the text search: `allowed` selects the rowids of the named
    /// index that pass it, at most `limit` + 1 of them, in no particular order (the executor
    /// sorts them; asking SQLite for rowid order would make it sort every match of a value
    /// index before stopping); when there are more than `limit`, `check` (the rowid bound
    /// first) tests one candidate at a time. Neither
    /// repeats the scope: within the named index its complement is the hidden rows, which the
    /// executor reads anyway and leaves out of the candidates, so a predicate an index
    /// answers alone (`contentType == "note"`, `items_type_domain_scope`) never reads an item's record.
    case predicate(allowed: SQLCompiler.Compiled, check: SQLCompiler.Compiled, limit: Int)

    /// The statement that reads the candidates (`explain` shows it); nil when only the
    /// scope restricts them.
    var statement: SQLCompiler.Compiled? {
      switch self {
      case .scopeOnly: nil
      case .predicate(let allowed, _, _): allowed
      }
    }
  }

  /// Which items the terms find, and how they are scored.
  package enum Scoring: Sendable, Equatable {
    /// Those holding any of the terms, by BM25F over the ranked index's fields, with
    /// block-max pruning.
    case anyTerm
    /// Those holding every term (one per word of the full-text query's AND, in its order),
    /// scored as the full-text statement scores them (`sl_bm25` with
    /// `SQLCompiler.columnWeights`), from the ranked postings: the same items in the same
    /// order with the same relevance, without FTS5's work per match.
    case everyTerm
  }

  /// Ranked-index terms with their query weights (`TextSearch.weights`, default 1).
  package var terms: [QueryTerm]
  package var scoring: Scoring = .anyTerm
  /// Ranked-index terms of words beside the search that the items must hold too, unscored
  /// (`"lake" && "trail"`): their lists are intersected with an AND's (`everyTerm`), or give
  /// an OR the items it may score, instead of each candidate looked up in FTS5 (0.2 ms a
  /// candidate for a common word).
  package var requiredTerms: [String] = []
  /// Results wanted: the plan's `top`/`limit`; nil for every match in rank order.
  public var k: Int?
  package var filter: Filter
  /// The stored columns of one item (`SQLCompiler.itemColumns`), rowid bound first,
  /// with the scope repeated as a last guard.
  package var fetch: SQLCompiler.Compiled

  /// One line for `explain`.
  public var summary: String {
    let words = terms.map { term in
      let text = term.term.replacingOccurrences(of: "\u{1}", with: "~")
      return term.weight == 1 ? "\"\(text)\"" : "\"\(text)\"^\(JSONValue.format(number: term.weight))"
    }
    let limit = k.map { "top \($0)" } ?? "every match"
    let required = requiredTerms.map { "\"\($0.replacingOccurrences(of: "\u{1}", with: "~"))\"" }
    let holding = required.isEmpty ? "" : ", among those that also hold \(required.joined(separator: " "))"
    switch scoring {
    case .anyTerm:
      return "ranked index: exact BM25F \(limit) of any of \(words.joined(separator: " "))\(holding) (block-max pruning)"
    case .everyTerm:
      return "ranked index: exact \(limit) of every one of \(words.joined(separator: " "))\(holding), scored as the full-text index scores them"
    }
  }

  /// The SQL of the candidate filter, for `explain`; nil when only the scope restricts them.
  public var filterSQL: String? { filter.statement?.sql }
}

extension SQLCompiler {
  /// Allowed-rowid sets up to this size are read up front; larger ones switch to a
  /// check per candidate (only candidates that could enter the top k are checked).
  /// A task-local so tests can exercise both strategies on small indexes.
  @TaskLocal public static var allowedSetLimit = 20_000

  /// The ranked plan for `plan`, or nil when it is not a text search the ranked index can
  /// answer (then `itemsQuery` runs it through FTS5).
  ///
  /// Eligible: the ranking search has no phrase, prefix or column restriction, every word
  /// analyzes to one position (`RankedAnalysis`); the plan sorts by relevance only and has
  /// no aggregate. An OR needs positive weights. An AND needs a limit, each word one term
  /// (FTS5 reads it as one phrase), and a file of one named index (the full-text table's
  /// totals, which its scores take, are then this index's); its words' weights change no
  /// score, here as in FTS5's bm25, which takes none (the planner weighs a topic word, as in
  /// `contentType == "email" && "budget"s^2`).
  public mutating func rankedPlan(_ plan: SQLPlan) throws(QueryRuntimeError) -> RankedPlan? {
    guard plan.aggregate == nil, plan.sort.allSatisfy({ $0 == .relevance }), let search = plan.rankingSearch,
      !search.phrase, search.columns == nil, !search.terms.isEmpty
    else { return nil }
    var terms: [QueryTerm] = []
    if search.requireAll {
      // An AND of words with a limit, in a file of one named index (where the full-text
      // table's totals are this index's): each word one term, as FTS5 reads it one phrase.
      guard plan.limit != nil, attributes.soleIndexID == indexID else { return nil }
      for term in search.terms {
        guard !term.isPrefix, let alternatives = RankedAnalysis.queryTerms(of: term.text), alternatives.count == 1 else { return nil }
        terms.append(QueryTerm(alternatives[0], weight: 1))
      }
    } else {
      for (offset, term) in search.terms.enumerated() {
        let weight = search.weights.map { offset < $0.count ? $0[offset] : 1 } ?? 1
        guard !term.isPrefix, weight > 0, weight.isFinite, let alternatives = RankedAnalysis.queryTerms(of: term.text)
        else { return nil }
        for alternative in alternatives { terms.append(QueryTerm(alternative, weight: weight)) }
      }
    }
    // Words beside the search are found in the ranked index, not checked in FTS5.
    var beside = plan.predicateWithoutRankingSearch
    var required: [String] = []
    var kept: [BoundExpression] = []
    for part in Self.flatten(beside) {
      if let words = Self.rankedWords(part) { required += words } else { kept.append(part) }
    }
    if !required.isEmpty { beside = kept.isEmpty ? .matchAll : (kept.count == 1 ? kept[0] : .and(kept)) }
    let scope = self.scope.sqlCondition(alias: "i", indexID: indexID)
    let fetch = finish(
      Fragment("SELECT \(Self.itemColumns) FROM items i WHERE i.rowid = ? AND " + scope.sql, scope.arguments), ranked: false)
    let filter: RankedPlan.Filter
    if let condition = try condition(beside) {
      // The condition in parentheses: a top-level OR in it must not take the index test with it.
      let restricted = Fragment("i.indexId = ? AND (", [.integer(indexID)]) + condition + ")"
      // Every match wanted: every candidate is scored, so all are read up front (a check
      // per candidate would run a statement for each of them).
      let limit = plan.limit == nil ? Int(Int32.max) : Self.allowedSetLimit
      let allowed = finish(
        "SELECT i.rowid FROM items i WHERE " + restricted
          + Fragment(" LIMIT ?", [.integer(Int64(limit) + 1)]), ranked: false)
      // The check of one candidate looks its values and words up by its rowid: in the list
      // form (`i.rowid IN (SELECT item FROM vals …)`) SQLite builds the whole list again for
      // every candidate checked (400,000 rowids for `rating >= 4` at 1M: a top 10 took 153 s;
      // the 250,000 matches of a word beside another, 1.3 s).
      let lookups = try checkingOneItem { (c: inout SQLCompiler) throws(QueryRuntimeError) in
        try c.condition(beside)
      } ?? condition
      // Its own pattern matchers, installed when it runs (`ExecutionContext.candidateCheck`).
      let check = finish(
        Fragment("SELECT 1 FROM items i WHERE i.rowid = ? AND i.indexId = ? AND (", [.integer(indexID)]) + lookups + ")", ranked: false)
      filter = .predicate(allowed: allowed, check: check, limit: limit)
    } else {
      filter = .scopeOnly
    }
    var ranked = RankedPlan(terms: terms, scoring: search.requireAll ? .everyTerm : .anyTerm, k: plan.limit, filter: filter, fetch: fetch)
    ranked.requiredTerms = required
    return ranked
  }

  /// The ranked-index terms of a text search that holds an item exactly when the item holds
  /// each of them: bare words (no phrase, prefix or column), all required, each one
  /// position (`RankedAnalysis`), as the ranking search of an AND needs its own; nil for
  /// anything else.
  static func rankedWords(_ part: BoundExpression) -> [String]? {
    guard case .textSearch(let search) = part, !search.phrase, search.columns == nil, !search.terms.isEmpty,
      search.requireAll || search.terms.count == 1
    else { return nil }
    var words: [String] = []
    for term in search.terms {
      guard !term.isPrefix, let alternatives = RankedAnalysis.queryTerms(of: term.text), alternatives.count == 1 else { return nil }
      words.append(alternatives[0])
    }
    return words
  }
}
