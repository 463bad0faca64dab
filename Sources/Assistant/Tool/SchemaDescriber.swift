import Foundation
import QueryEngine
import SearchIndex

/// Answers `schema` tool calls: the attribute catalogue (with example values for attributes
/// that have few distinct values), the values of one attribute, or the content types.
struct SchemaDescriber {
  let index: SearchIndex
  let scope: AccessScope

  /// Attributes with at most this many distinct values list them as examples.
  static let exampleLimit = IndexSummary.maximumExampleValues

  func describe(_ request: SchemaRequest) throws -> String {
    switch request.kind {
    case .schema:
      let stats = try index.summary(scope: scope)
      var lines = ["\(stats.items) items in domains: " + stats.domainCounts.map { "\($0.name) (\($0.count))" }.joined(separator: ", "), "attributes (name: type, items with it):"]
      for attribute in stats.attributes {
        var line = "- \(attribute.name): \(attribute.type), \(attribute.count)"
        if attribute.type.isTextual, let values = try examples(of: attribute.name, atMost: Self.exampleLimit) {
          line += "; values: " + values.map { "\($0.0)" }.joined(separator: ", ")
        }
        lines.append(line)
      }
      lines.append("- domainIdentifier: string; contentType: string (item fields, queryable like attributes)")
      return lines.joined(separator: "\n")
    case .attribute:
      let name = StandardAttributes.resolveAlias(request.attribute ?? "") ?? request.attribute ?? ""
      guard let values = try values(of: name, limit: 50) else {
        let catalog = try index.catalog(scope: scope)
        var message = "unknown attribute '\(name)'"
        if let suggestion = closestMatch(to: name, in: catalog.allNames) { message += "; did you mean '\(suggestion)'?" }
        return message
      }
      return "values of \(name) (value: items), most common first:\n" + values.map { "- \($0.0): \($0.1)" }.joined(separator: "\n")
    case .contentType:
      var counts: [String: Int] = [:]
      for entry in try index.summary(scope: scope).contentTypes { counts[entry.name ?? "", default: 0] += entry.count }
      let rows = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { ($0.key, $0.value) }
      return "content types (type: items):\n" + rows.map { "- \($0.0.isEmpty ? "(none)" : $0.0): \($0.1)" }.joined(separator: "\n")
    }
  }

  /// The values of a text attribute with their item counts, most common first, when it has
  /// at most `maximum` (up to `IndexSummary.maximumExampleValues`) distinct values; nil
  /// otherwise. Read from the index's summary, kept per generation.
  func examples(of name: String, atMost maximum: Int) throws -> [(String, Int)]? {
    guard let examples = try index.summary(scope: scope).exampleValues[name], examples.count <= maximum else { return nil }
    return examples.map { ($0.value, $0.count) }
  }

  /// The most common values of an attribute with their item counts, most common first; nil
  /// when the attribute is unknown.
  func values(of name: String, limit: Int) throws -> [(String, Int)]? {
    try index.attributeValues(named: name, scope: scope, limit: limit)?.map { ($0.value, $0.count) }
  }
}
