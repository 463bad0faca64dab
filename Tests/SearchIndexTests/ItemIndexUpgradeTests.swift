import Foundation
import Testing
@testable import SearchIndex

/// The item indexes (`Schema.requiredIndexes`: domain and content type with the scope's
/// columns, and the expiring and protected items with their named index) and how files
/// written before them gain them.
///
/// `Tests/Fixtures/schema-v5/v5.db` was written by the version 5 code before the indexes
/// existed (see the README beside it): trails, notes and an e-mail with content types, one
/// protected and one expired note.
@Suite struct ItemIndexUpgradeTests {
  static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/schema-v5/v5.db")

  /// A copy of the fixture in `directory`.
  func copy(in directory: URL) throws -> String {
    let path = directory.appendingPathComponent("v5.db").path
    try FileManager.default.copyItem(atPath: Self.fixture.path, toPath: path)
    return path
  }

  func indexNames(_ db: Connection) throws -> Set<String> {
    Set(try db.rows("SELECT name FROM sqlite_master WHERE type = 'index'") { $0.string(0) ?? "" })
  }

  /// The rowids the default scope hides, and the notes, with how SQLite finds them.
  func lookups(_ db: Connection) throws -> (hidden: [Int64], notes: [Int64], plans: String) {
    let hidden = AccessScope(now: Date()).hiddenRowsSQL(indexID: 1)
    let notes = "SELECT rowid FROM items WHERE indexId = ? AND contentType = ? ORDER BY rowid"
    let plans = try (db.rows("EXPLAIN QUERY PLAN " + hidden.sql, hidden.arguments) { $0.string(3) ?? "" }
      + db.rows("EXPLAIN QUERY PLAN " + notes, [.integer(1), .text("note")]) { $0.string(3) ?? "" }).joined(separator: "\n")
    return (
      try db.rows(hidden.sql, hidden.arguments) { $0.int64(0) }.sorted(),
      try db.rows(notes, [.integer(1), .text("note")]) { $0.int64(0) },
      plans
    )
  }

  @Test func theFixtureIsAVersionFiveFileWithoutTheItemIndexes() throws {
    let db = try Connection(path: Self.fixture.path, readOnly: true, create: false)
    #expect(try db.scalar("SELECT value FROM meta WHERE key = 'schemaVersion'")?.int64Value == 5)
    let names = try indexNames(db)
    #expect(names.isSuperset(of: ["items_domain", "items_expiration", "items_protection"]))
    #expect(names.isDisjoint(with: Schema.requiredIndexes))
  }

  @Test func aWritableOpenAddsTheIndexesWithoutAVersionStep() throws {
    try withTemporaryDirectory { directory in
      let path = try copy(in: directory)
      let before = try lookups(try Connection(path: path, readOnly: true, create: false))
      // Without the indexes every note's record is read (every item's, on a large file),
      // and every hidden item's.
      #expect(!before.plans.contains("items_type"), "\(before.plans)")
      #expect(!before.plans.contains("COVERING INDEX"), "\(before.plans)")

      let index = try SearchIndex(path: path)
      let after = try index.read { db in
        (try indexNames(db), try db.scalar("SELECT value FROM meta WHERE key = 'schemaVersion'")?.int64Value, try lookups(db))
      }
      #expect(after.0.isSuperset(of: Schema.requiredIndexes))
      #expect(after.0.isDisjoint(with: Schema.supersededIndexes))
      #expect(after.1 == Int64(Schema.version))
      // The same rows, from the indexes alone.
      #expect(after.2.hidden == before.hidden)
      #expect(after.2.hidden.count == 2)
      #expect(after.2.notes == before.notes)
      #expect(after.2.notes.count == 3)
      #expect(!after.2.plans.contains("SCAN items"), "\(after.2.plans)")
      #expect(after.2.plans.contains("COVERING INDEX items_expiring"), "\(after.2.plans)")
      #expect(after.2.plans.contains("COVERING INDEX items_protected"), "\(after.2.plans)")
      #expect(after.2.plans.contains("COVERING INDEX items_type_domain_scope (indexId=? AND contentType=?)"), "\(after.2.plans)")
      #expect(!after.2.plans.contains("TEMP B-TREE FOR ORDER BY"), "\(after.2.plans)")
      let report = try index.checkIntegrity()
      #expect(report.isHealthy, "\(report.lines)")
      #expect(report.lines.contains("item indexes: items_domain_type_scope, items_type_domain_scope, items_expiring, items_protected present"), "\(report.lines)")
    }
  }

