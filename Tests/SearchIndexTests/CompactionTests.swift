import Foundation
import Testing
@testable import SearchIndex

/// `SearchIndex.compact()`: the file is rewritten without its free pages, and nothing it holds
/// changes: items, their rowids, the full-text, value and ranked indexes, later writes.
@Suite struct CompactionTests {
  static func items(_ range: Range<Int>) -> [SearchableItem] {
    range.map { number in
      SearchableItem(
        uniqueIdentifier: "i\(number)", domainIdentifier: number < 40 ? "kept" : "gone",
        attributeSet: AttributeSet([
          ("title", .string("Report \(number)")),
          ("rating", .number(Double(number % 5))),
          ("keywords", .list([.string("k\(number % 3)"), .string("granite")])),
          ("textContent", .string((0..<300).map { "word\(($0 * 7 + number) % 500) granite" }.joined(separator: " "))),
        ]))
    }
  }

  /// Everything a reader can see of the file's items: rowid, identifier and record, in rowid order.
  static func contents(_ index: SearchIndex) throws -> [String] {
    try index.read { db in
      try db.rows("SELECT rowid, id, attributes FROM items ORDER BY rowid") { "\($0.int64(0)) \($0.string(1) ?? "") \(try $0.recordText(2))" }
    }
  }

  static func ranked(_ index: SearchIndex) throws -> [SearchHit]? {
    try index.read { db in try index.rankedSearch(["word7", "word123", "granite"].map { QueryTerm($0) }, k: 10, in: db) }
  }

  static func matches(_ index: SearchIndex, _ word: String) throws -> Int64? {
    try index.read { db in try db.scalar("SELECT count(*) FROM fts WHERE fts MATCH ?", [.text(word)])?.int64Value }
  }

  @Test func compactingGivesTheFreePagesBackAndChangesNothingItHolds() throws {
    try withTemporaryDirectory { directory in
      let index = try SearchIndex(path: directory.appendingPathComponent("index.db").path)
      try RecordDictionaryBuilder.$trainingRecords.withValue(20) {
        try index.indexSearchableItems(Self.items(0..<300))
      }
      #expect(try index.deleteSearchableItems(withDomainIdentifiers: ["gone"]) == 260)
      let free = try index.statistics().freeBytes
      #expect(free > 100_000)
      let before = try Self.contents(index)
      let ranked = try #require(try Self.ranked(index))
      #expect(ranked.count == 10)
      #expect(before.count == 40)

      let compaction = try index.compact()
      #expect(compaction.bytesBefore - compaction.bytesAfter >= free)
      #expect(compaction.bytesAfter == SearchIndex.fileBytes(index.path))
      let stats = try index.statistics()
      #expect(stats.freeBytes == 0)
      #expect(stats.items == 40)
      #expect(try Self.contents(index) == before)
      index.clearRankedCache()
      #expect(try Self.ranked(index) == ranked)
      #expect(try Self.matches(index, "granite") == 40)
      var streamed: [String] = []
      let report = try index.checkIntegrity { streamed.append($0) }
      #expect(report.isHealthy)
      #expect(streamed == report.lines)
      #expect(streamed.last == "journal: no pending work")

      // The file takes writes as before, and another handle reads them.
      try index.indexSearchableItems(Self.items(300..<310))
      let other = try SearchIndex(path: index.path)
      #expect(try other.statistics().items == 50)
      #expect(try Self.matches(other, "granite") == 50)
      #expect(try other.checkIntegrity().isHealthy)
    }
  }

