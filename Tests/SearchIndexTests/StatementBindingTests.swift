import Foundation
import Testing

@testable import SearchIndex

/// Texts reach SQLite from their own UTF-8 storage (`Statement.bindText`): every byte, a NUL
/// inside included, and an empty text as an empty text, not NULL.
@Suite struct StatementBindingTests {
  @Test(arguments: ["", "plain", "naïve café 東京都", "before\u{0}after", String(repeating: "long text ", count: 200_000)])
  func textIsBoundWhole(_ text: String) throws {
    let db = try Connection(path: ":memory:")
    try db.execute("CREATE TABLE t(v)")
    try db.run("INSERT INTO t(v) VALUES (?)", [.text(text)])
    let statement = try db.cachedStatement("INSERT INTO t(v) VALUES (?)")
    try statement.bind(text: text, at: 1)
    try statement.step()
    let stored = try db.rows("SELECT typeof(v), length(CAST(v AS BLOB)), hex(v) = hex(?) FROM t", [.text(text)]) {
      ($0.string(0) ?? "", $0.int64(1), $0.int64(2))
    }
    #expect(stored.count == 2)
    for row in stored {
      #expect(row.0 == "text", "an empty text is not NULL")
      #expect(row.1 == Int64(text.utf8.count))
      #expect(row.2 == 1)
    }
  }
}
