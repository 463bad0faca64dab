/// A small English stop-word list for the query planner: words so common that a query term
/// made of them alone says little (articles, pronouns, question words, auxiliaries,
/// prepositions, common conjunctions).
///
/// The index keeps stop words (phrases such as "to be or not to be" must still match); the
/// planner decides per query whether to drop them, e.g. turning the natural-language question
/// "what is the lift of a wing" into the terms "lift" and "wing".
package enum StopWords {
  /// The list, in folded form (lowercase, no diacritics). Contractions are absent because the
  /// tokenizer joins them into words like `dont`, which carry meaning in a query.
  package static let english: Set<String> = [
    // Articles and determiners
    "a", "an", "the", "this", "that", "these", "those", "all", "any", "both", "each", "every",
    "few", "more", "most", "other", "some", "such", "no", "not", "only", "own", "same",
    // Pronouns
    "i", "me", "my", "myself", "we", "us", "our", "ours", "ourselves", "you", "your", "yours",
    "yourself", "yourselves", "he", "him", "his", "himself", "she", "her", "hers", "herself",
    "it", "its", "itself", "they", "them", "their", "theirs", "themselves",
    // Question words
    "what", "which", "who", "whom", "whose", "how", "when", "where", "why",
    // Auxiliaries and modals
    "am", "is", "are", "was", "were", "be", "been", "being", "have", "has", "had", "having",
    "do", "does", "did", "doing", "will", "would", "shall", "should", "can", "could", "may",
    "might", "must",
    // Prepositions (not spatial ones like "near", "behind" or "past", which carry meaning)
    "about", "above", "after", "against", "at", "before", "below", "between", "by", "down",
    "during", "for", "from", "in", "into", "of", "off", "on", "onto", "out", "over", "per",
    "through", "to", "toward", "towards", "under", "until", "up", "upon", "via", "with",
    "within", "without",
    // Conjunctions and adverbs that carry no topic
    "and", "but", "or", "nor", "if", "then", "than", "because", "as", "while", "so",
    "there", "here", "again", "further", "once", "too", "very", "just", "also",
  ]

  /// Whether `word` is a stop word, after folding, so `"The"` and `"the"` both are.
  package static func isStopWord(_ word: String) -> Bool {
    english.contains(TextFolding.fold(word))
  }
}