  @Test func aRebuildRestoresEveryItemsRowsChunkByChunk() throws {
    try withTemporaryDirectory { directory in
      let index = try SearchIndex(path: directory.appendingPathComponent("index.db").path)
      try index.indexSearchableItems(Self.items(0..<23))
      func rows() throws -> [String] {
        try index.read { db in
          try db.rows("SELECT item, attr, ord, coalesce(num, ''), coalesce(fold, ''), coalesce(str, '') FROM vals ORDER BY 1, 2, 3") { row in
            (0..<6).map { row.string($0) ?? "" }.joined(separator: "|")
          }
        }
      }
      let before = try rows()
      let ranked = try #require(try Self.ranked(index))
      // Value rows lost (as a damaged file might): the rebuild derives them from the records
      // again, five items at a time, across four chunk boundaries and a short last chunk.
      try index.write { writer in try writer.db.run("DELETE FROM vals WHERE item % 3 = 0") }
      #expect(try rows().count < before.count)
      #expect(try SearchIndex.$rebuildChunk.withValue(5) { try index.rebuildFullTextIndex() } == 23)
      #expect(try rows() == before)
      #expect(try index.checkIntegrity().isHealthy)
      index.clearRankedCache()
      #expect(try Self.ranked(index) == ranked)
      #expect(try Self.matches(index, "granite") == 23)
    }
  }

  @Test func recordsWrittenBeforeTheFileHadADictionaryAreCompressedFirst() throws {
    try withTemporaryDirectory { directory in
      let index = try SearchIndex(path: directory.appendingPathComponent("index.db").path)
      try RecordDictionaryBuilder.$trainingRecords.withValue(.max) {
        try index.indexSearchableItems(Self.items(0..<50))
      }
      let json = try RecordCompressionTests.storage(index)
      #expect(json.allSatisfy { $0.type == "text" })
      let items = try index.allItems()
      try RecordDictionaryBuilder.$trainingRecords.withValue(20) {
        _ = try index.compact()
      }
      #expect(try !(RecordCompressionTests.dictionary(index) ?? []).isEmpty)
      #expect(try RecordCompressionTests.storage(index).allSatisfy { $0.type == "blob" && $0.head == RecordCodec.frameMagic })
      #expect(try index.allItems() == items)
      #expect(try index.checkIntegrity().isHealthy)
    }
  }

  @Test func aReaderOnAnOlderStateDelaysTheShrinkingAndIsToldSo() throws {
    try withTemporaryDirectory { directory in
      let index = try SearchIndex(path: directory.appendingPathComponent("index.db").path)
      try index.indexSearchableItems(Self.items(0..<300))
      try index.deleteSearchableItems(withDomainIdentifiers: ["gone"])
      let before = try Self.contents(index)
      // Another process's read, begun before the rewrite, still sees the old pages.
      let reader = try Connection(path: index.path, readOnly: true, create: false)
      try reader.execute("BEGIN")
      #expect(try reader.scalar("SELECT count(*) FROM items")?.int64Value == 40)

      let waiting = try index.compact()
      #expect(waiting.waitsForReaders)
      #expect(waiting.bytesAfter < waiting.bytesBefore)
      #expect(SearchIndex.fileBytes(index.path) > waiting.bytesAfter, "the rewrite is still in the log")
      #expect(try reader.scalar("SELECT count(*) FROM items")?.int64Value == 40)
      #expect(try Self.contents(index) == before)

      try reader.execute("COMMIT")
      let done = try index.compact()
      #expect(!done.waitsForReaders)
      #expect(done.bytesAfter <= waiting.bytesAfter)
      #expect(SearchIndex.fileBytes(index.path) == done.bytesAfter)
      #expect(try Self.contents(index) == before)
      #expect(try index.checkIntegrity().isHealthy)
    }
  }

  @Test func aReadOnlyIndexIsNotCompacted() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("index.db").path
      let writable = try SearchIndex(path: path)
      try writable.indexSearchableItems(Self.items(0..<60))
      try writable.deleteSearchableItems(withDomainIdentifiers: ["gone"])
      let size = SearchIndex.fileBytes(path)
      let reader = try SearchIndex(path: path, readOnly: true)
      #expect(throws: SearchIndexError.self) { try reader.compact() }
      #expect(SearchIndex.fileBytes(path) == size)
      #expect(try reader.statistics().items == 40)
    }
  }
}
