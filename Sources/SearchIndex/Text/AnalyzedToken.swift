/// One token produced by `TextAnalyzer`, as an owned value for tests and tools.
///
/// The indexing path uses `TokenView` instead, which borrows scratch memory and so avoids a
/// String allocation per token.
package struct AnalyzedToken: Sendable, Hashable, CustomStringConvertible {
  /// The folded token text. Stem tokens start with `TextAnalyzer.stemMarker` (U+0001).
  package var text: String
  /// UTF-8 byte offsets of the source text this token came from, in the original input.
  package var byteRange: Range<Int>
  /// True when the token shares the previous token's position (FTS5_TOKEN_COLOCATED).
  package var colocated: Bool

  package init(text: String, byteRange: Range<Int>, colocated: Bool) {
    self.text = text
    self.byteRange = byteRange
    self.colocated = colocated
  }

  /// Whether this is a stem token rather than a word as written.
  package var isStem: Bool { text.utf8.first == TextAnalyzer.stemMarker }

  package var description: String {
    let shown = isStem ? "~" + text.dropFirst() : text
    return "\(colocated ? "+" : "")\(shown)@\(byteRange.lowerBound)..<\(byteRange.upperBound)"
  }
}
