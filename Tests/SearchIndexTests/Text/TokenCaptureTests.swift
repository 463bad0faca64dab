import Foundation
import Testing
@testable import SearchIndex

/// `TokenCapture`: the word tokens the `searchlight` FTS5 tokenizer records for armed texts
/// while SQLite tokenizes them, which the ranked index uses instead of analysing the texts
/// again. Recorded tokens must always be the analysis of exactly the text they are read for.
@Suite struct TokenCaptureTests {
  typealias Word = WordTokensTests.Word

  /// An in-memory connection with a two-column FTS5 table tokenized by `searchlight`.
  func connection() throws -> Connection {
    let db = try Connection(path: ":memory:")
    try db.execute("CREATE VIRTUAL TABLE t USING fts5(a, b, tokenize = 'searchlight')")
    return db
  }

  /// What the capture holds for `column` when asked with `text`; nil when it holds nothing.
  func captured(_ capture: TokenCapture, column: Int, text: String) -> [Word]? {
    var words: [Word]?
    let found = capture.withTokens(ofColumn: column, text: text) { tokens, range in
      words = WordTokensTests.values(tokens, range)
    }
    #expect(found == (words != nil))
    return words
  }

  /// The document-mode tokens of the FTS5 tokenizer's analyzer for `text`, stems left out.
  func analysis(_ text: String) -> [Word] {
    var tokens = WordTokens()
    tokens.append(analyzing: text, with: FTS5Tokenizer.analyzer)
    return WordTokensTests.values(tokens, 0..<tokens.count)
  }

  static let texts = [
    "Connected sensors: MyWindowClass, café naïve O’Brien don't 4.5 東京都 ﬁne",
    "Runners running in the rain; getHTTPResponse " + String(repeating: "walk", count: 20),
  ]

  @Test func anInsertRecordsTheWordTokensOfEachArmedColumn() throws {
    let db = try connection()
    db.tokenCapture.arm(Self.texts)
    try db.run("INSERT INTO t(rowid, a, b) VALUES (1, ?, ?)", Self.texts.map(SQLValue.text))
    for (column, text) in Self.texts.enumerated() {
      let words = try #require(captured(db.tokenCapture, column: column, text: text))
      #expect(words == analysis(text))
      #expect(!words.contains { $0.text.utf8.first == TextAnalyzer.stemMarker })
    }
    // The flags are the analyzer's: camelCase parts are colocated, words cut at the token
    // limit and CJK grams get no stem.
    let first = try #require(captured(db.tokenCapture, column: 0, text: Self.texts[0]))
    #expect(first.contains(Word(text: "connected", colocated: false, stemmable: true)))
    #expect(first.contains(Word(text: "window", colocated: true, stemmable: true)))
    #expect(first.contains(Word(text: "東京", colocated: true, stemmable: false)))
    let second = try #require(captured(db.tokenCapture, column: 1, text: Self.texts[1]))
    #expect(second.last == Word(text: String(repeating: "walk", count: 16), colocated: false, stemmable: false))
  }

  @Test func queriesAndTextsThatWereNotArmedRecordNothing() throws {
    let db = try connection()
    db.tokenCapture.arm(["alpha beta", "gamma"])
    _ = try db.rows("SELECT rowid FROM t WHERE t MATCH 'alpha'", []) { $0.int64(0) }
    try db.run("INSERT INTO t(rowid, a, b) VALUES (1, 'alpha', 'gamma delta')")
    #expect(captured(db.tokenCapture, column: 0, text: "alpha beta") == nil)
    #expect(captured(db.tokenCapture, column: 1, text: "gamma") == nil)
    // Asked with another text than the one armed, a captured column is not handed out.
    db.tokenCapture.arm(["alpha", "gamma delta"])
    try db.run("INSERT INTO t(rowid, a, b) VALUES (2, 'alpha', 'gamma delta')")
    #expect(captured(db.tokenCapture, column: 0, text: "alpha") == analysis("alpha"))
    #expect(captured(db.tokenCapture, column: 1, text: "gamma") == nil)
    db.tokenCapture.disarm()
    #expect(captured(db.tokenCapture, column: 0, text: "alpha") == nil)
  }

