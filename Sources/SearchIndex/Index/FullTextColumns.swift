/// The texts of an item's FTS5 columns (`Schema.ftsColumns`), derived from its attributes.
///
/// `fts` is contentless (schema version 4): FTS5 keeps no copy of these texts, so deleting a
/// row means handing FTS5 the very texts it indexed. This is the one place that decides
/// them: the writer indexes what `texts` returns for the item it writes, and deletes, rebuilds,
/// `check` and embeddings derive them again from the stored record the same way.
package enum FullTextColumns {
  /// The column texts of `attributes` (in stored order). `unstoredText` is the `textContent`
  /// of an index that keeps it searchable but not stored (it is not in `attributes` then).
  package static func texts(of attributes: AttributeSet, catalog: AttributeCatalog, unstoredText: String?) -> [String] {
    var columns = [String](repeating: "", count: Schema.ftsColumns.count)
    for (name, value) in attributes {
      guard let type = catalog.type(of: name), let column = Schema.ftsColumn(for: name, type: type) else { continue }
      for element in value.elements {
        guard let text = element.stringValue else { continue }
        if !columns[column].isEmpty { columns[column] += "\n" }
        columns[column] += text
      }
    }
    if let unstoredText, !unstoredText.isEmpty, let column = Schema.ftsColumn(for: "textContent", type: .string) {
      if !columns[column].isEmpty { columns[column] += "\n" }
      columns[column] += unstoredText
    }
    return columns
  }

  /// The column texts of a stored record (`items.attributes`) and its unstored text.
  package static func texts(ofRecord record: String, catalog: AttributeCatalog, unstoredText: String?) throws -> [String] {
    texts(of: try StoredItem.decodeAttributes(record, catalog: catalog), catalog: catalog, unstoredText: unstoredText)
  }

  /// The SELECT (rowid, record, unstored text) over items that `texts(ofRecord:)` reads;
  /// `condition` filters `items i`.
  package static func recordsQuery(where condition: String) -> String {
    "SELECT i.rowid, i.attributes, u.text FROM items i LEFT JOIN fts_unstored u ON u.item = i.rowid WHERE \(condition)"
  }

  /// Calls `body` with the rowid and column texts of every item that `condition` (over
  /// `items i`, with `arguments`) selects, in rowid order. Records are read in chunks, each
  /// read completely before `body` sees it, so `body` may write to the same connection.
  package static func forEachItem(
    in db: Connection, catalog: AttributeCatalog, where condition: String, _ arguments: [SQLValue] = [],
    progress: ((_ done: Int) -> Void)? = nil, _ body: (Int64, [String]) throws -> Void
  ) throws {
    var last = Int64.min
    var done = 0
    while true {
      let rows = try db.rows(
        recordsQuery(where: "(\(condition)) AND i.rowid > ?") + " ORDER BY i.rowid LIMIT 5000", arguments + [.integer(last)],
        { ($0.int64(0), try $0.recordText(1), $0.string(2)) })
      guard let final = rows.last else { return }
      last = final.0
      for (rowid, record, unstored) in rows {
        try body(rowid, try texts(ofRecord: record, catalog: catalog, unstoredText: unstored))
      }
      done += rows.count
      progress?(done)
    }
  }

  /// Adds the full-text row of `rowid` (nothing when every column is empty).
  package static func insert(_ rowid: Int64, _ columns: [String], into db: Connection) throws {
    guard columns.contains(where: { !$0.isEmpty }) else { return }
    let statement = try db.cachedStatement("INSERT INTO fts(rowid, title, keywords, description, body, other) VALUES (?, ?, ?, ?, ?, ?)")
    try statement.bind(int: rowid, at: 1)
    for (offset, text) in columns.enumerated() { try statement.bind(text: text, at: Int32(offset + 2)) }
    try statement.step()
  }

  /// Removes the full-text row of `rowid`, whose texts were `columns` (FTS5's `delete`
  /// command for contentless tables: https://www.sqlite.org/fts5.html#the_delete_command).
  package static func delete(_ rowid: Int64, _ columns: [String], from db: Connection) throws {
    guard columns.contains(where: { !$0.isEmpty }) else { return }
    let statement = try db.cachedStatement(
      "INSERT INTO fts(fts, rowid, title, keywords, description, body, other) VALUES ('delete', ?, ?, ?, ?, ?, ?)")
    try statement.bind(int: rowid, at: 1)
    for (offset, text) in columns.enumerated() { try statement.bind(text: text, at: Int32(offset + 2)) }
    try statement.step()
  }

  /// The folded form of a text value when it is short enough for `vals`, nil for long text
  /// (`Schema.longTextBytes`). ASCII text folds to its own length, so a long ASCII body is
  /// recognised without folding it.
  package static func shortFold(_ text: String) -> String? {
    let bytes = text.utf8.count
    if bytes > Schema.longTextBytes, text.utf8.allSatisfy({ $0 < 0x80 }) { return nil }
    let folded = TextFolding.fold(text)
    return folded.utf8.count > Schema.longTextBytes ? nil : folded
  }
}

extension SearchIndex {
  /// The full-text column texts (`Schema.ftsColumns`) of the items at these rowids, as the
  /// index holds them (for relevance feedback and tests); items without text are left out.
  package func fullTextColumns(ofItems rowids: [Int64]) throws(SearchIndexError) -> [Int64: [String]] {
    try read { db in
      let catalog = try Self.loadCatalog(db)
      var texts: [Int64: [String]] = [:]
      for rowid in rowids {
        for (record, unstored) in try db.rows(FullTextColumns.recordsQuery(where: "i.rowid = ?"), [.integer(rowid)], { (try $0.recordText(1), $0.string(2)) }) {
          let columns = try FullTextColumns.texts(ofRecord: record, catalog: catalog, unstoredText: unstored)
          if columns.contains(where: { !$0.isEmpty }) { texts[rowid] = columns }
        }
      }
      return texts
    }
  }
}
