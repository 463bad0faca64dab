import Foundation
import Testing
@testable import SearchIndex

/// A large write drops the value indexes whose keys arrive in no order and builds them again
/// before it commits (`IndexWriter.bulkLoadRows`): the file it leaves is the one a write
/// item by item leaves, and a write that fails leaves the file as it was.
@Suite struct BulkLoadTests {
  static func items(_ range: Range<Int>) -> [SearchableItem] {
    range.map { number in
      SearchableItem(
        uniqueIdentifier: "i\(number)", domainIdentifier: number % 3 == 0 ? "trails" : "notes",
        attributeSet: AttributeSet([
          ("title", .string(["Mist Trail", "half dome", "Angels Landing", "Élan"][number % 4] + " \(number % 5)")),
          ("rating", .number(Double(number % 7) / 2)),
          ("keywords", .list([.string("k\(number % 4)"), .string("K\(number % 2)")])),
          ("textContent", .string("body of item \(number) with words")),
        ]))
    }
  }

  /// Every value index entry, read through the index itself.
  static func entries(_ index: SearchIndex) throws -> [String] {
    try index.read { db in
      try db.rows("SELECT attr, fold, coalesce(str, ''), item FROM vals INDEXED BY vals_fold WHERE fold IS NOT NULL ORDER BY 1, 2, 3, 4") {
        "\($0.int64(0)) \($0.string(1) ?? "") \($0.string(2) ?? "") \($0.int64(3))"
      }
        + db.rows("SELECT attr, num, item FROM vals INDEXED BY vals_num WHERE num IS NOT NULL ORDER BY 1, 2, 3") {
          "\($0.int64(0)) \($0.double(1)) \($0.int64(2))"
        }
    }
  }

  static func indexes(_ db: Connection) throws -> Set<String> {
    Set(try db.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'vals'") { $0.string(0) ?? "" })
  }

  @Test func aLargeWriteLeavesTheFileAWriteItemByItemLeaves() throws {
    try withTemporaryDirectory { directory in
      let bulk = try SearchIndex(path: directory.appendingPathComponent("bulk.db").path)
      let plain = try SearchIndex(path: directory.appendingPathComponent("plain.db").path)
      for (first, count) in [(0, 12), (12, 5), (17, 40)] {
        // 12 items into an empty file and 40 into one of 17 drop the indexes; 5 into 12 do not.
        var sawDropped = false
        try IndexWriter.$bulkLoadRows.withValue(4) {
          try bulk.write { writer in
            for item in Self.items(first..<(first + count)) {
              try writer.upsert(item)
              if try !Self.indexes(writer.db).contains("vals_fold") { sawDropped = true }
            }
          }
        }
        #expect(sawDropped == (count > first), "items \(first)..<\(first + count)")
        try plain.indexSearchableItems(Self.items(first..<(first + count)))
        #expect(try bulk.read { db in try Self.indexes(db) }.isSuperset(of: Schema.bulkLoadIndexes))
        #expect(try Self.entries(bulk) == Self.entries(plain))
        #expect(try bulk.checkIntegrity().isHealthy)
      }
      #expect(try bulk.allItems() == plain.allItems())
    }
  }

  @Test func aLargeWriteThatFailsLeavesTheFileAsItWas() throws {
    struct Stop: Error {}
    try withTemporaryDirectory { directory in
      let index = try SearchIndex(path: directory.appendingPathComponent("index.db").path)
      try index.indexSearchableItems(Self.items(0..<3))
      let before = try Self.entries(index)
      #expect(throws: Stop.self) {
        try IndexWriter.$bulkLoadRows.withValue(2) {
          try index.write { writer in
            for item in Self.items(3..<20) { try writer.upsert(item) }
            #expect(try !Self.indexes(writer.db).contains("vals_fold"))
            throw Stop()
          }
        }
      }
      #expect(try index.read { db in try Self.indexes(db) }.isSuperset(of: Schema.bulkLoadIndexes))
      #expect(try Self.entries(index) == before)
      #expect(try index.allItems().count == 3)
    }
  }

  /// The sort that builds the dropped indexes again holds every value of the write: it must
  /// spill to temporary files beyond the page cache, not to memory (a million notes and mails
  /// took `index` to 725 MB that way), and so must `check`'s re-derivations and `compact`.
  @Test func theWritersSortsAndTemporaryTablesSpillToFilesNotMemory() throws {
    try withTemporaryDirectory { directory in
      let index = try SearchIndex(path: directory.appendingPathComponent("index.db").path)
      var during: Int64?
      try IndexWriter.$bulkLoadRows.withValue(4) {
        try index.write { writer in
          for item in Self.items(0..<12) { try writer.upsert(item) }
          during = try writer.db.scalar("PRAGMA temp_store")?.int64Value
        }
      }
      // 1 is FILE (0 the compile-time default, 2 MEMORY).
      #expect(during == 1)
      #expect(try index.checkIntegrity().isHealthy)
      try index.compact()
      #expect(try index.write { writer in try writer.db.scalar("PRAGMA temp_store")?.int64Value } == 1)
    }
  }
}
