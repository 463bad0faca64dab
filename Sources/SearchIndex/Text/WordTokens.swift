/// The word tokens of a document's texts, as a document-mode `TextAnalyzer` emits them but
/// without stem tokens: folded words, camelCase parts and CJK grams, each with its
/// colocated flag and whether the analyzer would consider it for a stem
/// (`TokenView.stemmable`). Owned copies in one flat buffer, so the tokens of a text can be
/// kept after the analyzer's scratch memory is gone.
///
/// The ranked index is built from these (`RankedWriter` adds each stem itself, once per
/// distinct word), whether they come from `TokenCapture` (recorded while FTS5 tokenized the
/// same text) or from tokenizing the text again.
struct WordTokens {
  /// The token texts, back to back.
  private(set) var bytes: [UInt8] = []
  /// Per token: the end of its text in `bytes` << 2 | stemmable << 1 | colocated.
  private(set) var tokens: [UInt64] = []

  var count: Int { tokens.count }

  /// Appends `token` unless it is a stem token (starts with `TextAnalyzer.stemMarker`).
  @inline(__always)
  mutating func append(_ token: TokenView) {
    let text = token.bytes
    guard let first = text.first, first != TextAnalyzer.stemMarker else { return }
    bytes.append(contentsOf: text)
    tokens.append(UInt64(bytes.count) << 2 | (token.stemmable ? 2 : 0) | (token.colocated ? 1 : 0))
  }

  /// Appends the word tokens of `text` (UTF-8) as `analyzer` emits them in document mode.
  mutating func append(analyzing text: UnsafeBufferPointer<UInt8>, with analyzer: TextAnalyzer) {
    analyzer.tokenize(text, mode: .document) { append($0) }
  }

  /// Appends the word tokens of `text` as `analyzer` emits them in document mode.
  mutating func append(analyzing text: String, with analyzer: TextAnalyzer) {
    analyzer.tokenize(text, mode: .document) { append($0) }
  }

  /// Drops the tokens from `count` on.
  mutating func truncate(to count: Int) {
    guard count < tokens.count else { return }
    bytes.removeSubrange((count == 0 ? 0 : Int(truncatingIfNeeded: tokens[count - 1] >> 2))...)
    tokens.removeSubrange(count...)
  }

  /// Drops every token, keeping the storage for the next text unless a huge one grew it
  /// past `keptCapacity` bytes (a 12 MB text's tokens held 67 MB for the rest of a run).
  mutating func removeAll() {
    let kept = bytes.capacity + tokens.capacity * MemoryLayout<UInt64>.stride <= Self.keptCapacity
    bytes.removeAll(keepingCapacity: kept)
    tokens.removeAll(keepingCapacity: kept)
  }

  /// Storage `removeAll` keeps for the next text.
  static let keptCapacity = 4 << 20

  /// Calls `body` with each token in `range` (text, colocated, stemmable), in order.
  @inline(__always)
  func forEach<E: Error>(
    in range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>, _ colocated: Bool, _ stemmable: Bool) throws(E) -> Void
  ) throws(E) {
    guard !range.isEmpty else { return }
    var failure: E?
    bytes.withUnsafeBufferPointer { bytes in
      tokens.withUnsafeBufferPointer { tokens in
        var start = range.lowerBound == 0 ? 0 : Int(truncatingIfNeeded: tokens[range.lowerBound - 1] >> 2)
        for index in range {
          let token = tokens[index]
          let end = Int(truncatingIfNeeded: token >> 2)
          do throws(E) {
            try body(UnsafeBufferPointer(rebasing: bytes[start..<end]), token & 1 != 0, token & 2 != 0)
          } catch {
            failure = error
            return
          }
          start = end
        }
      }
    }
    if let failure { throw failure }
  }
}
