/// The tokenizer shared by indexing and querying, wrapped as Searchlight's custom FTS5
/// tokenizer. Byte ranges are UTF-8 offsets into the original input, as FTS5 requires.
///
/// ## Words
/// A word is a run of letters and digits, with combining marks and invisible format
/// characters (soft hyphen, ZWJ, variation selectors) carried along inside it; everything else
/// separates, including emoji. An apostrophe (`'` or `’`) between two word characters joins
/// them and is dropped: `don't` → `dont`, `O’Brien` → `obrien`. Joining keeps contractions and
/// possessives as one searchable word (the stemmer then maps `john's` → `johns` → `john`)
/// instead of leaving stray `t`/`s` tokens. Token text is `TextFolding.fold` of the word,
/// truncated to `maxTokenBytes` at a scalar boundary; the byte range still covers the whole
/// word. Numbers are words: `4.5` gives `4` and `5`.
///
/// Scripts written without spaces other than CJK (Thai, Lao, Khmer…) become one word per run,
/// as with SQLite's unicode61.
///
/// ## camelCase
/// A lowercase letter followed by an uppercase one is a boundary (`MyWindowClass` →
/// my|window|class; `NSWindow` and `getHTTPResponse` → nswindow, get|httpresponse). This is
/// Apple's rule for word-based matching: `window` finds `MyWindowClass` but not `NSWindow`.
/// Documents emit the whole folded word, then each part colocated with it; queries emit only
/// the whole word, so `mywindowclass` and `window` both find the document.
///
/// ## CJK
/// Han, kana and Hangul characters never join a Latin word. Documents emit every character as
/// a unigram and, colocated, the bigram with the next character of the same run. Queries emit
/// a lone character as a unigram and a longer run as its consecutive bigrams, so the query is a
/// phrase of bigrams that lines up with the document's colocated bigrams (`東京都` →
/// `東京 京都`, which matches `…東京都…` at consecutive positions).
///
/// ## Stemming
/// With `stemming` on, every Latin word whose folded text is all `a`…`z` gets a stem token
/// (Porter), written with the `stemMarker` prefix so stems never collide with real words:
/// - **document**: the exact word, then `"\u{1}" + stem` colocated when the stem differs
///   (camelCase parts likewise). A word that is its own stem only stores itself.
/// - **query**: the exact word only. Matches exactly that form.
/// - **stemmedQuery** (or, in `query`, a word written right after `stemMarker`):
///   `"\u{1}" + stem`, plus the bare stem colocated when the stem is its own stem. FTS5 treats
///   colocated query tokens as alternatives for one position, so this matches every document
///   word with the same stem: words that differ from their stem through their stem token,
///   words that equal it through themselves. It works inside phrases too.
///
/// The planner ranks exact forms first by asking for both, e.g. the FTS5 query
/// `"connected" OR "\u{1}connected"`: a document with `connected` matches both phrases and
/// scores higher under bm25 than one that only has `connecting`. The marker is a control
/// character so user text cannot produce it; the planner must strip U+0001 from user input.
///
/// With `stemming` off, documents store no stems and stemmed queries degrade to exact ones.
package struct TextAnalyzer: Sendable {
  /// First byte of every stem token (U+0001), and the query-text prefix that requests stemming.
  package static let stemMarker: UInt8 = 0x01
  /// The longest token text, in UTF-8 bytes. Longer words are cut at a scalar boundary.
  package static let maxTokenBytes = 64

  /// Whether documents get stem tokens and stemmed queries use them.
  package var stemming: Bool

  package init(stemming: Bool = true) {
    self.stemming = stemming
  }

  /// Tokenizes UTF-8 `text`, calling `emit` for each token in order. Invalid UTF-8 bytes are
  /// treated as separators. The view passed to `emit` is valid only during that call.
  ///
  /// ```swift
  /// try analyzer.tokenize(buffer, mode: .document) { token in
  ///     try fts5Token(token.bytes, token.byteRange, token.colocated)
  /// }
  /// ```
  package func tokenize<E: Error>(
    _ text: UnsafeBufferPointer<UInt8>,
    mode: TokenizeMode,
    _ emit: (TokenView) throws(E) -> Void
  ) throws(E) {
    guard let base = text.baseAddress, !text.isEmpty else { return }
    // One small allocation per call, reused for every token, instead of one per token.
    let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: TokenizerRun.scratchBytes)
    defer { scratch.deallocate() }
    let boundaries = UnsafeMutablePointer<Int>.allocate(capacity: TokenizerRun.maxBoundaries)
    defer { boundaries.deallocate() }
    let run = TokenizerRun(
      input: base, count: text.count, scratch: scratch, boundaries: boundaries, mode: mode, stemming: stemming)
    try run.run(emit)
  }

  /// Tokenizes a String; see `tokenize(_:mode:_:)` for the buffer version.
  package func tokenize<E: Error>(
    _ text: String,
    mode: TokenizeMode,
    _ emit: (TokenView) throws(E) -> Void
  ) throws(E) {
    var text = text
    var failure: E?
    // withUTF8 only rethrows untyped errors, so carry the typed one out by hand.
    text.withUTF8 { buffer in
      do throws(E) {
        try tokenize(buffer, mode: mode, emit)
      } catch {
        failure = error
      }
    }
    if let failure { throw failure }
  }

  /// All tokens of `text` as owned values: convenient for tests and tools, not for indexing.
  package func tokens(_ text: String, mode: TokenizeMode) -> [AnalyzedToken] {
    var result: [AnalyzedToken] = []
    tokenize(text, mode: mode) { result.append($0.token) }
    return result
  }

  /// The tokens of `text` grouped by position: each inner array holds a position's token and
  /// the tokens colocated with it (camelCase parts, stems, CJK bigrams). This is how FTS5
  /// sees the text, for matching outside SQLite the way a MATCH would.
  package func positions(_ text: String, mode: TokenizeMode) -> [[String]] {
    var result: [[String]] = []
    tokenize(text, mode: mode) { token in
      let text = String(decoding: token.bytes, as: UTF8.self)
      if token.colocated, !result.isEmpty {
        result[result.count - 1].append(text)
      } else {
        result.append([text])
      }
    }
    return result
  }
}
