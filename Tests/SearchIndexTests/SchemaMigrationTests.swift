import Foundation
import Testing
@testable import SearchIndex

/// Schema version 4 (each text stored once) and the migration from version 3 files.
///
/// `Tests/Fixtures/schema-v3/v3.db` was written by the version 3 code (see the README beside
/// it): a `default` index with long and short texts, lists and a protected item, and a
/// `private` index that keeps textContent searchable but not stored.
@Suite struct SchemaMigrationTests {
  static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/schema-v3/v3.db")

  /// A copy of the version 3 fixture, opened (and so migrated) as `name`.
  func migratedCopy(in directory: URL, name: String = "default") throws -> SearchIndex {
    let path = directory.appendingPathComponent("v3.db").path
    if !FileManager.default.fileExists(atPath: path) {
      try FileManager.default.copyItem(atPath: Self.fixture.path, toPath: path)
    }
    return try SearchIndex(path: path, name: name)
  }

  func ids(_ index: SearchIndex, matching query: String) throws -> [String] {
    try index.read { db in
      try db.rows(
        "SELECT i.id FROM items i WHERE i.rowid IN (SELECT rowid FROM fts WHERE fts MATCH ?) AND i.indexId = ? ORDER BY i.id",
        [.text(query), .integer(index.indexID)]) { $0.string(0) ?? "" }
    }
  }

  @Test func theFixtureIsAVersionThreeFile() throws {
    let db = try Connection(path: Self.fixture.path, readOnly: true, create: false)
    #expect(try db.scalar("SELECT value FROM meta WHERE key = 'schemaVersion'")?.int64Value == 3)
    #expect(try db.scalar("SELECT count(*) FROM items")?.int64Value == 6)
  }

  @Test func aVersionThreeFileMigratesInPlaceAndKeepsEveryAnswer() throws {
    try withTemporaryDirectory { directory in
      let index = try migratedCopy(in: directory)
      let version = try index.read { db in try db.scalar("SELECT value FROM meta WHERE key = 'schemaVersion'")?.int64Value }
      #expect(version == Int64(Schema.version))
      // Contentless: no second copy of the texts.
      let definition = try index.read { db in try db.scalar("SELECT sql FROM sqlite_master WHERE name = 'fts'")?.stringValue } ?? ""
      #expect(definition.contains("content = ''"))
      #expect(try index.read { db in try db.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'fts_content'")?.int64Value } == 0)
      // Long text left `vals`: marker rows, and the attributes say so.
      let longest = try index.read { db in try db.scalar("SELECT max(length(CAST(fold AS BLOB))) FROM vals")?.int64Value } ?? 0
      #expect(longest <= Int64(Schema.longTextBytes))
      let long = try index.read { db in try db.rows("SELECT name FROM attributes WHERE hasLong = 1 ORDER BY name") { $0.string(0) ?? "" } }
      #expect(long == ["contentDescription", "keywords", "textContent", "title", "trailNote"])
      #expect(try shortValues(of: Schema.longTextAttributes, in: index) == 0)
      #expect(try foldIndexDefinition(index).contains("(attr, fold, str)"))
      // The full-text index answers as before, stems and folding included.
      #expect(try ids(index, matching: "\"frederic\"") == ["n1", "t1"])
      #expect(try ids(index, matching: "\"\u{1}granit\"") == ["t1"])
      #expect(try ids(index, matching: "\"unicode\"") == ["t2"])
      // Stored items are unchanged.
      let t2 = try #require(try index.item(withIdentifier: "t2"))
      #expect(t2.attributeSet["trailNote"]?.stringValue?.hasPrefix("Custom note text") == true)
      #expect(try index.checkIntegrity().isHealthy)
    }
  }

  /// `vals` rows with a folded text of the attributes `names`.
  func shortValues(of names: Set<String>, in index: SearchIndex) throws -> Int64 {
    try index.read { db in
      try db.scalar(
        "SELECT count(*) FROM vals v JOIN attributes a ON a.id = v.attr WHERE v.fold IS NOT NULL AND a.name IN (\(names.map { _ in "?" }.joined(separator: ", ")))",
        names.sorted().map(SQLValue.text))?.int64Value ?? -1
    }
  }

