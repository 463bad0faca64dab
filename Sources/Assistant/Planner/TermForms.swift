import QueryEngine

/// The form a content word is searched in. The full-text index stores every word's Porter
/// stem beside it, so a word written with U+0001 in front (`"\u{1}models"`, spelled
/// `"models"s` in the query language) finds every form of it: model, models, modelling.
/// Numbers and words with digits are searched as written.
enum TermForms {
  /// The search term for a word: its stemmed form, or the word itself.
  static func searchTerm(_ word: String, stemming: Bool) -> String {
    guard stemming, word.allSatisfy(\.isLetter) else { return word }
    return String(TextSearch.Term.stemMarker) + word
  }

  /// True for a term that matches every form of its word.
  static func isStemmed(_ term: String) -> Bool { term.first == TextSearch.Term.stemMarker }

  /// The word of a term, without the stem marker.
  static func word(_ term: String) -> String { isStemmed(term) ? String(term.dropFirst()) : term }

  /// The term as a text search: `"models"s` for a stemmed term, with a weight (`^0.82`).
  static func syntax(_ term: String, boost: Double? = nil) -> Expression {
    PlanSyntax.quoted(word(term), modifiers: isStemmed(term) ? "s" : "", boost: boost)
  }

  /// The term as notes show it.
  static func display(_ term: String) -> String {
    isStemmed(term) ? word(term) + "~" : term
  }
}
