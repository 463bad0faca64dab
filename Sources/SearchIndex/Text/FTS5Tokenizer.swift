internal import CSQLite

/// `TextAnalyzer` as an FTS5 tokenizer named `searchlight`, so the `fts` table, the ranked
/// index and in-memory matching all split text the same way: folded words, camelCase parts,
/// CJK unigrams and bigrams, and Porter stems as separate `"\u{1}stem"` tokens.
///
/// Every connection registers it when it opens, because FTS5 looks tokenizers up by name
/// whenever it touches the table; a tool that opens the file without it (the `sqlite3`
/// shell) can read the items but not run MATCH queries.
/// https://www.sqlite.org/fts5.html#custom_tokenizers
enum FTS5Tokenizer {
  static let name = "searchlight"
  static let analyzer = TextAnalyzer(stemming: true)

  /// Stops tokenizing when FTS5's callback fails (out of memory, interrupted).
  private struct Stop: Error { let code: Int32 }

  /// Registers the tokenizer on `db`, with `capture` (retained until SQLite drops the
  /// tokenizer, when the connection closes) receiving the tokens of armed texts.
  static func register(on db: OpaquePointer, capture: TokenCapture) -> Int32 {
    guard let api = searchlight_fts5_api(db) else { return SQLITE_ERROR }
    var tokenizer = fts5_tokenizer(
      xCreate: { capture, _, _, tokenizer in
        // No per-table state: the analyzer is a shared value. The handle FTS5 passes back
        // to xTokenize is the connection's capture.
        tokenizer?.pointee = OpaquePointer(capture)
        return SQLITE_OK
      },
      xDelete: { _ in },
      xTokenize: { handle, context, flags, text, count, emit in
        guard let handle, let text, count > 0, let emit else { return SQLITE_OK }
        // Queries (and prefix queries) take one exact token per position; documents and
        // auxiliary functions (highlight, snippet) take the colocated extras too.
        let mode: TokenizeMode = flags & FTS5_TOKENIZE_QUERY != 0 ? .query : .document
        let buffer = UnsafeBufferPointer(
          start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), count: Int(count))
        let forward = { (token: TokenView) throws(Stop) in
          let rc = token.bytes.withMemoryRebound(to: CChar.self) { bytes in
            emit(context, token.colocated ? FTS5_TOKEN_COLOCATED : 0, bytes.baseAddress, Int32(bytes.count),
                 Int32(token.byteRange.lowerBound), Int32(token.byteRange.upperBound))
          }
          if rc != SQLITE_OK { throw Stop(code: rc) }
        }
        do throws(Stop) {
          let capture = Unmanaged<TokenCapture>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
          if flags == FTS5_TOKENIZE_DOCUMENT, let column = capture.column(matching: buffer) {
            try capture.tokenize(buffer, column: column, with: FTS5Tokenizer.analyzer, forward)
          } else {
            try FTS5Tokenizer.analyzer.tokenize(buffer, mode: mode, forward)
          }
        } catch {
          return error.code
        }
        return SQLITE_OK
      })
    let box = Unmanaged.passRetained(capture).toOpaque()
    return api.pointee.xCreateTokenizer(api, name, box, &tokenizer) { box in
      if let box { Unmanaged<TokenCapture>.fromOpaque(box).release() }
    }
  }
}

extension Connection {
  /// Makes the `searchlight` tokenizer available to this connection's FTS5 tables.
  func registerTokenizer() throws(DatabaseError) {
    let rc = FTS5Tokenizer.register(on: handle, capture: tokenCapture)
    if rc != SQLITE_OK {
      throw DatabaseError(
        code: .init(rawValue: rc),
        message: "cannot register the '\(FTS5Tokenizer.name)' FTS5 tokenizer (is SQLite built with FTS5?)")
    }
  }
}
