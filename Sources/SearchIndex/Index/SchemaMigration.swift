/// Brings a file written by an earlier schema version to `Schema.version`, inside the one
/// transaction `SearchIndex` opens for it: a crash leaves the file as it was.
///
/// Version 4 stores each text once. From any earlier version:
/// 1. the text of indexes that keep `textContent` searchable but not stored is copied from
///    the old, contentful `fts` table into `fts_unstored` (it exists nowhere else);
/// 2. `fts` is replaced by a contentless table (no prefix indexes) and refilled with the
///    column texts derived from the records (`FullTextColumns`);
/// 3. long text leaves `vals` (its rows become markers) and `attributes.hasLong` is set;
/// 4. the tables and indexes added since are created.
/// The ranked postings are unchanged: the tokenizer and the texts are the same.
///
/// Version 5 rewrites `vals` as a `WITHOUT ROWID` table clustered by (item, attr, ord), with
/// `str` NULL wherever it equals `fold`, and builds its indexes once the rows are in (the
/// separate (item, attr) index of version 4 is gone: the table's key serves it).
///
/// Version 6 keeps the texts of `Schema.longTextAttributes` out of `vals` (their rows become
/// markers, `attributes.hasLong` set) and rebuilds `vals_fold` with `str`; the planner's
/// vocabulary kept in `summary_cache`, which listed some of those texts, is dropped.
///
/// Version 7 drops the ranked index's forward lists (`rk_docs`); its records are compressed
/// by the first write that leaves the file with enough of them (`RecordDictionaryBuilder`),
/// which may be the next one.
///
/// Version 8 rewrites the ranked index's pages of field lengths that are at least half live
/// in the fixed-width form (`DocumentPage.encoded()`), which a query reads by copying instead
/// of decoding varints; only those rows change, so the planner's summary stays valid.
///
/// A file of the current version that lacks one of `Schema.requiredIndexes` (written before
/// they existed) runs the same function: the version steps are skipped, the indexes are
/// created and the ones they supersede dropped.
enum SchemaMigration {
  static func migrate(_ db: Connection, from version: Int) throws {
    try db.execute(Schema.createStatements)
    let attributeColumns = try db.rows("PRAGMA table_info(attributes)") { $0.string(1) ?? "" }
    if !attributeColumns.contains("hasLong") {
      try db.execute("ALTER TABLE attributes ADD COLUMN hasLong INTEGER NOT NULL DEFAULT 0")
    }
    if version < 4 { try migrateFullText(db) }
    if version < 5 { try clusterValues(db) }
    // A version 5 file's `vals_fold` lacks `str`; `clusterValues` built the current one.
    if version < 6 { try keepLongTextAttributesOut(db, rebuildingFoldIndex: version == 5) }
    // The ranked index's forward lists: a delete takes a document's terms from its record.
    if version < 7 { try db.execute("DROP TABLE IF EXISTS rk_docs") }
    if version < 8 { try SearchIndex.rewriteRankedPages(db) }
    // `createStatements` added the item indexes (`Schema.requiredIndexes`); the ones they
    // replace go.
    let existing = try db.rows("SELECT name FROM sqlite_master WHERE type = 'index'") { $0.string(0) ?? "" }
    for name in Schema.supersededIndexes where existing.contains(name) { try db.execute("DROP INDEX \(name)") }
    // A file with planner statistics gets them for the new indexes too: without, SQLite
    // assumes that an equality on one finds about ten rows and prefers it to better plans.
    if try db.scalar("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'") != nil {
      let analyzed = try db.rows("SELECT DISTINCT idx FROM sqlite_stat1 WHERE tbl = 'items'") { $0.string(0) ?? "" }
      for name in Schema.requiredIndexes where !analyzed.contains(name) { try db.execute("ANALYZE \(name)") }
    }
    try db.run("UPDATE meta SET value = ? WHERE key = 'schemaVersion'", [.integer(Int64(Schema.version))])
    // From version 7 only the ranked pages changed, and from version 8 only item indexes:
    // the summaries stay valid.
    if version >= 7 { return }
    // The value table changed under the generation: no summary of before grows from here.
    try db.run(
      "INSERT OR REPLACE INTO meta(key, value) VALUES (?, (SELECT value + 1 FROM meta WHERE key = 'generation'))",
      [.text(SummaryState.rewrittenKey)])
    try SummaryLog.raiseUnlogged(db, to: try SearchIndex.generation(in: db) + 1)
  }

