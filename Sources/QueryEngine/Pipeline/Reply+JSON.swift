import Foundation
import SearchIndex

extension Reply {
  /// The reply JSON of DESIGN §4:
  /// `{"queryToken":..,"label":..,"content":{"type":"items","items":[...]}}`.
  ///
  /// - Parameters:
  ///   - fetch: attributes to include on items (nil: all stored attributes).
  ///   - why: include each scored item's score terms.
  public func jsonValue(fetch: [String]? = nil, why: Bool = false) -> JSONValue {
    .object(JSONObject([
      ("queryToken", .string(queryToken)), ("label", .string(label)),
      ("content", content.jsonValue(fetch: fetch, why: why)),
    ]))
  }
}

extension PipelineData {
  /// The `content` object of a reply.
  public func jsonValue(fetch: [String]? = nil, why: Bool = false) -> JSONValue {
    var object = JSONObject()
    object["type"] = .string(type.rawValue)
    switch self {
    case .items(let items):
      object["items"] = .array(items.map { $0.itemJSON(fetch: fetch) })
    case .scoredItems(let items):
      object["items"] = .array(items.map { item in
        var entry = JSONObject([("score", .number(Self.rounded(item.score ?? 0))), ("item", item.itemJSON(fetch: fetch))])
        if why { entry["terms"] = .array(item.scoreTerms.map { .object(JSONObject([("name", .string($0.name)), ("value", .number(Self.rounded($0.value)))])) }) }
        return .object(entry)
      })
    case .groupedItems(let grouped):
      object["attribute"] = .string(grouped.attribute)
      object["groups"] = .array(grouped.groups.map { group in
        .object(JSONObject([
          ("key", group.key.jsonValue), ("count", .number(Double(group.count))),
          ("items", .array(group.items.map { $0.itemJSON(fetch: fetch) })),
        ]))
      })
    case .count(let n):
      object["count"] = .number(Double(n))
    case .table(let table):
      object["columns"] = .array(table.columns.map(JSONValue.string))
      object["rows"] = .array(table.rows.map { .array($0.map { Self.cell($0) }) })
    case .statistic(let statistic):
      object["function"] = .string(statistic.function)
      object["attribute"] = .string(statistic.attribute)
      object["value"] = Self.cell(statistic.value)
    case .text(let text):
      object["header"] = .string(text.header)
      object["body"] = .string(text.body)
    }
    return .object(object)
  }

  private static func cell(_ value: Value) -> JSONValue {
    if case .number(let n) = value { return .number(rounded(n)) }
    return value.jsonValue
  }

  /// Scores and statistics rounded to 6 decimals, so output is stable across platforms.
  static func rounded(_ n: Double) -> Double {
    guard n.isFinite else { return 0 }
    return (n * 1_000_000).rounded() / 1_000_000
  }
}

extension ResultItem {
  /// `{"id":..,"domain":..,"attributes":{...}}` with only `fetch` attributes when given.
  public func itemJSON(fetch: [String]?) -> JSONValue {
    var object = JSONObject()
    object["id"] = .string(item.uniqueIdentifier)
    if let domain = item.domainIdentifier { object["domain"] = .string(domain) }
    if let contentType = item.contentType { object["contentType"] = .string(contentType) }
    var attributes = JSONObject()
    if let fetch {
      for name in fetch { if let value = item.attributeSet[name] { attributes[name] = value.jsonValue } }
    } else {
      attributes = item.attributeSet.jsonObject
    }
    object["attributes"] = .object(attributes)
    return .object(object)
  }
}
