import Foundation

/// Typed reads for planners and tool schemas, so no module above this one writes SQL
/// against the index tables.
extension SearchIndex {
  /// For each FTS5 query (https://www.sqlite.org/fts5.html#full_text_query_syntax), the
  /// number of items visible to `scope` that match it: the document frequencies that weigh
  /// rare terms. The queries are the caller's, already quoted.
  public func itemCounts(matching queries: [String], scope: AccessScope) throws(SearchIndexError) -> [Int] {
    guard !queries.isEmpty else { return [] }
    let visibility = scope.sqlCondition(alias: "i", indexID: indexID)
    let hidden = scope.hiddenRowsSQL(indexID: indexID)
    return try read { db in
      // With one named index in the file, every row of `fts` is one of its items: count the
      // matches in the full-text index alone and take away those of hidden items (expired or
      // protected, usually few), instead of looking up every matching item.
      let alone = try db.scalar("SELECT count(*) FROM indexes WHERE id != ?", [.integer(indexID)])?.int64Value == 0
      return try queries.map { query in
        if alone {
          let matches = try db.scalar("SELECT count(*) FROM fts WHERE fts MATCH ?", [.text(query)])?.int64Value ?? 0
          let hiddenMatches = try db.scalar(
            "SELECT count(*) FROM (\(hidden.sql)) h WHERE h.rowid IN (SELECT rowid FROM fts WHERE fts MATCH ?)",
            hidden.arguments + [.text(query)])?.int64Value ?? 0
          return Int(matches - hiddenMatches)
        }
        // The match drives: as the inner side of a join FTS5 would run it once per item.
        return Int(try db.scalar(
          "SELECT count(*) FROM items i WHERE i.rowid IN (SELECT rowid FROM fts WHERE fts MATCH ?) AND " + visibility.sql,
          [.text(query)] + visibility.arguments)?.int64Value ?? 0)
      }
    }
  }

  /// The most common values of an attribute among the items visible to `scope`, with the
  /// number of items holding each, most common first (ties by value); nil when the file has
  /// no attribute of that name. Long texts (kept only in the records) are not listed.
  public func attributeValues(named name: String, scope: AccessScope, limit: Int) throws(SearchIndexError) -> [(value: String, count: Int)]? {
    let visible = scope.sqlCondition(alias: "i", indexID: indexID)
    return try read { db -> [(value: String, count: Int)]? in
      guard let id = try db.scalar("SELECT id FROM attributes WHERE name = ?", [.text(name)])?.int64Value else { return nil }
      return try db.rows(
        """
        SELECT coalesce(v.str, v.fold, v.num), count(DISTINCT v.item) FROM vals v JOIN items i ON i.rowid = v.item
        WHERE v.attr = ? AND (v.fold IS NOT NULL OR v.num IS NOT NULL) AND \(visible.sql) GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ?
        """, [.integer(id)] + visible.arguments + [.integer(Int64(limit))]
      ) { row in
        let value = row.value(at: 0)
        return (value.stringValue ?? value.doubleValue.map { JSONValue.format(number: $0) } ?? "", Int(row.int64(1)))
      }
    }
  }

  /// The distinct short text values of the attributes `attributeIDs`, each as its folded
  /// form and the text as written (`coalesce(str, fold)`), hidden items' included: callers
  /// use them only to find items that they then test for visibility. Nil when there are more
  /// than `limit` (the walk stops there). One or two seeks of the (attr, fold, str) index per
  /// value, so an attribute with a few distinct values, such as the names on a mailbox's
  /// messages, lists them in microseconds however many items hold them. Nil too for a file
  /// whose (attr, fold) index does not hold the text as written (before schema version 6).
  package func distinctTextValues(of attributeIDs: [Int64], limit: Int, in connection: Connection) throws -> [(fold: String, text: String)]? {
    guard try connection.scalar("SELECT 1 FROM pragma_index_info('vals_fold') WHERE name = 'str'") != nil else { return nil }
    let first = try connection.cachedStatement(
      "SELECT fold, str FROM vals WHERE attr = ?1 AND fold IS NOT NULL ORDER BY fold, str LIMIT 1")
    let nextFold = try connection.cachedStatement(
      "SELECT fold, str FROM vals WHERE attr = ?1 AND fold IS NOT NULL AND fold > ?2 ORDER BY fold, str LIMIT 1")
    // The next text as written of the same folded form (`str` is NULL, first, where the text
    // is its folded form).
    let firstText = try connection.cachedStatement(
      "SELECT str FROM vals WHERE attr = ?1 AND fold = ?2 AND str IS NOT NULL ORDER BY str LIMIT 1")
    let nextText = try connection.cachedStatement(
      "SELECT str FROM vals WHERE attr = ?1 AND fold = ?2 AND str > ?3 ORDER BY str LIMIT 1")
    defer {
      first.reset()
      nextFold.reset()
      firstText.reset()
      nextText.reset()
    }
    func row(_ statement: Statement) throws -> (fold: String, str: String?)? {
      defer { statement.reset() }
      guard try statement.step(), let fold = statement.string(0) else { return nil }
      return (fold, statement.string(1))
    }
    var values: [(fold: String, text: String)] = []
    for attribute in attributeIDs {
      try first.bind(int: attribute, at: 1)
      var value = try row(first)
      while let (fold, str) = value {
        guard values.count < limit else { return nil }
        values.append((fold, str ?? fold))
        let text = str == nil ? firstText : nextText
        try text.bind(int: attribute, at: 1)
        try text.bind(text: fold, at: 2)
        if let str { try text.bind(text: str, at: 3) }
        if let written = try row(text)?.fold {
          value = (fold, written)
          continue
        }
        try nextFold.bind(int: attribute, at: 1)
        try nextFold.bind(text: fold, at: 2)
        value = try row(nextFold)
      }
    }
    return values
  }
}
