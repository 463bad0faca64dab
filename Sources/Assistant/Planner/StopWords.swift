/// Words a question is made of but that say nothing about what to find: question words,
/// auxiliaries, pronouns, articles, prepositions, conjunctions and request phrasing. The
/// planner drops them from text searches (folded spelling, as `QuestionText` produces).
///
/// A small English list on purpose: the shared list will replace it.
enum StopWords {
  static let english: Set<String> = [
    // question words
    "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "whats", "whens", "wheres", "whos", "hows",
    // auxiliaries and common verbs of asking
    "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "doing", "have", "has", "had", "having",
    "will", "would", "can", "could", "should", "shall", "may", "might", "must", "ll", "ve", "re", "d", "s", "t", "don",
    "didn", "doesn", "isn", "aren", "wasn", "weren", "haven", "hasn", "won", "wouldn", "get", "got", "gets", "getting",
    "tell", "give", "looking", "know", "need", "want", "please", "let",
    "say", "said", "says", "mention", "mentions", "mentioned", "mentioning", "contain", "contains", "containing",
    // pronouns and determiners
    "i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "you", "your", "yours", "it", "its", "they", "them",
    "their", "theirs", "he", "him", "his", "she", "her", "hers", "this", "that", "these", "those", "there", "here",
    "a", "an", "the", "any", "some", "all", "each", "every", "other", "another", "such", "own", "same", "one",
    // prepositions
    "in", "on", "at", "to", "from", "by", "for", "with", "about", "of", "into", "onto", "over", "under", "after",
    "before", "since", "during", "between", "through", "within", "without", "up", "down", "out", "off", "than",
    "as", "per", "via", "around", "near", "until", "till", "upon", "against", "among", "across", "along",
    // conjunctions and adverbs
    "and", "or", "but", "if", "then", "so", "not", "no", "nor", "also", "just", "only", "still", "ever", "yet",
    "again", "already", "very", "too", "more", "most", "less", "much", "many", "few", "lot", "lots",
    "next", "last", "recently", "recent", "currently", "now", "anything", "something", "everything", "things",
    "thing", "stuff", "while", "whether",
  ]

  static func contains(_ word: String) -> Bool { english.contains(word) }

  /// Verbs of the asker's own writing, dropped after "did I" or "did we" ("what did I write
  /// about"), and their past forms after "I" or "we" ("what I wrote", "have we noted").
  static let writingVerbs: Set<String> = ["write", "note", "jot", "save", "keep"]
  static let pastWritingVerbs: Set<String> = ["wrote", "written", "noted", "jotted", "saved", "kept"]

  /// Verbs of asking that are content words elsewhere ("reading list", "trade show"): dropped
  /// only where a request starts ("list my notes", "please show me ...").
  static let requestVerbs: Set<String> = ["show", "list", "find", "search", "look", "get", "fetch", "display", "pull", "bring"]
}