  func foldIndexDefinition(_ index: SearchIndex) throws -> String {
    try index.read { db in try db.scalar("SELECT sql FROM sqlite_master WHERE name = 'vals_fold'")?.stringValue } ?? ""
  }

  /// Version 6 from a version 5 file (`Tests/Fixtures/schema-v5`, whose bodies are short and so
  /// were in `vals`): the bodies become markers, `vals_fold` gains `str`, `check` agrees before
  /// (read as version 5) and after, and the planner's stored vocabulary is dropped.
  @Test func aVersionFiveFileMigratesToSix() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("v5.db").path
      try FileManager.default.copyItem(
        atPath: Self.fixture.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("schema-v5/v5.db").path,
        toPath: path)
      // Read as it is (any `SearchIndex` open of a writable file migrates it).
      do {
        let db = try Connection(path: path, readOnly: true, create: false)
        #expect(try db.scalar("SELECT value FROM meta WHERE key = 'schemaVersion'")?.int64Value == 5)
        #expect(try db.scalar("SELECT count(*) FROM vals v JOIN attributes a ON a.id = v.attr WHERE a.name = 'textContent' AND v.fold IS NOT NULL")?.int64Value ?? 0 > 0)
        #expect(!(try db.scalar("SELECT sql FROM sqlite_master WHERE name = 'vals_fold'")?.stringValue ?? "str").contains("str"))
        // `check` derives a version 5 file's rows as version 5 wrote them.
        #expect(try SearchIndex.valuesAgreeWithRecords(db).allSatisfy(\.healthy))
      }
      let items = try SearchIndex(path: path, readOnly: true).allItems()

