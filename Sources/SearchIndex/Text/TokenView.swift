/// A token handed to `TextAnalyzer.tokenize`'s callback, borrowing the analyzer's scratch
/// memory: `bytes` is valid only until the callback returns.
///
/// This is the shape FTS5's `xToken` wants (pointer, length, start, end, flags), so the
/// tokenizer wrapper can forward it without copying or allocating.
package struct TokenView {
  /// The folded token text as UTF-8. Stem tokens start with `TextAnalyzer.stemMarker`.
  package let bytes: UnsafeBufferPointer<UInt8>
  /// UTF-8 byte offsets of the source text this token came from, in the original input.
  package let byteRange: Range<Int>
  /// True when the token shares the previous token's position (FTS5_TOKEN_COLOCATED).
  package let colocated: Bool
  /// True for a document-mode word or camelCase part whose folded text is all `a`…`z` and
  /// complete (not cut at `TextAnalyzer.maxTokenBytes`): exactly the tokens a stemming
  /// analyzer follows with a stem token when the stem differs. False for stems, CJK grams
  /// and query tokens.
  package let stemmable: Bool

  /// Copies the token out of the scratch memory.
  package var token: AnalyzedToken {
    AnalyzedToken(text: String(decoding: bytes, as: UTF8.self), byteRange: byteRange, colocated: colocated)
  }
}

// The bytes point into memory owned by one `tokenize` call; never let them cross threads.
@available(*, unavailable)
extension TokenView: Sendable {}