  /// FTS5 tokenizes an old row's text when it deletes the row. Should that text be one
  /// of the armed ones, the tokens recorded are still that text's tokens.
  @Test func textsTokenizedForAnotherReasonWhileArmedStillYieldTheirOwnTokens() throws {
    let db = try connection()
    let old = "Older notes about connected trails"
    try db.run("INSERT INTO t(rowid, a, b) VALUES (1, ?, 'unrelated')", [.text(old)])
    db.tokenCapture.arm([old, "replacement text"])
    try db.run("DELETE FROM t WHERE rowid = 1")
    try db.run("INSERT INTO t(rowid, a, b) VALUES (2, ?, 'replacement text')", [.text(old)])
    #expect(captured(db.tokenCapture, column: 0, text: old) == analysis(old))
    #expect(captured(db.tokenCapture, column: 1, text: "replacement text") == analysis("replacement text"))
  }

  @Test func identicalTextsInTwoColumnsAreBothRecorded() throws {
    let db = try connection()
    db.tokenCapture.arm(["same words", "same words"])
    try db.run("INSERT INTO t(rowid, a, b) VALUES (1, 'same words', 'same words')")
    #expect(captured(db.tokenCapture, column: 0, text: "same words") == analysis("same words"))
    #expect(captured(db.tokenCapture, column: 1, text: "same words") == analysis("same words"))
  }

  @Test func emptyColumnsAreNotRecorded() throws {
    let db = try connection()
    db.tokenCapture.arm(["", "only the second"])
    try db.run("INSERT INTO t(rowid, a, b) VALUES (1, '', 'only the second')")
    #expect(captured(db.tokenCapture, column: 0, text: "") == nil)
    #expect(captured(db.tokenCapture, column: 1, text: "only the second") == analysis("only the second"))
  }
}

@Suite struct WordTokensTests {
  struct Word: Equatable, CustomStringConvertible {
    var text: String
    var colocated: Bool
    var stemmable: Bool
    var description: String { "\(colocated ? "+" : "")\(text)\(stemmable ? "" : "!")" }
  }

  static func values(_ tokens: WordTokens, _ range: Range<Int>) -> [Word] {
    var words: [Word] = []
    tokens.forEach(in: range) { words.append(Word(text: String(decoding: $0, as: UTF8.self), colocated: $1, stemmable: $2)) }
    return words
  }

  @Test func holdsTheAnalyzersTokensWithoutStems() {
    var tokens = WordTokens()
    tokens.append(analyzing: "Connected MyWindow 東京", with: TextAnalyzer(stemming: true))
    #expect(Self.values(tokens, 0..<tokens.count) == [
      Word(text: "connected", colocated: false, stemmable: true),
      Word(text: "mywindow", colocated: false, stemmable: true),
      Word(text: "my", colocated: true, stemmable: true),
      Word(text: "window", colocated: true, stemmable: true),
      Word(text: "東", colocated: false, stemmable: false),
      Word(text: "東京", colocated: true, stemmable: false),
      Word(text: "京", colocated: false, stemmable: false),
    ])
    // Without stemming the analyzer emits the same words.
    var plain = WordTokens()
    plain.append(analyzing: "Connected MyWindow 東京", with: TextAnalyzer(stemming: false))
    #expect(Self.values(plain, 0..<plain.count) == Self.values(tokens, 0..<tokens.count))
  }

  @Test func rangesAndTruncationKeepTheRightBytes() {
    var tokens = WordTokens()
    tokens.append(analyzing: "one two", with: TextAnalyzer(stemming: false))
    tokens.append(analyzing: "three four", with: TextAnalyzer(stemming: false))
    #expect(Self.values(tokens, 2..<4).map(\.text) == ["three", "four"])
    tokens.truncate(to: 3)
    #expect(Self.values(tokens, 0..<tokens.count).map(\.text) == ["one", "two", "three"])
    tokens.append(analyzing: "five", with: TextAnalyzer(stemming: false))
    #expect(Self.values(tokens, 0..<tokens.count).map(\.text) == ["one", "two", "three", "five"])
    tokens.truncate(to: 0)
    #expect(tokens.count == 0)
  }
}
