/// How text becomes terms of the ranked index, on both sides.
///
/// Documents go through `TextAnalyzer` in document mode with stemming: every token it
/// emits is a term, so the index holds the exact folded words, their camelCase parts,
/// CJK unigrams and bigrams, and Porter stems as separate `"\u{1}stem"` terms — for every
/// stemmable word, also one that is its own stem (where the analyzer, for FTS5, emits none), so
/// that all forms of a word are one term with one document frequency, as FTS5 scores the
/// alternatives of a stemmed query word as one phrase. A term's
/// frequency counts every occurrence of its token; a field's length counts positions
/// (tokens that are not colocated with the previous one), so stems and camelCase parts
/// do not make a document look longer, as Lucene's default `discountOverlaps`.
///
/// Query words go through query mode: a plain word becomes its one exact term, which is
/// what FTS5 would match, so the ranked path and FTS5 find the same items for an OR of
/// words. A word written after U+0001 asks for stems (the analyzer's stemmed-query
/// alternatives, of which the ranked index needs only `"\u{1}stem"`).
/// A word that analyzes to several positions (`e-mail`, `4.5`, a CJK run) is a phrase,
/// which the ranked index cannot answer; `queryTerms(of:)` returns nil for it.
package enum RankedAnalysis {
  package static let analyzer = TextAnalyzer(stemming: true)
  /// The same analyzer without stems: `RankedWriter` adds the stem of each word itself,
  /// computing it once per distinct word instead of once per occurrence, for the tokens the
  /// analyzer marks `stemmable`.
  static let wordAnalyzer = TextAnalyzer(stemming: false)

  /// The terms of one field's text, appended to `terms`, and its length in positions.
  static func appendTerms(of text: String, to terms: inout [String]) -> Int {
    var positions = 0
    analyzer.tokenize(text, mode: .document) { token in
      if !token.colocated { positions += 1 }
      let term = String(decoding: token.bytes, as: UTF8.self)
      terms.append(term)
      // The analyzer writes no stem token for a word that is its own stem; the writer does.
      if token.stemmable, PorterStemmer.stem(term) == term { terms.append("\u{1}" + term) }
    }
    return positions
  }

  /// The alternative terms one query word stands for (each an OR term), nil when the
  /// word is empty or spans several positions.
  package static func queryTerms(of word: String) -> [String]? {
    var terms: [String] = []
    var positions = 0
    analyzer.tokenize(word, mode: .query) { token in
      if !token.colocated { positions += 1 }
      terms.append(String(decoding: token.bytes, as: UTF8.self))
    }
    guard positions == 1 else { return nil }
    // Every form of a word is one term here (the writer stems every stemmable word), where
    // FTS5 needs the bare stem beside it for words that are their own stem.
    if word.utf8.first == TextAnalyzer.stemMarker, let stem = terms.first { return [stem] }
    return terms
  }
}
