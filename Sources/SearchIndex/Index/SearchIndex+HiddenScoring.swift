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
    var rows = HiddenFullTextRows(rowids: [], tokens: 0)
    while try statement.step() {
      rows.rowids.insert(statement.int64(0))
      rows.tokens += Self.docsizeTotal(statement.blob(1))
    }
    statement.reset()
    return rows.rowids.isEmpty ? nil : rows
  }

  /// The sum of an `fts_docsize` record: one SQLite varint per column (big-endian groups of
  /// seven bits, the ninth byte whole; fts5_index.c, fts5DecodeDocsize).
  static func docsizeTotal(_ bytes: [UInt8]) -> Int64 {
    var total: Int64 = 0
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
      total += Int64(truncatingIfNeeded: value)
    }
    return total
  }
}
