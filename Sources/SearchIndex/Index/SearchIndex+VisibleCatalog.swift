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
    let mine = (sql: "i.indexId = ?", arguments: [SQLValue.integer(indexID)])
    func has(_ id: Int64, _ condition: (sql: String, arguments: [SQLValue])) throws -> Bool {
      try db.scalar(
        Self.attributeHasItemsSQL(where: condition.sql),
        Self.valueKinds.flatMap { _ in [SQLValue.integer(id)] + condition.arguments })?.int64Value == 1
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

  /// The kinds of value row (number, short text, long-text marker), each held by one
  /// partial index on (attr, ...).
  private static let valueKinds = ["v.num IS NOT NULL", "v.fold IS NOT NULL", Schema.longTextMarker("v")]

  /// Whether attribute `?` has a value on an item that meets `condition` (on alias `i`;
  /// its arguments follow the attribute id, once per kind of value row). One EXISTS per
  /// kind, answered by that kind's partial index and stopping at the first qualifying item.
  /// The item test is a correlated EXISTS, not a join: joined, SQLite may scan every item
  /// and probe the item's values (all of them when no row qualifies), or with the join order
  /// forced build a Bloom filter over every item first; either cost 30 ms and more per
  /// attribute on a 64k-item catalogue, paid by every query.
  package static func attributeHasItemsSQL(where condition: String) -> String {
    "SELECT " + valueKinds.map { kind in
      "EXISTS (SELECT 1 FROM vals v WHERE v.attr = ? AND \(kind) AND EXISTS (SELECT 1 FROM items i WHERE i.rowid = v.item AND \(condition)))"
    }.joined(separator: " OR ")
  }
}
