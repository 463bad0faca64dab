extension AccessScope {
  /// A SELECT of the rowids of the named index this scope hides: expired items and
  /// items protected by a class it does not grant. Within the index it is exactly the
  /// complement of `sqlCondition`, and it reads only the partial indexes on expiration
  /// and protection, so its cost grows with the hidden items, not with the index.
  package func hiddenRowsSQL(indexID: Int64) -> (sql: String, arguments: [SQLValue]) {
    // `+indexId` keeps SQLite off the (indexId, domain) index, which would scan every item
    // of the index, and on the partial indexes of expiring and protected items.
    var sql = "SELECT rowid FROM items WHERE expiration IS NOT NULL AND expiration <= ? AND +indexId = ?"
      + " UNION SELECT rowid FROM items WHERE protection IS NOT NULL AND +indexId = ?"
    var arguments: [SQLValue] = [.real(now.timeIntervalSince1970), .integer(indexID), .integer(indexID)]
    if !protectionClasses.isEmpty {
      sql += " AND protection NOT IN (SELECT value FROM json_each(?))"
      arguments.append(.text(JSONValue.array(protectionClasses.sorted().map(JSONValue.string)).compactText))
    }
    return (sql, arguments)
  }
}