  private static func migrateFullText(_ db: Connection) throws {
    let oldDefinition = try db.scalar("SELECT sql FROM sqlite_master WHERE name = 'fts'")?.stringValue
    let unstoredIndexes = try db.rows("SELECT substr(key, 12) FROM meta WHERE key LIKE 'storesText:%' AND value = 0") {
      $0.string(0) ?? ""
    }.compactMap { Int64($0) }
    if let oldDefinition, !oldDefinition.replacingOccurrences(of: " ", with: "").contains("content=''") {
      for indexID in unstoredIndexes {
        try db.run(
          """
          INSERT OR REPLACE INTO fts_unstored(item, text)
          SELECT f.rowid, f.body FROM fts f JOIN items i ON i.rowid = f.rowid WHERE i.indexId = ? AND f.body <> ''
          """, [.integer(indexID)])
      }
    }
    if oldDefinition != nil { try db.execute("DROP TABLE fts") }
    try db.execute(Schema.ftsStatement)
    let catalog = try SearchIndex.loadCatalog(db)
    try refillFullText(db, catalog: catalog, where: "1")
    try db.run(
      """
      UPDATE attributes SET hasLong = 1 WHERE id IN (
        SELECT DISTINCT attr FROM vals WHERE fold IS NOT NULL AND length(CAST(fold AS BLOB)) > ?)
      """, [.integer(Int64(Schema.longTextBytes))])
    try db.run(
      "UPDATE vals SET str = NULL, fold = NULL WHERE fold IS NOT NULL AND length(CAST(fold AS BLOB)) > ?",
      [.integer(Int64(Schema.longTextBytes))])
  }

  /// Rewrites `vals` in the version 5 layout (the rows of a version 4 table: long text
  /// already markers).
  private static func clusterValues(_ db: Connection) throws {
    try db.execute(
      """
      DROP INDEX IF EXISTS vals_item; DROP INDEX IF EXISTS vals_num; DROP INDEX IF EXISTS vals_fold; DROP INDEX IF EXISTS vals_long;
      ALTER TABLE vals RENAME TO vals_v4;
      """)
    try db.execute(Schema.valueTableStatement)
    try db.execute(
      """
      INSERT INTO vals(item, attr, ord, num, fold, str)
      SELECT item, attr, ord, num, fold, CASE WHEN str = fold THEN NULL ELSE str END FROM vals_v4 ORDER BY item, attr, ord;
      DROP TABLE vals_v4;
      """)
    try db.execute(Schema.valueIndexStatements)
  }

  /// Turns the short values of `Schema.longTextAttributes` into markers (found through
  /// `vals_fold` before it is rebuilt) and, for a version 5 file, rebuilds `vals_fold`.
  private static func keepLongTextAttributesOut(_ db: Connection, rebuildingFoldIndex: Bool) throws {
    for name in Schema.longTextAttributes.sorted() {
      guard let id = try db.scalar("SELECT id FROM attributes WHERE name = ?", [.text(name)])?.int64Value else { continue }
      guard try db.scalar("SELECT 1 FROM vals WHERE attr = ? AND fold IS NOT NULL LIMIT 1", [.integer(id)]) != nil else { continue }
      try db.run("UPDATE attributes SET hasLong = 1 WHERE id = ?", [.integer(id)])
      try db.run("UPDATE vals SET fold = NULL, str = NULL WHERE attr = ? AND fold IS NOT NULL", [.integer(id)])
    }
    if rebuildingFoldIndex {
      try db.execute("DROP INDEX IF EXISTS vals_fold")
      try db.execute(Schema.valueIndexStatements)
    }
    if try db.scalar("SELECT 1 FROM sqlite_master WHERE name = 'summary_cache'") != nil {
      try db.execute("DELETE FROM summary_cache")
    }
  }

  /// Inserts the full-text rows of the items that `condition` (over `items i`) selects, from
  /// their records.
  static func refillFullText(
    _ db: Connection, catalog: AttributeCatalog, where condition: String, progress: ((_ done: Int) -> Void)? = nil
  ) throws {
    try FullTextColumns.forEachItem(in: db, catalog: catalog, where: condition, progress: progress) { rowid, columns in
      try FullTextColumns.insert(rowid, columns, into: db)
    }
  }
}
