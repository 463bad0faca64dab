import Foundation

/// The result of `searchlight check`.
public struct IntegrityReport: Sendable, Hashable {
  public var lines: [String] = []
  public var isHealthy = true
}

extension SearchIndex {
  /// Runs SQLite's integrity check, FTS5's integrity-check and consistency checks between
  /// items and their derived rows; reports pending journal work.
  public func checkIntegrity() throws(SearchIndexError) -> IntegrityReport {
    var report = IntegrityReport()
    do {
      try pool.withWriter { db in
        let problems = try db.rows("PRAGMA integrity_check(20)") { $0.string(0) ?? "" }
        if problems == ["ok"] {
          report.lines.append("sqlite integrity_check: ok")
        } else {
          report.isHealthy = false
          report.lines += problems.map { "sqlite integrity_check: \($0)" }
        }
        do {
          try db.execute("INSERT INTO fts(fts, rank) VALUES ('integrity-check', 0)")
          report.lines.append("fts5 integrity-check: ok")
        } catch let error as DatabaseError {
          report.isHealthy = false
          report.lines.append("fts5 integrity-check: \(error.message)")
        }
        let orphans = try db.scalar("SELECT count(*) FROM fts WHERE rowid NOT IN (SELECT rowid FROM items)")?.int64Value ?? 0
        let orphanValues = try db.scalar("SELECT count(*) FROM vals WHERE item NOT IN (SELECT rowid FROM items)")?.int64Value ?? 0
        if orphans + orphanValues > 0 {
          report.isHealthy = false
          report.lines.append("derived rows without an item: \(orphans) full-text, \(orphanValues) values")
        } else {
          report.lines.append("derived rows: consistent with items")
        }
        let ranked = try Self.rankedIntegrity(db, indexID: indexID)
        report.lines += ranked.lines
        if !ranked.healthy { report.isHealthy = false }
        let pending = try db.scalar("SELECT count(*) FROM journal")?.int64Value ?? 0
        report.lines.append(pending == 0 ? "journal: no pending work" : "journal: \(pending) pending changes (run sync to apply them)")
      }
    } catch {
      throw Self.wrap(error)
    }
    return report
  }

  /// Rebuilds the full-text and value rows of every item from the stored records; returns
  /// how many items were rebuilt.
  ///
  /// The items themselves do not change, so their embeddings stay: re-writing an item
  /// drops its vectors (they describe its old text), and they are put back afterwards, by
  /// item identifier, in the same transaction.
  @discardableResult
  public func rebuildFullTextIndex() throws(SearchIndexError) -> Int {
    try writeTyped { writer in
      let catalog = writer.catalog
      let id = SQLValue.integer(writer.indexID)
      let items = try writer.db.rows(
        "SELECT id, domain, contentType, expiration, protection, attributes FROM items WHERE indexId = ?", [id]
      ) { try StoredItem.decode(row: $0, offset: 0, catalog: catalog) }
      // The per-item embedding tables and the columns that survive a rebuild.
      let kept = try Self.hasVectorTables(writer.db) ? [("vectors", "chunk, vector"), ("embedding_status", "state, message")] : []
      for (table, columns) in kept {
        try writer.db.run("DROP TABLE IF EXISTS temp.kept_\(table)")
        try writer.db.run(
          "CREATE TEMP TABLE kept_\(table) AS SELECT i.id AS id, \(columns) FROM \(table) t JOIN items i ON i.rowid = t.item WHERE i.indexId = ?",
          [id])
      }
      try writer.db.run("DELETE FROM fts WHERE rowid IN (SELECT rowid FROM items WHERE indexId = ?)", [id])
      try writer.db.run("DELETE FROM vals WHERE item IN (SELECT rowid FROM items WHERE indexId = ?)", [id])
      for item in items { try writer.upsert(item) }
      for (table, columns) in kept {
        try writer.db.run(
          "INSERT OR REPLACE INTO \(table)(item, \(columns)) SELECT i.rowid, \(columns) FROM temp.kept_\(table) k JOIN items i ON i.indexId = ? AND i.id = k.id",
          [id])
        try writer.db.run("DROP TABLE temp.kept_\(table)")
      }
      return items.count
    }
  }
}