      let index = try SearchIndex(path: path)
      #expect(try index.read { db in try db.scalar("SELECT value FROM meta WHERE key = 'schemaVersion'")?.int64Value } == Int64(Schema.version))
      #expect(try shortValues(of: Schema.longTextAttributes, in: index) == 0)
      #expect(try foldIndexDefinition(index).contains("(attr, fold, str)"))
      let long = try index.read { db in try db.rows("SELECT name FROM attributes WHERE hasLong = 1 ORDER BY name") { $0.string(0) ?? "" } }
      #expect(long.contains("textContent"))
      #expect(try index.allItems() == items && items.count == 6)
      #expect(try index.checkIntegrity().isHealthy)
    }
  }

  @Test func unstoredTextSurvivesTheMigrationAndCanBeRewritten() throws {
    try withTemporaryDirectory { directory in
      let index = try migratedCopy(in: directory, name: "private")
      // The text was only in the old full-text table; it now lives in fts_unstored.
      let unstored = try index.read { db in try db.rows("SELECT text FROM fts_unstored ORDER BY item") { $0.string(0) ?? "" } }
      #expect(unstored == [
        "The alpha plan text is indexed for search but not stored in the record under no-store-text.",
        "Beta text mentions quokka twice: quokka.",
      ])
      #expect(try ids(index, matching: "\"quokka\"") == ["beta"])
      #expect(try index.item(withIdentifier: "beta")?.attributeSet["textContent"] == nil)
      // Rewriting the item removes its old words exactly (the delete derives them again).
      try index.indexSearchableItems([
        SearchableItem(uniqueIdentifier: "beta", domainIdentifier: "notes", attributeSet: AttributeSet([
          ("title", .string("Beta notes")), ("textContent", .string("Now about wombats.")),
        ])),
      ])
      #expect(try ids(index, matching: "\"quokka\"") == [])
      #expect(try ids(index, matching: "\"\u{1}wombat\"") == ["beta"])
      // An update of another attribute keeps the searchable-only text.
      try index.updateSearchableItems([SearchableItem(uniqueIdentifier: "beta", attributeSet: AttributeSet([("title", .string("Beta, renamed"))]))])
      #expect(try ids(index, matching: "\"\u{1}wombat\"") == ["beta"])
      #expect(try ids(index, matching: "\"renam\"*") == ["beta"])
      #expect(try index.checkIntegrity().isHealthy)
    }
  }

  @Test func deletingAndRewritingLongTextsKeepsTheFullTextIndexExact() throws {
    try withTemporaryDirectory { directory in
      let index = try migratedCopy(in: directory)
      try index.deleteSearchableItems(withIdentifiers: ["t1"])
      #expect(try ids(index, matching: "\"frederic\"") == ["n1"])
      try index.updateSearchableItems([SearchableItem(uniqueIdentifier: "t2", attributeSet: AttributeSet([("trailNote", .string("replaced"))]))])
      #expect(try ids(index, matching: "\"unicode\"") == [])
      #expect(try ids(index, matching: "\"replac\"*") == ["t2"])
      let report = try index.checkIntegrity()
      #expect(report.isHealthy, "\(report.lines)")
    }
  }

  @Test func checkFindsAFullTextIndexThatDisagreesWithTheRecords() throws {
    try withTemporaryDirectory { directory in
      let index = try migratedCopy(in: directory)
      #expect(try index.checkIntegrity().isHealthy)
      // A row no record explains.
      try index.pool.withWriter { db in try db.run("INSERT INTO fts(rowid, body) VALUES (999, 'phantom words')") }
      let report = try index.checkIntegrity()
      #expect(!report.isHealthy)
      #expect(report.lines.contains { $0.hasPrefix("full-text index:") && $0.contains("differ") }, "\(report.lines)")
      // rebuild derives the whole full-text index again from the records.
      try index.rebuildFullTextIndex()
      #expect(try index.checkIntegrity().isHealthy)
      #expect(try ids(index, matching: "\"phantom\"") == [])
    }
  }

  @Test func checkFindsAMissingFullTextRow() throws {
    try withTemporaryDirectory { directory in
      let index = try migratedCopy(in: directory)
      let texts = try index.fullTextColumns(ofItems: [1])
      try index.pool.withWriter { db in
        for (rowid, columns) in texts { try FullTextColumns.delete(rowid, columns, from: db) }
      }
      let report = try index.checkIntegrity()
      #expect(!report.isHealthy)
      #expect(report.lines.contains { $0.contains("rows for") }, "\(report.lines)")
    }
  }

  /// FTS5's pending-terms budget (`Schema.fullTextHashSize`, FTS5's `hashsize`) is set by the
  /// first write of any file, new or written before the setting existed, and FTS5 keeps
  /// answering with it.
  @Test func theFirstWriteSetsTheFullTextPendingBudget() throws {
    func hashSize(_ index: SearchIndex) throws -> Int64? {
      try index.read { db in try db.scalar("SELECT v FROM fts_config WHERE k = 'hashsize'")?.int64Value }
    }
    try withTemporaryDirectory { directory in
      let old = try migratedCopy(in: directory)
      #expect(try hashSize(old) == nil)
      try old.indexSearchableItems([
        SearchableItem(uniqueIdentifier: "new", attributeSet: AttributeSet([("title", .string("Zanzibar ferry"))]))
      ])
      #expect(try hashSize(old) == Int64(Schema.fullTextHashSize))
      #expect(try ids(old, matching: "\"zanzibar\"") == ["new"])
      #expect(try ids(old, matching: "\"frederic\"") == ["n1", "t1"])
      #expect(try old.checkIntegrity().isHealthy)

      let fresh = try SearchIndex(path: directory.appendingPathComponent("fresh.db").path)
      try fresh.indexSearchableItems([
        SearchableItem(uniqueIdentifier: "a", attributeSet: AttributeSet([("title", .string("Harbour"))]))
      ])
      #expect(try hashSize(fresh) == Int64(Schema.fullTextHashSize))
    }
  }
}
