/// The form a content word is searched in. The full-text index does not stem, so a word of
/// five letters or more is searched as a prefix of its stem, suffixes such as -s, -es, -ed,
/// -ing, -ion removed ("models" -> `model*`, "heated" -> `heat*`), and finds the other forms
/// of the word too. Shorter words and numbers are searched as written.
enum TermForms {
  static let suffixes = ["ations", "ation", "ings", "ing", "ions", "ion", "ies", "es", "ed", "s", "al", "ly"]

  /// The stem of a word: the word without its first matching suffix, at least four letters.
  static func stem(_ word: String) -> String {
    for suffix in suffixes where word.hasSuffix(suffix) && word.count - suffix.count >= 4 {
      // "discuss", "suspicious", "analysis" end in s without being plurals.
      if suffix == "s", word.hasSuffix("ss") || word.hasSuffix("us") || word.hasSuffix("is") { continue }
      return String(word.dropLast(suffix.count))
    }
    return word
  }

  /// The search term for a word: `stem*` or the word itself.
  static func searchTerm(_ word: String, stemming: Bool) -> String {
    guard stemming, word.count >= 5, word.allSatisfy(\.isLetter) else { return word }
    return stem(word) + "*"
  }
}
