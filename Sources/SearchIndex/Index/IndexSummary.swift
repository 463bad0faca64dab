import Foundation

/// What one access scope sees of an index, for planners and tool schemas: visible items per
/// domain and content type, the attributes in use with the items carrying them, and the
/// values of low-cardinality text attributes (states, tags, people, sections).
///
/// Reading it scans the value table, so `SearchIndex.summary(scope:)` keeps it per index
/// generation and scope (see `SummaryCache`). Only items visible in the scope contribute:
/// a protected or expired item leaves no trace in another scope's summary.
public struct IndexSummary: Sendable, Hashable {
  /// Items with one domain or content type; `name` is nil for items without one.
  public struct Count: Sendable, Hashable {
    public var name: String?
    public var count: Int
  }

  /// A value of a low-cardinality text attribute, by its folded form.
  public struct KnownValue: Sendable, Hashable {
    public var attribute: String
    /// The folded value (case and diacritics removed).
    public var fold: String
    /// The value as stored (the smallest spelling of the folded value).
    public var value: String
    /// Visible items with the value.
    public var count: Int
    /// Content types of those items, in name order (the order the rows come in depends on
    /// the index SQLite reads).
    public var contentTypes: [String]
  }

  /// An exact value of a text attribute with the visible items that hold it.
  public struct ExampleValue: Sendable, Hashable {
    public var value: String
    public var count: Int
  }

  /// Text attributes with at most this many distinct folded values list them in
  /// `knownValues`.
  public static let maximumKnownValues = 1000
  /// Values longer than this are prose, not names, and stay out of `knownValues`.
  public static let maximumValueLength = 80
  /// Text attributes with at most this many distinct exact values list them in
  /// `exampleValues`.
  public static let maximumExampleValues = 12

  /// The index generation the summary was read at.
  public var generation: Int64
  /// Visible items.
  public var items: Int
  /// Visible items per domain, by domain (nil first).
  public var domains: [Count]
  /// Visible items per content type, by content type (nil first).
  public var contentTypes: [Count]
  /// Every attribute name of the file's catalogue, in use by a visible item or not.
  public var attributeNames: [String]
  /// Attributes some visible item has, by name, with the number of such items.
  public var attributes: [IndexStatistics.Attribute]
  /// Values of string attributes with at most `maximumKnownValues` distinct folded values,
  /// by attribute, in folded order.
  public var knownValues: [String: [KnownValue]]
  /// Values of text attributes with at most `maximumExampleValues` distinct exact values, by
  /// attribute, most common first.
  public var exampleValues: [String: [ExampleValue]]

  /// Domains as `IndexStatistics` lists them: items without a domain under "".
  public var domainCounts: [(name: String, count: Int)] {
    var merged: [(name: String, count: Int)] = []
    for entry in domains {
      let name = entry.name ?? ""
      if let last = merged.last, last.name == name {
        merged[merged.count - 1].count += entry.count
      } else {
        merged.append((name, entry.count))
      }
    }
    return merged.sorted { $0.name < $1.name }
  }
}

// MARK: Stored form

extension IndexSummary {
  /// The summary as compact JSON, positional arrays for the long lists.
  var jsonValue: JSONValue {
    func counts(_ list: [Count]) -> JSONValue {
      .array(list.map { .array([$0.name.map(JSONValue.string) ?? .null, .number(Double($0.count))]) })
    }
    return .object(JSONObject([
      ("generation", .number(Double(generation))),
      ("items", .number(Double(items))),
      ("domains", counts(domains)),
      ("contentTypes", counts(contentTypes)),
      ("attributeNames", .array(attributeNames.map(JSONValue.string))),
      ("attributes", .array(attributes.map { attribute in
        .array([.string(attribute.name), .string(attribute.type.description), .number(Double(attribute.count)), .bool(attribute.isCustom)])
      })),
      ("knownValues", .array(knownValues.sorted { $0.key < $1.key }.map { name, values in
        .array([.string(name), .array(values.map { value in
          .array([.string(value.fold), .string(value.value), .number(Double(value.count)), .array(value.contentTypes.map(JSONValue.string))])
        })])
      })),
      ("exampleValues", .array(exampleValues.sorted { $0.key < $1.key }.map { name, values in
        .array([.string(name), .array(values.map { .array([.string($0.value), .number(Double($0.count))]) })])
      })),
    ]))
  }

  /// The summary stored by `jsonValue`; nil when the text is not one (another version).
  init?(json: JSONValue) {
    guard let generation = json["generation"]?.intValue, let items = json["items"]?.intValue,
      let domains = Self.counts(json["domains"]), let contentTypes = Self.counts(json["contentTypes"]),
      let names = json["attributeNames"]?.arrayValue, let attributes = json["attributes"]?.arrayValue,
      let known = json["knownValues"]?.arrayValue, let examples = json["exampleValues"]?.arrayValue
    else { return nil }
    self.generation = Int64(generation)
    self.items = items
    self.domains = domains
    self.contentTypes = contentTypes
    attributeNames = names.compactMap(\.stringValue)
    self.attributes = []
    for entry in attributes {
      guard let fields = entry.arrayValue, fields.count == 4, let name = fields[0].stringValue,
        let type = fields[1].stringValue.flatMap(AttributeType.init(parsing:)), let count = fields[2].intValue,
        let custom = fields[3].boolValue
      else { return nil }
      self.attributes.append(IndexStatistics.Attribute(name: name, type: type, count: count, isCustom: custom))
    }
    knownValues = [:]
    for entry in known {
      guard let pair = entry.arrayValue, pair.count == 2, let name = pair[0].stringValue, let list = pair[1].arrayValue else { return nil }
      var values: [KnownValue] = []
      values.reserveCapacity(list.count)
      for value in list {
        guard let fields = value.arrayValue, fields.count == 4, let fold = fields[0].stringValue, let text = fields[1].stringValue,
          let count = fields[2].intValue, let types = fields[3].arrayValue
        else { return nil }
        values.append(KnownValue(attribute: name, fold: fold, value: text, count: count, contentTypes: types.compactMap(\.stringValue)))
      }
      knownValues[name] = values
    }
    exampleValues = [:]
    for entry in examples {
      guard let pair = entry.arrayValue, pair.count == 2, let name = pair[0].stringValue, let list = pair[1].arrayValue else { return nil }
      var values: [ExampleValue] = []
      for value in list {
        guard let fields = value.arrayValue, fields.count == 2, let text = fields[0].stringValue, let count = fields[1].intValue
        else { return nil }
        values.append(ExampleValue(value: text, count: count))
      }
      exampleValues[name] = values
    }
  }

  private static func counts(_ json: JSONValue?) -> [Count]? {
    guard let list = json?.arrayValue else { return nil }
    var result: [Count] = []
    for entry in list {
      guard let pair = entry.arrayValue, pair.count == 2, let count = pair[1].intValue else { return nil }
      result.append(Count(name: pair[0].stringValue, count: count))
    }
    return result
  }
}
