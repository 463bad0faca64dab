import Foundation
import Testing
@testable import SearchIndex

/// Schema version 5 (a `WITHOUT ROWID` value table clustered by item, `str` only where it
/// differs from `fold`) and the migration from version 4 files.
///
/// `Tests/Fixtures/schema-v4/v4.db` was written by the version 4 code (see the README beside
/// it): the same items as the version 3 fixture, a `default` index and a `private` index that
/// keeps textContent searchable but not stored.
@Suite struct SchemaV4MigrationTests {
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/schema-v4")
  static let fixture = fixtures.appendingPathComponent("v4.db")

  /// A copy of the version 4 fixture in `directory`.
  func copy(in directory: URL) throws -> String {
    let path = directory.appendingPathComponent("v4.db").path
    if !FileManager.default.fileExists(atPath: path) {
      try FileManager.default.copyItem(atPath: Self.fixture.path, toPath: path)
    }
    return path
  }

  /// The value rows of the named index, keyed by item identifier and attribute name (rowids
  /// and attribute ids differ between files).
  func valueRows(_ index: SearchIndex) throws -> [String] {
    try index.read { db in
      try db.rows(
        """
        SELECT i.id, a.name, v.ord, v.num, v.fold, v.str FROM vals v JOIN items i ON i.rowid = v.item JOIN attributes a ON a.id = v.attr
        WHERE i.indexId = ? ORDER BY 1, 2, 3
        """, [.integer(index.indexID)]
      ) { row in
        [row.string(0) ?? "", row.string(1) ?? "", String(row.int64(2)), row.isNull(3) ? "-" : String(row.double(3)), row.string(4) ?? "-", row.string(5) ?? "-"]
          .joined(separator: "|")
      }
    }
  }

  @Test func theFixtureIsAVersionFourFile() throws {
    let db = try Connection(path: Self.fixture.path, readOnly: true, create: false)
    #expect(try db.scalar("SELECT value FROM meta WHERE key = 'schemaVersion'")?.int64Value == 4)
    #expect(try db.scalar("SELECT count(*) FROM items")?.int64Value == 6)
    #expect(try db.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'vals_item'")?.int64Value == 1)
    // Version 4 stores the text twice in `vals`, folded or not.
    #expect(try db.scalar("SELECT count(*) FROM vals WHERE str = fold")?.int64Value ?? 0 > 0)
  }

