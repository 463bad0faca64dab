import Foundation

/// Keeps the word tokens FTS5 asks the `searchlight` tokenizer for while one item's row is
/// inserted, so the ranked index can use them instead of analysing the same texts again.
///
/// `IndexWriter` arms the capture with the item's column texts just before it steps the
/// `INSERT INTO fts`, and `RankedWriter` reads the tokens right after. While armed, every
/// document-mode tokenize call whose input is byte for byte one of the armed texts (the
/// next one not yet captured, in column order) records that text's tokens (without stems,
/// see `WordTokens`); any other call (a query, the old text of a deleted row, a text that
/// matches no column) is tokenized as usual and records nothing. The analyzer is a pure
/// function of the input bytes and the mode, so tokens recorded for identical bytes are the
/// tokens a fresh analysis would give, whatever made FTS5 tokenize them; a column whose
/// text was not captured is simply analysed again by the reader.
///
/// One capture belongs to one `Connection` (it is the tokenizer's user data, retained by
/// SQLite and released when the connection closes), and is only touched by the thread
/// running that connection's statement, which is the thread FTS5 calls the tokenizer on.
final class TokenCapture {
  /// The texts armed, by column; empty when disarmed.
  private var texts: [String] = []
  /// The first column that may still be captured (FTS5 tokenizes columns in order).
  private var nextColumn = 0
  /// The tokens of the captured columns.
  private var words = WordTokens()
  /// Per armed column: its tokens' range in `words`, nil when not captured.
  private var ranges: [Range<Int>?] = []

  /// Starts capturing the tokens of `texts` (one per column), dropping earlier captures.
  func arm(_ texts: [String]) {
    self.texts = texts
    nextColumn = 0
    words.removeAll()
    ranges.removeAll(keepingCapacity: true)
    ranges.append(contentsOf: repeatElement(nil, count: texts.count))
  }

  /// Stops capturing and drops what was captured.
  func disarm() {
    texts = []
    ranges.removeAll(keepingCapacity: true)
    nextColumn = 0
    words.removeAll()
  }

  /// The longest text whose tokens are captured, in bytes: a longer one's would all be held
  /// at once (a 5 MB text's took 100 MB), so the ranked writer analyses it again, a run of
  /// tokens at a time. A task-local so tests can send every text that way.
  @TaskLocal static var largestCapturedText = 1 << 20

  /// The armed column whose text is exactly `input` (the first from `nextColumn` on), nil
  /// when disarmed, when no armed text matches, or when it is longer than
  /// `largestCapturedText`.
  func column(matching input: UnsafeBufferPointer<UInt8>) -> Int? {
    guard nextColumn < texts.count, let base = input.baseAddress, input.count <= Self.largestCapturedText else { return nil }
    for column in nextColumn..<texts.count where ranges[column] == nil {
      let same = texts[column].utf8.withContiguousStorageIfAvailable { text in
        text.count == input.count && memcmp(text.baseAddress!, base, input.count) == 0
      }
      if same == true { return column }
    }
    return nil
  }

  /// Tokenizes `input` (the text of armed `column`) with `analyzer` in document mode,
  /// passing every token to `emit` and recording the word tokens for the column once the
  /// whole text is done. Nothing is recorded when `emit` throws.
  func tokenize<E: Error>(
    _ input: UnsafeBufferPointer<UInt8>, column: Int, with analyzer: TextAnalyzer, _ emit: (TokenView) throws(E) -> Void
  ) throws(E) {
    // A local copy while the analyzer runs: a class property would pay an exclusivity
    // check per token.
    var words = self.words
    self.words = WordTokens()
    defer { self.words = words }
    let start = words.count
    do throws(E) {
      try analyzer.tokenize(input, mode: .document) { (token: TokenView) throws(E) in
        try emit(token)
        words.append(token)
      }
    } catch {
      words.truncate(to: start)
      throw error
    }
    ranges[column] = start..<words.count
    nextColumn = column + 1
  }

  /// Calls `body` with the recorded tokens of `column` when that column was captured with
  /// exactly `text`; returns false (without calling it) when it was not.
  func withTokens<E: Error>(
    ofColumn column: Int, text: String, _ body: (WordTokens, Range<Int>) throws(E) -> Void
  ) throws(E) -> Bool {
    guard column < ranges.count, let range = ranges[column], texts[column] == text else { return false }
    try body(words, range)
    return true
  }
}
