import Foundation
import QueryEngine
import SearchIndex

/// Answers `schema` tool calls: the attribute catalogue (with example values for attributes
/// that have few distinct values), the values of one attribute, or the content types.
struct SchemaDescriber {
  let index: SearchIndex
  let scope: AccessScope

  /// Attributes with at most this many distinct values list them as examples.
  static let exampleLimit = 12

  func describe(_ request: SchemaRequest) throws -> String {
    switch request.kind {
    case .schema:
      let stats = try index.statistics(scope: scope)
      var lines = ["\(stats.items) items in domains: " + stats.domains.map { "\($0.name) (\($0.count))" }.joined(separator: ", "), "attributes (name: type, items with it):"]
      for attribute in stats.attributes {
        var line = "- \(attribute.name): \(attribute.type), \(attribute.count)"
        if attribute.type.isTextual, let values = try values(of: attribute.name, limit: Self.exampleLimit + 1), values.count <= Self.exampleLimit {
          line += "; values: " + values.map { "\($0.0)" }.joined(separator: ", ")
        }
        lines.append(line)
      }
      lines.append("- domainIdentifier: string; contentType: string (item fields, queryable like attributes)")
      return lines.joined(separator: "\n")
    case .attribute:
      let name = StandardAttributes.resolveAlias(request.attribute ?? "") ?? request.attribute ?? ""
      guard let values = try values(of: name, limit: 50) else {
        let catalog = try index.catalog()
        var message = "unknown attribute '\(name)'"
        if let suggestion = closestMatch(to: name, in: catalog.allNames) { message += "; did you mean '\(suggestion)'?" }
        return message
      }
      return "values of \(name) (value: items), most common first:\n" + values.map { "- \($0.0): \($0.1)" }.joined(separator: "\n")
    case .contentType:
      let rows = try index.read { db in
        try db.rows(
          "SELECT coalesce(contentType, ''), count(*) FROM items i WHERE \(scope.sqlCondition(alias: "i", indexID: index.indexID).sql) GROUP BY 1 ORDER BY 2 DESC",
          scope.sqlCondition(alias: "i", indexID: index.indexID).arguments
        ) { ($0.string(0) ?? "", Int($0.int64(1))) }
      }
      return "content types (type: items):\n" + rows.map { "- \($0.0.isEmpty ? "(none)" : $0.0): \($0.1)" }.joined(separator: "\n")
    }
  }

  /// The most common values of a text attribute with their item counts; nil when the
  /// attribute is unknown.
  func values(of name: String, limit: Int) throws -> [(String, Int)]? {
    let visible = scope.sqlCondition(alias: "i", indexID: index.indexID)
    return try index.read { db -> [(String, Int)]? in
      guard let id = try db.scalar("SELECT id FROM attributes WHERE name = ?", [.text(name)])?.int64Value else { return nil }
      return try db.rows(
        """
        SELECT coalesce(v.str, v.num), count(DISTINCT v.item) FROM vals v JOIN items i ON i.rowid = v.item
        WHERE v.attr = ? AND \(visible.sql) GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ?
        """, [.integer(id)] + visible.arguments + [.integer(Int64(limit))]
      ) { row in (row.value(at: 0).stringValue ?? row.value(at: 0).doubleValue.map { JSONValue.format(number: $0) } ?? "", Int(row.int64(1))) }
    }
  }
}