  @Test func aVersionFourFileMigratesToTheRowsAFreshIndexWrites() throws {
    try withTemporaryDirectory { directory in
      let migrated = try SearchIndex(path: try copy(in: directory))
      let (version, definition, lookupIndex) = try migrated.read { db in
        (try db.scalar("SELECT value FROM meta WHERE key = 'schemaVersion'")?.int64Value,
         try db.scalar("SELECT sql FROM sqlite_master WHERE name = 'vals'")?.stringValue ?? "",
         try db.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'vals_item'")?.int64Value)
      }
      #expect(version == Int64(Schema.version))
      #expect(definition.contains("WITHOUT ROWID"))
      #expect(lookupIndex == 0)
      #expect(try migrated.read { db in try db.scalar("SELECT count(*) FROM vals WHERE str = fold")?.int64Value } == 0)
      // The same items indexed afresh give the same rows.
      let fresh = try SearchIndex(path: directory.appendingPathComponent("fresh.db").path)
      let lines = try String(contentsOf: Self.fixtures.appendingPathComponent("items.jsonl"), encoding: .utf8).split(separator: "\n")
      var decoder = ItemDecoder(catalog: AttributeCatalog())
      try fresh.indexSearchableItems(try lines.map { try decoder.decode(try JSONParser.parse(String($0))) })
      let rows = try valueRows(migrated)
      #expect(rows.count == 20)
      #expect(rows == (try valueRows(fresh)))
      #expect(rows.contains("t1|title|0|-|mist trail|Mist Trail"))
      #expect(rows.contains("n2|title|0|-|short|-"))
      #expect(rows.contains("t2|trailNote|0|-|-|-"))
      let report = try migrated.checkIntegrity()
      #expect(report.isHealthy, "\(report.lines)")
      #expect(report.lines.contains { $0.hasPrefix("values:") && $0.contains("agree with the records") }, "\(report.lines)")
    }
  }

  @Test func theMigratedFileKeepsEveryAnswerAndTakesWrites() throws {
    try withTemporaryDirectory { directory in
      let path = try copy(in: directory)
      // Read without migrating (read-only), then migrated: the same items and values.
      let before = try SearchIndex(path: path, readOnly: true)
      let beforeItems = try before.allItems()
      let beforeValues = try before.attributeValues(named: "stateOrProvince", scope: AccessScope(), limit: 10)
      let migrated = try SearchIndex(path: path)
      #expect(try migrated.allItems() == beforeItems)
      let afterValues = try migrated.attributeValues(named: "stateOrProvince", scope: AccessScope(), limit: 10)
      #expect(afterValues?.map { $0.value } == beforeValues?.map { $0.value })
      #expect(afterValues?.map { $0.value } == ["California", "Oregon"])
      // The private index's searchable-only text is still not in its values.
      let unstored = try SearchIndex(path: path, name: "private")
      #expect(try unstored.read { db in
        try db.scalar("SELECT count(*) FROM vals v JOIN attributes a ON a.id = v.attr JOIN items i ON i.rowid = v.item WHERE a.name = 'textContent' AND i.indexId = ?",
                      [.integer(unstored.indexID)])?.int64Value
      } == 0)
      // Rewrites and deletes keep the rows exact.
      try migrated.indexSearchableItems([
        SearchableItem(uniqueIdentifier: "t1", domainIdentifier: "trails", attributeSet: AttributeSet([("title", .string("Mist Trail")), ("stateOrProvince", .string("california"))])),
      ])
      try migrated.deleteSearchableItems(withIdentifiers: ["n2"])
      let rows = try valueRows(migrated)
      #expect(rows.filter { $0.hasPrefix("t1|") } == ["t1|stateOrProvince|0|-|california|-", "t1|title|0|-|mist trail|Mist Trail"])
      #expect(!rows.contains { $0.hasPrefix("n2|") })
      #expect(try migrated.checkIntegrity().isHealthy)
    }
  }

  /// `check` derives every record's value rows again: a row that no record gives, a missing
  /// one, a `str` stored where it equals `fold`, or an unflagged long-text attribute is found.
  /// A row differing in its columns counts twice (it is missing and it is extra), a missing or
  /// an extra row once, as in the report's "N differ".
  @Test(arguments: [
    ("UPDATE vals SET str = fold WHERE item = (SELECT rowid FROM items WHERE id = 'n2') AND fold = 'short'", " 2 differ"),
    ("DELETE FROM vals WHERE item = (SELECT rowid FROM items WHERE id = 't1') AND num IS NOT NULL AND ord = 0 AND num = 4.5", " 1 differ"),
    ("INSERT INTO vals(item, attr, ord, num) VALUES ((SELECT rowid FROM items WHERE id = 't1'), 1, 7, 1.0)", " 1 differ"),
    ("INSERT INTO vals(item, attr, ord, num) VALUES (999999, 1, 0, 1.0)", " 1 differ"),
    ("UPDATE vals SET fold = 'other' WHERE fold = 'california'", " 2 differ"),
    ("UPDATE attributes SET hasLong = 0 WHERE name = 'trailNote'", "not marked in the catalogue"),
  ])
  func checkFindsValuesThatDisagreeWithTheRecords(_ damage: String, _ said: String) throws {
    try withTemporaryDirectory { directory in
      let index = try SearchIndex(path: try copy(in: directory))
      #expect(try index.checkIntegrity().isHealthy)
      try index.pool.withWriter { db in
        try db.run(damage)
        #expect(db.changes == 1, "\(damage)")
      }
      let report = try index.checkIntegrity()
      #expect(!report.isHealthy, "\(damage)")
      #expect(report.lines.contains { $0.hasPrefix("values:") && !$0.contains("agree") && $0.contains(said) }, "\(report.lines)")
      // rebuild derives the values (and the long-text flags) again from the records.
      try index.rebuildFullTextIndex()
      let rebuilt = try index.checkIntegrity()
      #expect(rebuilt.isHealthy, "\(damage): \(rebuilt.lines)")
    }
  }
}
