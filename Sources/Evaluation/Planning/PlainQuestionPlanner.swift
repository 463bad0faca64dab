import QueryEngine

/// `--planner plain`: a ranked OR search over the question's words, the bag-of-words baseline
/// every smarter planner is measured against.
///
/// The question is split into words the way FTS5's `unicode61` tokenizer splits text (runs of
/// letters and digits), lowercased, and stripped of a short list of English stopwords and
/// question words; the rest become one `TextSearch` with `requireAll: false`, ranked by BM25
/// with the index's column weights. Words of letters are searched in every form (their Porter
/// stem, `"word"s`), as the stemmed BM25 peers (FTS5 `porter`, tantivy `en_stem`) search them;
/// words with digits as written. The query language's `"a b c"` requires every word, so the
/// graph is built directly: a prepared `search * | top N` whose source is replaced by the OR
/// search. A question with no words left finds nothing.
package struct PlainQuestionPlanner: QuestionPlanner {
  /// The name reports show: `plain`, or `fts5` when the same search runs through FTS5's
  /// `bm25()` (`eval --planner fts5`).
  package let name: String

  package init(name: String = "plain") { self.name = name }

  /// Words that carry no topic: Lucene's English stopwords plus pronouns, auxiliaries and
  /// question words.
  package static let stopwords: Set<String> = [
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not", "of",
    "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "will", "with",
    "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "do", "does", "did", "done", "i", "me",
    "my", "mine", "we", "us", "our", "you", "your", "he", "she", "him", "her", "his", "its", "them", "have", "has",
    "had", "been", "being", "were", "am", "can", "could", "would", "should", "shall", "may", "might", "must", "so",
    "s", "t", "about", "any", "some", "from",
  ]

  /// The search terms of `question`, in order, without repeats.
  package static func terms(_ question: String) -> [String] {
    var terms: [String] = []
    var seen = Set<String>()
    var current = ""
    func flush() {
      if !current.isEmpty, !stopwords.contains(current), seen.insert(current).inserted { terms.append(current) }
      current = ""
    }
    for character in question.lowercased() {
      if character.isLetter || character.isNumber { current.append(character) } else { flush() }
    }
    flush()
    return terms
  }

  /// The ranked OR text search for `question`; nil when no words are left.
  package static func textSearch(_ question: String) -> TextSearch? {
    let words = terms(question)
    guard !words.isEmpty else { return nil }
    return TextSearch(terms: words.map { TextSearch.Term(text: stemmed($0), isPrefix: false) }, requireAll: false)
  }

  /// The term for a word: any form of it (`"word"s`) for a word of letters, else as written.
  package static func stemmed(_ word: String) -> String {
    word.allSatisfy(\.isLetter) ? String(TextSearch.Term.stemMarker) + word : word
  }

  package func plan(_ question: String, context: PlanningContext) throws -> EvaluationQuery {
    .graph(try Self.graph(Self.textSearch(question).map(BoundExpression.textSearch) ?? .constant(.bool(false)), context: context))
  }

  /// `search * | top N` with `predicate` as its source: `top` over a ranked search keeps the N
  /// most relevant items, and is pushed into SQLite as ORDER BY relevance LIMIT N.
  package static func graph(_ predicate: BoundExpression, context: PlanningContext) throws -> QueryGraph {
    var graph = try context.executor.prepare("search * | top \(max(1, min(context.limit, 10_000)))", options: context.options)
    graph.statements[0].source = .search(predicate)
    return graph
  }
}
