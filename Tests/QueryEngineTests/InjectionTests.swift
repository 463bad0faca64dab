import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex

/// Hostile query text is matched as text: FTS5 operators, column filters, SQL fragments and
/// quotes never change what a query means or what the index holds.
@Suite struct InjectionTests {
  static let titles: [(String, String)] = [
    ("or-word", "alpha OR beta"), ("plain", "alpha beta"), ("and-word", "alpha and beta"), ("not-word", "not beta"),
    ("near", "near alpha beta"), ("column", "title secret"), ("secret", "secret"), ("star", "al*pha"),
    ("sql", "'; DROP TABLE items; --"), ("quote", #"say "hi" now"#), ("caret", "^start here"), ("minus", "-excluded item"),
    ("tautology", "x' OR '1'='1"),
  ]

  static func makeIndex() throws -> TemporaryIndex {
    try TemporaryIndex(titles.map { id, title in item(id, domain: "d", [("title", .string(title))]) }
      + [item("split", domain: "d", [("title", .string("alpha")), ("textContent", .string("beta"))])])
  }

  /// What the index holds: every row of every table, to prove nothing changed.
  static func snapshot(_ index: SearchIndex) throws -> [String] {
    try index.read { db in
      let tables = try db.rows("SELECT name FROM sqlite_master WHERE type IN ('table', 'index') ORDER BY name") { $0.string(0) ?? "" }
      var rows = tables
      for table in ["items", "vals", "attributes", "meta", "indexes"] {
        rows.append("\(table): \(try db.scalar("SELECT count(*) FROM \(table)")?.int64Value ?? -1)")
      }
      rows += try db.rows("SELECT id, attributes FROM items ORDER BY id") { "\($0.string(0) ?? "") \($0.string(1) ?? "")" }
      return rows
    }
  }

  @Test(arguments: [
    // Text searches: every word must occur, operators are words.
    (#""alpha OR beta""#, ["or-word"]),
    (#""alpha AND beta""#, ["and-word"]),
    (#""NOT beta""#, ["not-word"]),
    (#""NEAR(alpha beta)""#, ["near"]),
    (#""title:secret""#, ["column"]),
    (#""al*pha""#, ["star"]),
    (#""^start""#, ["caret"]),
    (#""-excluded""#, ["minus"]),
    (#""say \"hi\"""#, ["quote"]),
    (#""alpha beta""#, ["or-word", "plain", "and-word", "near", "split"]),
    ("'alpha beta'", ["plain", "near"]),
    (#""'; DROP TABLE items; --""#, ["sql"]),
    (#""x' OR '1'='1""#, ["tautology"]),
    // String comparisons: the whole value, exactly.
    (#"title == "'; DROP TABLE items; --""#, ["sql"]),
    (#"title == "x' OR '1'='1""#, ["tautology"]),
    (#"title == "' OR 1=1 --""#, []),
    (#"title == "alpha OR beta""#, ["or-word"]),
    (#"title == "say \"hi\" now""#, ["quote"]),
    (#"title == "al*pha""#, ["star", "split"]),
    (#"title == 'al*pha'"#, ["star"]),
    (#"title == "*; DROP*""#, ["sql"]),
    (#"title == "secret" || title == "title:secret""#, ["secret"]),
    (#"title ==[c] "ALPHA or BETA""#, ["or-word"]),
    (#"* == "NEAR*"c"#, ["near"]),
    (#"title == "%""#, []),
    (#"title == "_""#, []),
    (#"title == "alpha\u0000 OR beta""#, []),
    (#"title == "alpha\u0000junk""#, []),
    (#""alpha\u0000 OR beta""#, ["or-word"]),
    (#"title == "*%*""#, []),
  ])
  func hostileTextIsMatchedLiterally(query: String, expected: [String]) throws {
    let index = try Self.makeIndex()
    let before = try Self.snapshot(index.index)
    #expect(try idSet(query, in: index.index) == Set(expected), "\(query)")
    #expect(try Self.snapshot(index.index) == before)
  }

  @Test func hostileLabelsAndNamesStayLabels() throws {
    let index = try Self.makeIndex()
    let before = try Self.snapshot(index.index)
    let all = try replies(#"x = search "alpha"; x"#, in: index.index)
    #expect(all.count == 1)
    // A label is text in the reply, never SQL.
    let parsed = try Parser.parse(SourceText(#"search "alpha" | fork (limit 1 as "'); DROP TABLE items; --") (limit 2 as "x")"#))
    #expect(parsed.statements.count == 1)
    #expect(try Self.snapshot(index.index) == before)
  }

  @Test func sqlTextNeverReachesTheStatement() throws {
    let index = try Self.makeIndex()
    for query in [#"title == "'; DROP TABLE items; --""#, #""'; DROP TABLE items; --""#, #"title == "a'b*"c"#] {
      let graph = try QueryExecutor(index: index.index, registry: StageRegistry()).prepare(query, options: QueryOptions(clock: sampleClock))
      let explanation = try Explainer(executor: QueryExecutor(index: index.index, registry: StageRegistry()))
        .explain(graph, options: QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock))
      let sql = try #require(explanation.split(separator: "\n").first { $0.contains("SQL: ") })
      #expect(!sql.contains("DROP"), "\(sql)")
      #expect(!sql.contains("a'b"), "\(sql)")
    }
  }
}
