extension Connection {
  /// Makes `sl_bm25` on this connection leave `hidden` out of its statistics from the next
  /// statement on; nil scores over every row, as `bm25()` does.
  package func scoreFullText(excluding hidden: HiddenFullTextRows?) {
    visibleScoring.hidden.withLock { $0 = hidden }
  }
}

extension SearchIndex {
  /// The full-text rows `scope` hides in this index, with their token counts, read through
  /// `connection` (a reader inside its transaction); nil when the scope hides nothing.
  /// Costs a lookup per hidden item: the partial indexes on expiry and protection find
  /// them, `fts_docsize` holds their lengths.
  package func hiddenFullTextRows(for scope: AccessScope, in connection: Connection) throws -> HiddenFullTextRows? {
    let hidden = scope.hiddenRowsSQL(indexID: indexID)
    let statement = try connection.makeStatement("SELECT d.id, d.sz FROM fts_docsize d WHERE d.id IN (" + hidden.sql + ")")
    try statement.bind(hidden.arguments)
    var rows = HiddenFullTextRows(rowids: [], rows: 0, tokens: 0)
    while try statement.step() {
      rows.rowids.append(statement.int64(0))
      rows.tokens += Self.docsizeTotal(statement.blob(1))
    }
    statement.reset()
    rows.rowids.sort()
    rows.rows = Int64(rows.rowids.count)
    return rows.rowids.isEmpty ? nil : rows
  }

  /// How many of the rows `scope` hides have a full-text row, and their tokens in all.
  ///
  /// Reading them costs a lookup of `fts_docsize` per hidden item (80 ms for 30,000
  /// protected items at 1M), so the file keeps them per generation and scope in
  /// `summary_cache` (under a key of its own, `hiddenTotalsKey`), stored by the first
  /// reader that computes them, as summaries are: later processes read one row. A
  /// read-only file, or a busy writer, keeps them in memory only.
  func hiddenFullTextTotals(for scope: AccessScope, in db: Connection, generation: Int64) throws -> (rows: Int64, tokens: Int64) {
    let key = Self.hiddenTotalsKey(scope)
    let now = scope.now.timeIntervalSince1970
    if let stored = Self.storedCacheRow(db, indexID: indexID, key: key, generation: generation, now: now),
      let values = (try? JSONParser.parse(stored))?.arrayValue, values.count == 2,
      let rows = values[0].numberValue, let tokens = values[1].numberValue
    {
      return (Int64(rows), Int64(tokens))
    }
    let hidden = scope.hiddenRowsSQL(indexID: indexID)
    var totals: (rows: Int64, tokens: Int64) = (0, 0)
    let statement = try db.makeStatement("SELECT d.sz FROM fts_docsize d WHERE d.id IN (" + hidden.sql + ")")
    try statement.bind(hidden.arguments)
    while try statement.step() {
      totals.rows += 1
      totals.tokens += Self.docsizeTotal(statement.blob(0))
    }
    statement.reset()
    let window = try Self.expiryWindow(db, now: now)
    storeCacheRow(
      key: key, generation: generation, validFrom: window.from, validUntil: window.until,
      value: .text(JSONValue.array([.number(Double(totals.rows)), .number(Double(totals.tokens))]).compactText))
    return totals
  }

  /// The `summary_cache` key of the hidden full-text totals of a scope (summary keys are
  /// JSON arrays, so the two never meet).
  static func hiddenTotalsKey(_ scope: AccessScope) -> String { "hidden-fts " + summaryKey(scope) }

  /// The sum of an `fts_docsize` record: one SQLite varint per column (fts5_index.c,
  /// fts5DecodeDocsize).
  static func docsizeTotal(_ bytes: [UInt8]) -> Int64 {
    sqliteVarints(bytes).reduce(0, &+)
  }

  /// The full-text table's row count and tokens in all columns, as FTS5's `xRowCount` and
  /// `xColumnTotalSize(-1)` give them: its averages record (`fts_data` row 1, the row count
  /// then each column's total as SQLite varints; fts5_storage.c, fts5StorageLoadTotals).
  /// Nil when the record is missing or not of that shape.
  package static func fullTextTotals(in db: Connection) throws -> (rows: Int64, tokens: Int64)? {
    guard let value = try db.scalar("SELECT block FROM fts_data WHERE id = 1"), case .blob(let bytes) = value else { return nil }
    let numbers = sqliteVarints(bytes)
    guard numbers.count == 1 + Schema.ftsColumns.count, numbers.allSatisfy({ $0 >= 0 }) else { return nil }
    return (numbers[0], numbers.dropFirst().reduce(0, &+))
  }

  /// SQLite varints one after another (big-endian groups of seven bits, the ninth byte whole).
  static func sqliteVarints(_ bytes: [UInt8]) -> [Int64] {
    var numbers: [Int64] = []
    var position = 0
    while position < bytes.count {
      var value: UInt64 = 0
      var length = 0
      while position < bytes.count {
        let byte = bytes[position]
        position += 1
        length += 1
        if length == 9 {
          value = value << 8 | UInt64(byte)
          break
        }
        value = value << 7 | UInt64(byte & 0x7F)
        if byte & 0x80 == 0 { break }
      }
      numbers.append(Int64(truncatingIfNeeded: value))
    }
    return numbers
  }
}
