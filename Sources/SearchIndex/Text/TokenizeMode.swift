/// Which side of the index a piece of text is being tokenized for.
///
/// The two sides differ on purpose: documents emit extra colocated tokens (camelCase parts,
/// stems, CJK bigrams) so that a query can match any one of them, while queries emit exactly
/// one token per position so FTS5 phrase matching lines up. See `TextAnalyzer` for the rules.
package enum TokenizeMode: Sendable, Hashable {
  /// Index time (FTS5_TOKENIZE_DOCUMENT).
  case document
  /// Query time, exact forms (FTS5_TOKENIZE_QUERY). A word prefixed with
  /// `TextAnalyzer.stemMarker` is treated as in `stemmedQuery`, which is how the query
  /// planner asks for stemming through an FTS5 MATCH string.
  case query
  /// Query time, every Latin word matched through its stem.
  case stemmedQuery
}
