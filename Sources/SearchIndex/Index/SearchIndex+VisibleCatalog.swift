import Foundation

extension SearchIndex {
  /// The attribute catalogue as `scope` sees it: the standard attributes and the custom ones,
  /// less those that only items hidden from `scope` have in this named index.
  ///
  /// Queries bind names, and suggest close ones, against this catalogue, so an attribute that
  /// only protected or expired items carry (or only another named index) is as unknown as a
  /// name no item ever had: neither an answer nor an error message reveals it.
  public func catalog(scope: AccessScope) throws(SearchIndexError) -> AttributeCatalog {
    try read { db in try visibleCatalog(db, scope: scope) }
  }

  /// `catalog(scope:)` in a read transaction already open on `db`.
  package func visibleCatalog(_ db: Connection, scope: AccessScope) throws -> AttributeCatalog {
    let visible = scope.sqlCondition(alias: "i", indexID: indexID)
    // One EXISTS per kind of value row (number, short text, long-text marker), each answered
    // by the partial index on (attr, ...) that holds exactly those rows; each stops at the
    // first visible item.
    let kinds = ["v.num IS NOT NULL", "v.fold IS NOT NULL", "v.num IS NULL AND v.str IS NULL"]
    let mine = (sql: "i.indexId = ?", arguments: [SQLValue.integer(indexID)])
    func has(_ id: Int64, _ condition: (sql: String, arguments: [SQLValue])) throws -> Bool {
      let sql = "SELECT " + kinds.map { kind in
        "EXISTS (SELECT 1 FROM vals v JOIN items i ON i.rowid = v.item WHERE v.attr = ? AND \(kind) AND \(condition.sql))"
      }.joined(separator: " OR ")
      return try db.scalar(sql, kinds.flatMap { _ in [SQLValue.integer(id)] + condition.arguments })?.int64Value == 1
    }
    var custom: [String: AttributeType] = [:]
    let rows = try db.rows("SELECT id, name, type FROM attributes WHERE custom = 1", []) { ($0.int64(0), $0.string(1) ?? "", $0.string(2) ?? "") }
    for (id, name, type) in rows {
      guard let parsed = AttributeType(parsing: type) else { continue }
      // Known when a visible item has it, or when no item of this index has it at all (a
      // declared attribute, or another named index's): only hidden items' names are left out.
      if try has(id, visible) || !(try has(id, mine)) { custom[name] = parsed }
    }
    return AttributeCatalog(customTypes: custom)
  }
}
