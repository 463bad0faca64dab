extension SearchIndex {
  /// What `compact()` did: the file's size (with its write-ahead log) before and after.
  public struct Compaction: Sendable, Equatable {
    public var bytesBefore: Int64
    /// The compacted file's size; while `waitsForReaders`, the size it takes once they finish.
    public var bytesAfter: Int64
    /// True when other connections were reading an older state of the file: the rewritten
    /// pages stay in the write-ahead log, and the file shrinks at the first checkpoint after
    /// those reads end (the next write's, or the last connection's close).
    public var waitsForReaders: Bool
  }

  /// Rewrites the file without its free space (SQLite's `VACUUM`), for every named index in it.
  ///
  /// Deletes and upgrades leave free pages that later writes reuse but the file keeps (an
  /// upgrade to schema version 7 compresses every record and drops the ranked forward lists:
  /// a third of a million-item file). The rewrite is one transaction: interrupted, or out of
  /// disk space (it needs up to twice the file's size while it runs), the file stays as it was.
  /// Items, rowids and every index are unchanged; readers in other processes keep reading
  /// meanwhile. The copy SQLite builds goes to a temporary file (the writer's `temp_store`), not
  /// to memory.
  ///
  /// A file upgraded from schema version 6 has its records compressed here first, as its next
  /// write would (`RecordDictionaryBuilder`), so the rewrite gives back that space too.
  @discardableResult
  public func compact() throws(SearchIndexError) -> Compaction {
    do {
      return try pool.withWriter { db in
        let before = Self.fileBytes(path)
        try db.transaction(.immediate) {
          var records = try RecordDictionaryBuilder(db)
          try records.finish(db, lastRowid: try db.scalar("SELECT max(rowid) FROM items")?.int64Value ?? 0)
        }
        try db.execute("VACUUM")
        // The rewritten pages are in the write-ahead log until a checkpoint moves them into
        // the file and truncates it; a reader still on an older snapshot blocks that (the
        // first column says so).
        let blocked = try db.scalar("PRAGMA wal_checkpoint(TRUNCATE)")?.int64Value ?? 0
        if blocked != 0 {
          return Compaction(bytesBefore: before, bytesAfter: try Self.pageBytes(db, counting: "page_count"), waitsForReaders: true)
        }
        return Compaction(bytesBefore: before, bytesAfter: Self.fileBytes(path), waitsForReaders: false)
      }
    } catch {
      throw Self.wrap(error)
    }
  }

  /// The file's size (with its write-ahead log) and the bytes of its free pages, which later
  /// writes reuse and `compact()` gives back.
  public func spaceUsage() throws(SearchIndexError) -> (fileBytes: Int64, freeBytes: Int64) {
    let free = try read { db in try Self.freeBytes(db) }
    return (Self.fileBytes(path), free)
  }
}