  @Test func aQueryFirstOpenOfAWritableFileAddsThemToo() throws {
    try withTemporaryDirectory { directory in
      let path = try copy(in: directory)
      let index = try SearchIndex(path: path, readOnly: true)
      #expect(try index.read { db in try indexNames(db) }.isSuperset(of: Schema.requiredIndexes))
    }
  }

  @Test func aFreshFileHasThemAndWritesKeepThemExact() throws {
    try withTemporaryDirectory { directory in
      let index = try SearchIndex(path: directory.appendingPathComponent("fresh.db").path)
      try index.indexSearchableItems([
        SearchableItem(uniqueIdentifier: "a", contentType: "note", protectionClass: "private", attributeSet: AttributeSet([("title", .string("A"))])),
        SearchableItem(uniqueIdentifier: "b", contentType: "note", attributeSet: AttributeSet([("title", .string("B"))])),
      ])
      try index.indexSearchableItems([
        SearchableItem(uniqueIdentifier: "a", contentType: "trail", attributeSet: AttributeSet([("title", .string("A"))])),
      ])
      let (names, found) = try index.read { db in (try indexNames(db), try lookups(db)) }
      #expect(names.isSuperset(of: Schema.requiredIndexes))
      #expect(found.hidden.isEmpty)
      #expect(found.notes.count == 1)
      #expect(try index.checkIntegrity().isHealthy)
    }
  }

  /// A file of the current version with the domain and type indexes of before session 43
  /// (each without the other's field) gets the current ones on its next writable open, which
  /// read a type's domains from the index alone; the former ones are dropped, and the
  /// generation and the planner's summary stay as they were (no item changed).
  @Test func aFileWithTheFormerScopeIndexesGetsTheCurrentOnes() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("former.db").path
      let domainsOfNotes = "SELECT domain, count(*) FROM items WHERE indexId = 1 AND contentType = 'note' GROUP BY domain ORDER BY domain"
      let before: (generation: Int64, summary: IndexSummary, groups: [String], rewritten: Int64?) = try {
        let index = try SearchIndex(path: path)
        try index.indexSearchableItems((0..<30).map { number in
          SearchableItem(
            uniqueIdentifier: "item-\(number)", domainIdentifier: ["notes", "notes.work", "trails"][number % 3],
            contentType: number % 4 == 0 ? "trail" : "note", attributeSet: AttributeSet([("title", .string("Item \(number)"))]))
        })
        let summary = try index.summary(scope: AccessScope())
        try index.pool.withWriter { db in
          try db.execute("""
            DROP INDEX items_domain_type_scope; DROP INDEX items_type_domain_scope;
            CREATE INDEX items_domain_scope ON items(indexId, domain, rowid, expiration, protection);
            CREATE INDEX items_type_scope ON items(indexId, contentType, rowid, expiration, protection);
            """)
        }
        return try index.read { db in
          (try SearchIndex.generation(in: db), summary, try db.rows(domainsOfNotes) { "\($0.string(0) ?? "") \($0.int64(1))" },
           try db.scalar("SELECT value FROM meta WHERE key = ?", [.text(SummaryState.rewrittenKey)])?.int64Value)
        }
      }()
      let index = try SearchIndex(path: path)
      let (names, generation, groups, plan) = try index.read { db in
        (try indexNames(db), try SearchIndex.generation(in: db), try db.rows(domainsOfNotes) { "\($0.string(0) ?? "") \($0.int64(1))" },
         try db.rows("EXPLAIN QUERY PLAN " + domainsOfNotes) { $0.string(3) ?? "" }.joined(separator: "\n"))
      }
      #expect(names.isSuperset(of: Schema.requiredIndexes))
      #expect(names.isDisjoint(with: ["items_domain_scope", "items_type_scope"]))
      #expect(groups == before.groups && groups.count == 3)
      // Either index answers it alone now; neither former one did.
      #expect(plan.contains("USING COVERING INDEX items_"), "\(plan)")
      #expect(generation == before.generation)
      // No summary of before is marked stale: the next one grows from it.
      #expect(try index.read { db in try db.scalar("SELECT value FROM meta WHERE key = ?", [.text(SummaryState.rewrittenKey)])?.int64Value }
              == before.rewritten)
      #expect(try index.summary(scope: AccessScope()) == before.summary)
      #expect(try index.checkIntegrity().isHealthy)
    }
  }

  @Test func checkReportsMissingIndexesWithoutCallingTheFileUnhealthy() throws {
    let db = try Connection(path: Self.fixture.path, readOnly: true, create: false)
    #expect(try SearchIndex.itemIndexesLine(db)
      == "item indexes: missing items_domain_type_scope, items_type_domain_scope, items_expiring, items_protected (added by the next writable open; queries read the records meanwhile)")
  }
}
