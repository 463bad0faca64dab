import Foundation
import QueryEngine
import SearchIndex

/// What the planner knows about an index: the attributes in use and their types, the content
/// types, and the distinct values of its low-cardinality text attributes (states, tags,
/// people, projects, difficulty, ...), from the index's summary (`SearchIndex.summary(scope:)`,
/// kept per index generation and access scope). Only items visible in
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
  static let maximumDistinctValues = IndexSummary.maximumKnownValues
  /// Values longer than this are prose, not names.
  static let maximumValueLength = IndexSummary.maximumValueLength
  /// Text attributes that hold prose or identifiers, never names to recognise.
  static let excludedAttributes: Set<String> = [
    "title", "displayName", "subject", "contentDescription", "textContent", "headline", "comment", "instructions",
    "alternateNames", "path", "filename", "identifier", "url", "contentURL", "version", "copyright", "rights",
    "information", "description", "kind", "theme", "fullyFormattedAddress", "thoroughfare", "subThoroughfare",
    "postalCode", "emailHeaders", "phoneNumbers", "instantMessageAddresses", "title_", "originalSource",
  ]

  /// Loads the vocabulary of `index` as `scope` sees it, from the index's summary (kept per
  /// generation and scope, so a warm index answers without scanning the value table).
  static func load(_ index: SearchIndex, scope: AccessScope) throws -> IndexVocabulary {
    let catalog = try index.catalog()
    let summary = try index.summary(scope: scope)
    var vocabulary = IndexVocabulary()
    for name in summary.attributeNames {
      if let type = catalog.type(of: name) { vocabulary.attributes[name] = type }
    }
    vocabulary.documentCount = summary.items
    for entry in summary.contentTypes { if let name = entry.name { vocabulary.contentTypes[name] = entry.count } }
    for entry in summary.domains { if let name = entry.name { vocabulary.domains[name] = entry.count } }
    for (name, values) in summary.knownValues.sorted(by: { $0.key < $1.key }) {
      guard let type = vocabulary.attributes[name], type.scalar == .string, !excludedAttributes.contains(name),
        !name.lowercased().contains("email"), !name.hasSuffix("URL"), !name.hasSuffix("Identifier"),
        values.count <= maximumDistinctValues
      else { continue }
      for value in values {
        let words = QuestionText.words(in: value.fold).map(\.word)
        guard let first = words.first else { continue }
        let known = KnownValue(
          attribute: name, value: value.value, words: words, count: value.count, contentTypes: Set(value.contentTypes))
        vocabulary.valuesByFirstWord[first, default: []].append(known)
      }
    }
    return vocabulary
  }

  /// True when some visible item has a value for `attribute`.
  func has(_ attribute: String) -> Bool { attributes[attribute] != nil }

  /// The type of an attribute in use.
  func type(of attribute: String) -> AttributeType? { attributes[attribute] }

  /// Numbers of items (visible to `scope`) whose text contains each term: the document
  /// frequencies that weigh rare terms. A word the ranked index holds as one term (a
  /// stemmed or exact word) is counted there, from its document frequency and the hidden
  /// items among its postings, without a pass over the full-text matches; prefixes, and
  /// everything when the ranked index is unavailable, are counted by FTS5.
  static func documentFrequencies(_ terms: [String], index: SearchIndex, scope: AccessScope) throws -> [String: Int] {
    var unique: [String] = []
    for term in terms where !unique.contains(term) { unique.append(term) }
    var counts: [String: Int] = [:]
    var ranked: [(term: String, rankedTerm: String)] = []
    for term in unique where !term.hasSuffix("*") {
      if let alternatives = RankedAnalysis.queryTerms(of: term), alternatives.count == 1 { ranked.append((term, alternatives[0])) }
    }
    if !ranked.isEmpty, let frequencies = try index.visibleDocumentFrequencies(ofTerms: ranked.map(\.rankedTerm), scope: scope) {
      for (entry, frequency) in zip(ranked, frequencies) { counts[entry.term] = frequency }
    }
    unique.removeAll { counts[$0] != nil }
    guard !unique.isEmpty else { return counts }
    let queries = unique.map { term in
      // A prefix term ("model*") counts the items with any word it begins.
      let prefix = term.hasSuffix("*")
      let word = prefix ? String(term.dropLast()) : term
      return FullTextQuery.quoted(word) + (prefix ? "*" : "")
    }
    for (term, count) in zip(unique, try index.itemCounts(matching: queries, scope: scope)) { counts[term] = count }
    return counts
  }
}
