import SearchIndex

/// The rule for people typing words instead of a query (`query tmux`, `query terminal
/// multiplexer`, the REPL): an input that does not prepare as a query, is nothing but words,
/// and names no known attribute, is the text search of those words, `search "tmux"`.
///
/// Only a fallback, so it changes no query that works: a word that is an attribute of the
/// catalogue keeps its error (`title` alone says what a condition on `title` needs), and
/// anything with an operator, quote or pipe is a query with a mistake, not words.
public enum BareWords {
  /// `search "WORDS"` for `text` when it is one or more words separated by white space,
  /// none an attribute of `catalog`; nil otherwise.
  ///
  /// A word starts with a letter or digit and holds letters, digits, combining marks and
  /// the joiners `-`, `_`, `.`, `'`, `’` and `+` (`python3-dev`, `don't`, `c++`).
  public static func searchQuery(for text: String, catalog: AttributeCatalog) -> String? {
    let words = text.split(whereSeparator: { $0.isWhitespace })
    guard !words.isEmpty, words.count <= 64 else { return nil }
    for word in words {
      guard let first = word.unicodeScalars.first, isLetterOrDigit(first),
        word.unicodeScalars.allSatisfy({ isLetterOrDigit($0) || $0.properties.generalCategory.isMark || joiners.contains($0) }),
        catalog.type(of: String(word)) == nil
      else { return nil }
    }
    return "search \"" + words.joined(separator: " ") + "\""
  }

  private static let joiners: Set<Unicode.Scalar> = ["-", "_", ".", "'", "’", "+"]

  private static func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
    scalar.properties.isAlphabetic || scalar.properties.numericType != nil
  }
}

extension Unicode.GeneralCategory {
  fileprivate var isMark: Bool {
    switch self {
    case .nonspacingMark, .spacingMark, .enclosingMark: return true
    default: return false
    }
  }
}
