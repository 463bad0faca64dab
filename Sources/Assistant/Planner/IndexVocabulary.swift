import Foundation
import QueryEngine
import SearchIndex

/// What the planner knows about an index: the attributes in use and their types, the content
/// types, and the distinct values of its low-cardinality text attributes (states, tags,
/// people, projects, difficulty, ...), read once from the `vals` table. Only items visible in
/// the planner's access scope contribute, so a protected item's values never shape a plan.
struct IndexVocabulary: Sendable {
  /// A value the index holds for an attribute.
  struct KnownValue: Sendable, Hashable {
    var attribute: String
    /// The value as stored (the most common spelling).
    var value: String
    /// Its folded words.
    var words: [String]
    /// Items with the value.
    var count: Int
    /// Content types of those items.
    var contentTypes: Set<String>
  }

  /// Attributes in use with their types.
  var attributes: [String: AttributeType] = [:]
  /// Items per content type.
  var contentTypes: [String: Int] = [:]
  /// Items per domain.
  var domains: [String: Int] = [:]
  /// Known values by their first folded word.
  var valuesByFirstWord: [String: [KnownValue]] = [:]
  /// Visible items.
  var documentCount = 0

  /// At most this many distinct values make an attribute low-cardinality.
  static let maximumDistinctValues = 1000
  /// Values longer than this are prose, not names.
  static let maximumValueLength = 80
  /// Text attributes that hold prose or identifiers, never names to recognise.
  static let excludedAttributes: Set<String> = [
    "title", "displayName", "subject", "contentDescription", "textContent", "headline", "comment", "instructions",
    "alternateNames", "path", "filename", "identifier", "url", "contentURL", "version", "copyright", "rights",
    "information", "description", "kind", "theme", "fullyFormattedAddress", "thoroughfare", "subThoroughfare",
    "postalCode", "emailHeaders", "phoneNumbers", "instantMessageAddresses", "title_", "originalSource",
  ]

  /// Loads the vocabulary of `index` as `scope` sees it.
  static func load(_ index: SearchIndex, scope: AccessScope) throws -> IndexVocabulary {
    let catalog = try index.catalog()
    let visibility = scope.sqlCondition(alias: "i", indexID: index.indexID)
    return try index.read { db in
      var vocabulary = IndexVocabulary()
      var ids: [String: Int64] = [:]
      for (name, id) in try db.rows("SELECT name, id FROM attributes", [], { ($0.string(0) ?? "", $0.int64(1)) }) {
        guard let type = catalog.type(of: name) else { continue }
        vocabulary.attributes[name] = type
        ids[name] = id
      }
      vocabulary.documentCount = Int(try db.scalar("SELECT count(*) FROM items i WHERE " + visibility.sql, visibility.arguments)?.int64Value ?? 0)
      for (type, count) in try db.rows(
        "SELECT i.contentType, count(*) FROM items i WHERE " + visibility.sql + " AND i.contentType IS NOT NULL GROUP BY 1",
        visibility.arguments, { ($0.string(0) ?? "", Int($0.int64(1))) }) {
        vocabulary.contentTypes[type] = count
      }
      for (domain, count) in try db.rows(
        "SELECT i.domain, count(*) FROM items i WHERE " + visibility.sql + " AND i.domain IS NOT NULL GROUP BY 1",
        visibility.arguments, { ($0.string(0) ?? "", Int($0.int64(1))) }) {
        vocabulary.domains[domain] = count
      }
      for (name, id) in ids.sorted(by: { $0.key < $1.key }) {
        guard let type = vocabulary.attributes[name], type.scalar == .string, !excludedAttributes.contains(name),
          !name.lowercased().contains("email"), !name.hasSuffix("URL"), !name.hasSuffix("Identifier")
        else { continue }
        // Stop counting at the limit: the (attr, fold) index answers this without a scan.
        let distinct = try db.scalar(
          "SELECT count(*) FROM (SELECT DISTINCT fold FROM vals WHERE attr = ? AND fold IS NOT NULL LIMIT ?)",
          [.integer(id), .integer(Int64(maximumDistinctValues + 1))])?.int64Value ?? 0
        guard distinct > 0, distinct <= maximumDistinctValues else { continue }
        let rows = try db.rows(
          """
          SELECT v.fold, min(v.str), count(DISTINCT v.item), group_concat(DISTINCT i.contentType)
          FROM vals v JOIN items i ON i.rowid = v.item
          WHERE v.attr = ? AND v.fold IS NOT NULL AND length(v.str) <= ? AND
          """ + " " + visibility.sql + " GROUP BY v.fold",
          [.integer(id), .integer(Int64(maximumValueLength))] + visibility.arguments
        ) { row in (row.string(0) ?? "", row.string(1) ?? "", Int(row.int64(2)), row.string(3) ?? "") }
        for (fold, value, count, types) in rows {
          let words = QuestionText.words(in: fold).map(\.word)
          guard let first = words.first else { continue }
          let known = KnownValue(
            attribute: name, value: value, words: words, count: count,
            contentTypes: Set(types.split(separator: ",").map(String.init)))
          vocabulary.valuesByFirstWord[first, default: []].append(known)
        }
      }
      return vocabulary
    }
  }

  /// True when some visible item has a value for `attribute`.
  func has(_ attribute: String) -> Bool { attributes[attribute] != nil }

  /// The type of an attribute in use.
  func type(of attribute: String) -> AttributeType? { attributes[attribute] }

  /// Numbers of items (visible to `scope`) whose text contains each term: the document
  /// frequencies that weigh rare terms.
  static func documentFrequencies(_ terms: [String], index: SearchIndex, scope: AccessScope) throws -> [String: Int] {
    guard !terms.isEmpty else { return [:] }
    let visibility = scope.sqlCondition(alias: "i", indexID: index.indexID)
    return try index.read { db in
      var result: [String: Int] = [:]
      for term in terms where result[term] == nil {
        // A prefix term ("model*") counts the items with any word it begins.
        let prefix = term.hasSuffix("*")
        let word = prefix ? String(term.dropLast()) : term
        let match = "\"" + word.replacingOccurrences(of: "\"", with: "\"\"") + "\"" + (prefix ? "*" : "")
        result[term] = Int(try db.scalar(
          // The full-text match drives the count: as the inner side of a join FTS5 would run
          // the match once per item.
          "SELECT count(*) FROM items i WHERE i.rowid IN (SELECT rowid FROM fts WHERE fts MATCH ?) AND " + visibility.sql,
          [.text(match)] + visibility.arguments)?.int64Value ?? 0)
      }
      return result
    }
  }
}
