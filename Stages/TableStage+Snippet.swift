import QueryEngine
import SearchIndex

/// The `snippet` column of `table`: a short passage of an item's text around the words the
/// query searched for, each match marked `[like this]`.
///
/// FTS5's `snippet()` cannot serve: the full-text table is contentless (Searchlight stores
/// each text once, in the record), and `snippet()` needs the column text. This is the
/// equivalent over the item's own text, with the index's matching rules: words are compared
/// case- and diacritic-folded (`TextFolding.fold`), a `word*` term matches as a prefix, and a
/// `"word"s` term matches every form of the word (Porter stem). The passage is plain text on
/// one line: white space and control characters become single spaces, so no format (table,
/// CSV, JSON) carries a control character from it.
///
/// Only the items the stage receives are read, and the scope has already dropped hidden
/// ones, so a snippet never shows text of an item the caller may not see.
package struct Snippet: Sendable, Hashable {
  /// A searched word: folded text, and whether it matches as a prefix or by stem.
  package struct Term: Sendable, Hashable {
    package var folded: String
    package var isPrefix: Bool
    package var stemmed: Bool

    package init(_ word: String, isPrefix: Bool = false, stemmed: Bool = false) {
      folded = TextFolding.fold(word)
      self.isPrefix = isPrefix
      self.stemmed = stemmed
    }

    func matches(_ foldedWord: String) -> Bool {
      if isPrefix { return foldedWord.hasPrefix(folded) }
      if foldedWord == folded { return true }
      return stemmed && PorterStemmer.stem(foldedWord) == PorterStemmer.stem(folded)
    }
  }

  package var terms: [Term]
  /// Words in the passage.
  package var length = 24

  package init(terms: [Term], length: Int = 24) {
    self.terms = terms
    self.length = length
  }

  /// The attributes whose text a snippet is taken from, the first present one.
  package static let textAttributes = ["textContent", "contentDescription", "title"]

  /// The passage of `item`'s text (`textContent`, else `contentDescription`, else `title`).
  package func passage(of item: SearchableItem) -> String {
    for name in Self.textAttributes {
      if let value = item.attributeSet[name] {
        let text = value.elements.compactMap(\.stringValue).joined(separator: " ")
        if !text.isEmpty { return passage(of: text) }
      }
    }
    return ""
  }

  /// The window of `length` words of `text` with the most matches (the first such window;
  /// the start of the text when nothing matches), matches marked `[word]`, `…` where the text
  /// was cut. A long text is read where its terms are (`TextExcerpt`).
  package func passage(of text: String) -> String {
    let (excerpt, isWhole) = TextExcerpt.excerpt(of: text, around: terms.map { term in
      term.stemmed && !term.isPrefix ? TextExcerpt.needle(for: term.folded) : term.folded
    })
    let passage = window(of: excerpt)
    return isWhole || passage.hasSuffix(" …") ? passage : passage + " …"
  }

  private func window(of text: String) -> String {
    let words = text.split(whereSeparator: { $0.isWhitespace || $0.unicodeScalars.contains { $0.properties.generalCategory == .control } })
    guard !words.isEmpty else { return "" }
    let matched = words.map { word in isMatch(String(word)) }
    let size = min(length, words.count)
    var best = 0
    var bestCount = -1
    var count = matched[0..<size].filter { $0 }.count
    for start in 0...(words.count - size) {
      if start > 0 {
        if matched[start - 1] { count -= 1 }
        if matched[start + size - 1] { count += 1 }
      }
      if count > bestCount {
        bestCount = count
        best = start
      }
    }
    // The first match a third of the way in, for context before it, unless that loses a match.
    if bestCount > 0, let first = matched[best..<(best + size)].firstIndex(of: true) {
      let centred = max(0, min(first - size / 3, words.count - size))
      if matched[centred..<(centred + size)].filter({ $0 }).count >= bestCount { best = centred }
    }
    let end = min(words.count, best + size)
    var out = best > 0 ? "… " : ""
    out += (best..<end).map { index in
      let word = String(words[index])
      return matched[index] ? Self.marked(word) : word
    }.joined(separator: " ")
    if end < words.count { out += " …" }
    return out
  }

  /// `[word]`, with punctuation around the word left outside: `tmux:` is `[tmux]:`.
  private static func marked(_ word: String) -> String {
    let isWordCharacter = { (c: Character) in c.isLetter || c.isNumber }
    guard let first = word.firstIndex(where: isWordCharacter), let last = word.lastIndex(where: isWordCharacter) else {
      return "[" + word + "]"
    }
    return String(word[..<first]) + "[" + String(word[first...last]) + "]" + String(word[word.index(after: last)...])
  }

  /// True when `word` (with punctuation around it ignored) is one of the terms.
  private func isMatch(_ word: String) -> Bool {
    let core = word.unicodeScalars.split { !($0.properties.isAlphabetic || $0.properties.numericType != nil) }
    return core.contains { part in
      let folded = TextFolding.fold(String(String.UnicodeScalarView(part)))
      return terms.contains { $0.matches(folded) }
    }
  }

  private static let comparisons: Set<Token.Operator> = [.equal, .singleEqual, .notEqual, .less, .greater, .lessEqual, .greaterEqual]

  /// The searched words of a query, read from its text up to `end` (the `table` stage):
  /// every quoted string that is a text search (`"tmux"`, `* == "budget*"cd`, or a
  /// comparison with a text attribute), split into words. A string compared with an item
  /// field (`domainIdentifier == "trails"`) or a non-text attribute is not a searched word.
  package static func terms(in source: SourceText, before end: Int, isTextAttribute: (String) -> Bool) -> [Term] {
    let tokens = Lexer.tokenize(source).tokens.filter { $0.span.end <= end }
    var terms: [Term] = []
    for (index, token) in tokens.enumerated() {
      guard case .string(let string) = token.kind else { continue }
      if index >= 2, case .operator(let op) = tokens[index - 1].kind, Self.comparisons.contains(op) {
        switch tokens[index - 2].kind {
        case .star: break
        case .identifier(let name) where isTextAttribute(name): break
        default: continue
        }
      }
      // The `s` modifier (`"walk"s`) matches every form of the word.
      let stemmed = string.modifiers.contains("s")
      for word in string.text.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "*") }) {
        let isPrefix = word.hasSuffix("*")
        let text = word.filter { $0 != "*" }
        if !text.isEmpty { terms.append(Term(String(text), isPrefix: isPrefix, stemmed: stemmed)) }
      }
    }
    return terms
  }
}
