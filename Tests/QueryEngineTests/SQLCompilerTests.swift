import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex

/// Every FTS5 MATCH text the compiler generates is valid FTS5 syntax that means the words it
/// was built from; checked against an in-memory FTS5 table like the index's.
@Suite struct SQLCompilerTests {
  /// An in-memory table with the index's FTS5 columns and tokenizer.
  final class FTSTable {
    let db: Connection

    init() throws {
      db = try Connection(path: ":memory:")
      try db.execute("""
        CREATE VIRTUAL TABLE fts USING fts5(title, keywords, description, body, other,
          tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');
        INSERT INTO fts(rowid, title, body) VALUES (1, 'june launch', 'the orion "launch" plan');
        INSERT INTO fts(rowid, title, body) VALUES (2, 'Café Müller', 'near alpha: beta');
        """)
    }

    /// The rowids matching `expression`; throws when FTS5 rejects it.
    func match(_ expression: String) throws -> [Int64] {
      try db.rows("SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rowid", [.text(expression)]) { $0.int64(0) }
    }
  }

  static let hostileWords = [
    "AND", "OR", "NOT", "NEAR", "NEAR(a", "b)", "title:", "title:x", "{title}", "-x", "+x", "^x", "x^", "*", "**", "x*", "*x", "a*b",
    "\"", "\"\"", "'", "''", "(", ")", "()", ":", ";", "--", "/*", "*/", "\\", "\u{0}", "é", "Müller", "🙂", "a\"b", "a'b", "a\"\"b",
    "; DROP TABLE items; --", "x' OR '1'='1", "%", "_", "[", "]", "{", "}", ",", ".", "\t", "\n", "1", "-1", "1e3", "∑", "中文",
  ]

  static func search(_ terms: [TextSearch.Term], requireAll: Bool = true, phrase: Bool = false, columns: [String]? = nil) -> TextSearch {
    TextSearch(terms: terms, requireAll: requireAll, columns: columns, phrase: phrase)
  }

  /// The compiler's test of its own SQL (is `sl_visible` called, is there one MATCH) counts
  /// occurrences byte for byte, without overlaps, as splitting the text would.
  @Test func occurrencesInGeneratedSQLAreCountedByteForByte() {
    let cases: [(String, String)] = [
      ("fts MATCH", "SELECT rowid FROM fts WHERE fts MATCH ? AND x IN (SELECT rowid FROM fts WHERE fts MATCH ?)"),
      ("sl_visible(", "WHERE sl_visible(rowid)"), ("sl_visible(", "sl_visible"), ("aa", "aaaaa"), ("a", ""), ("", "abc"),
      ("items i)", "FROM (SELECT 1 FROM items i)"), ("é", "café é"), ("abc", "ab"), ("abab", "abababab"),
    ]
    for (text, sql) in cases {
      let split = text.isEmpty ? 0 : sql.components(separatedBy: text).count - 1
      #expect(SQLCompiler.occurrences(of: text, in: sql) == split, "\(text) in \(sql)")
    }
    #expect(SQLCompiler.occurrences(of: "fts MATCH", in: cases[0].1) == 2)
  }

  @Test func termsAreQuotedWithQuotesDoubled() {
    #expect(SQLCompiler.matchExpression(Self.search([.init(text: "june", isPrefix: false), .init(text: "laun", isPrefix: true)]))
      == #""june" AND "laun"*"#)
    #expect(SQLCompiler.matchExpression(Self.search([.init(text: "a\"b", isPrefix: false), .init(text: "c", isPrefix: false)], requireAll: false))
      == #""a""b" OR "c""#)
    #expect(SQLCompiler.matchExpression(Self.search([.init(text: "june", isPrefix: false), .init(text: "launch", isPrefix: false)], phrase: true))
      == #""june launch""#)
    #expect(SQLCompiler.matchExpression(Self.search([.init(text: "x", isPrefix: false)], columns: ["title", "body"]))
      == #"{title body} : ("x")"#)
  }

  @Test func generatedMatchTextMeansTheWords() throws {
    let table = try FTSTable()
    func rows(_ text: String) throws -> [Int64] {
      guard case .textSearch(let search) = try bound(text) else { Issue.record("\(text) is not a text search"); return [] }
      return try table.match(SQLCompiler.matchExpression(search))
    }
    #expect(try rows(#""june launch""#) == [1])
    #expect(try rows(#""laun*""#) == [1])
    #expect(try rows(#""LAUNCH orion""#) == [1])
    #expect(try rows(#""cafe muller""#) == [2])
    #expect(try rows(#""near(alpha beta)""#) == [2])
    #expect(try rows("'orion launch'") == [1])
    #expect(try rows("'launch orion'") == [])
    #expect(try rows(#""NOT launch""#) == [])
    #expect(try rows(#""june OR x""#) == [])
  }

  @Test func everyHostileTermIsAcceptedByFTS5() throws {
    let table = try FTSTable()
    for word in Self.hostileWords {
      for prefix in [false, true] {
        for phrase in [false, true] {
          for columns in [nil, ["title"], ["title", "body", "other"]] as [[String]?] {
            let search = Self.search([.init(text: word, isPrefix: prefix), .init(text: "launch", isPrefix: false)], phrase: phrase, columns: columns)
            let expression = SQLCompiler.matchExpression(search)
            #expect(throws: Never.self, "\(expression)") { _ = try table.match(expression) }
          }
        }
      }
    }
  }

  @Test func generatedSearchesOfRandomTextAreAcceptedByFTS5() throws {
    let table = try FTSTable()
    var generator = SplitMix(seed: 2026)
    let alphabet = Array("aeiouxyzAEIOU \"'*?:()^-+{}[],.;\\/%_éü🙂\t") + Self.hostileWords.map { Character(String($0.first ?? " ")) }
    for _ in 0..<2000 {
      let length = Int(generator.next() % 24)
      let text = String((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
      let terms = TextSearch.terms(of: text)
      guard !terms.isEmpty else { continue }
      for search in [Self.search(terms), Self.search(terms, requireAll: false), Self.search(terms, phrase: true)] {
        let expression = SQLCompiler.matchExpression(search)
        #expect(throws: Never.self, "\(text) -> \(expression)") { _ = try table.match(expression) }
      }
    }
  }

  @Test func queriesOfHostileTextRunOnTheIndex() throws {
    let index = try TemporaryIndex([item("x", [("title", .string("june launch"))])])
    for word in Self.hostileWords {
      let escaped = word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        .replacingOccurrences(of: "'", with: "\\'")
        .replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\t", with: "\\t")
        .replacingOccurrences(of: "\u{0}", with: "\\u0000")
      for query in ["\"\(escaped) launch\"", "'\(escaped) launch'", "\"\(escaped)* june\"", "title == \"\(escaped)*\"cdw"] {
        do {
          _ = try replies(query, in: index.index)
        } catch let error as DiagnosticsError {
          // Only "no words" is an acceptable complaint about such text.
          #expect(error.primary.id == "text.empty", "\(query): \(error)")
        }
      }
    }
  }
}

/// SplitMix64, for reproducible generated inputs.
struct SplitMix: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
