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
      let summary = try index.summary(scope: scope)
      var counts: [String: Int] = [:]
      for entry in summary.contentTypes { counts[entry.name ?? "", default: 0] += entry.count }
      var rows = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { ($0.key, $0.value) }
      guard let asked = request.contentType, asked.contains(where: { !$0.isWhitespace }) else {
        return "content types (type: items):\n" + rows.map { "- \($0.0.isEmpty ? "(none)" : $0.0): \($0.1)" }.joined(separator: "\n")
      }
      // One content type, matched as a contentType node matches it ("emails" finds email).
      let stem = Self.contentTypeStem(asked)
      rows = rows.filter { !$0.0.isEmpty && $0.0.lowercased().hasPrefix(stem) }
      guard !rows.isEmpty else {
        let known = counts.keys.filter { !$0.isEmpty }.sorted()
        var message = "no items have content type '\(asked)'"
        if let suggestion = closestMatch(to: asked, in: known) { message += "; did you mean '\(suggestion)'?" }
        return message + "; content types: " + known.joined(separator: ", ")
      }
      let types = Set(rows.map(\.0))
      var lines = ["content type \(asked) (type: items):"] + rows.map { "- \($0.0): \($0.1)" }
      // The text attributes whose values occur on items of these types.
      var attributes: [String: Int] = [:]
      for (name, values) in summary.knownValues {
        let count = values.filter { !types.isDisjoint(with: $0.contentTypes) }.count
        if count > 0 { attributes[name] = count }
      }
      if !attributes.isEmpty {
        lines.append("attributes with values on these items (name: distinct values): "
          + attributes.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
      }
      return lines.joined(separator: "\n")
    }
  }

  /// A friendly content type name as a lowercased prefix: "emails" and "Email" find email.
  static func contentTypeStem(_ name: String) -> String {
    var stem = name.lowercased().trimmingCharacters(in: .whitespaces)
    if stem.count > 3, stem.hasSuffix("s") { stem.removeLast() }
    return stem
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
