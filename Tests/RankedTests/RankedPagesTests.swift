import Foundation
import Testing
@testable import SearchIndex

/// The ranked index's pages of field lengths as stored and read.
@Suite struct RankedPagesTests {
  /// Schema version 8 stores a page of field lengths that is at least half live fixed-width,
  /// so a query copies it instead of decoding varints. A version 7 file (every page varints)
  /// is rewritten by its first writable open, in the migration's one transaction, and answers
  /// as before; its planner summaries stay valid (no value changed).
  @Test func aVersion7FileHasItsDensePagesRewrittenFixedWidth() throws {
    let fixture = try RankedTestIndex()
    var corpus = RandomItems(seed: 20261206, vocabularySize: 300)
    try fixture.upsert((0..<700).map { corpus.item("doc-\($0)") })
    let queries = (0..<12).map { _ in corpus.query() }
    let before = try queries.map { try fixture.ranked($0, k: 10) }
    #expect(before.contains { !$0.isEmpty })
    // What version 7 wrote: every page as varints.
    try fixture.index.pool.withWriter { db in
      for (indexID, number, bytes) in try db.rows("SELECT indexId, page, data FROM rk_pages", [], { ($0.int64(0), $0.int64(1), $0.blob(2)) }) {
        let page = try #require(DocumentPage.decode(number: number, fieldCount: RankedSchema.parameters.fieldCount, bytes: bytes))
        try db.run("UPDATE rk_pages SET data = ? WHERE indexId = ? AND page = ?", [.blob(page.varintEncoded()), .integer(indexID), .integer(number)])
      }
      try db.run("UPDATE meta SET value = 7 WHERE key = 'schemaVersion'")
    }
    let summaryMarker = try fixture.index.read { db in try db.scalar("SELECT value FROM meta WHERE key = ?", [.text(SummaryState.rewrittenKey)]) }
    #expect(try Self.pageForms(fixture).allSatisfy { $0 < 0x80 })
    try fixture.reopen()
    let forms = try Self.pageForms(fixture)
    // 700 items fill page 0 (rowids 1-700): fixed-width now, one byte per length.
    #expect(forms.first == 0x81, "\(forms)")
    #expect(try fixture.index.read { db in try Schema.storedVersion(db) } == 8)
    #expect(try fixture.index.read { db in try db.scalar("SELECT value FROM meta WHERE key = ?", [.text(SummaryState.rewrittenKey)]) } == summaryMarker)
    #expect(try queries.map { try fixture.ranked($0, k: 10) } == before)
    #expect(try fixture.consistencyProblems() == [])
    for (offset, terms) in queries.prefix(4).enumerated() { try fixture.expectExact(terms, k: 10, "query \(offset)") }
  }

  /// The last byte of each stored page (0x81 or 0x82 fixed-width, below 0x80 varints).
  static func pageForms(_ fixture: RankedTestIndex) throws -> [UInt8] {
    try fixture.index.read { db in try db.rows("SELECT data FROM rk_pages ORDER BY page", []) { $0.blob(0).last ?? 0 } }
  }
}
