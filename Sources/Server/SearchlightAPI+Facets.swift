import Foundation
import QueryEngine
import SearchIndex

extension SearchlightAPI {
  /// Attributes faceted besides domain and content type: text attributes with few distinct
  /// values (`IndexSummary.exampleValues`), at most this many.
  static let maximumExtraFacets = 4

  /// `POST /v1/facets {"query","now"?}` (for the web page): group counts of the items a
  /// predicate query finds, by domain, content type and the index's low-cardinality
  /// attributes (without a text search, those that one of its first 100 items has, the
  /// ones a page shows):
  /// `{"facets":[{"attribute","groups":[{"key","count","query"}]}]}`, where a
  /// group's `query` is the query narrowed to that group (`QueryNarrowing`), what the page
  /// runs when it is picked. A pipeline that ends in items is faceted on what it returns; one
  /// that ends otherwise (a count, a table) has no facets (an empty list); a bad query is the
  /// 400 of `/v1/query`.
  func facets(_ request: HTTPRequest, scope: AccessScope) -> HTTPResponse {
    let body: JSONValue
    switch jsonObject(request) {
    case .success(let value): body = value
    case .failure(let error): return error.response
    }
    guard let text = body["query"]?.stringValue else { return APIError.response(400, "the body needs \"query\": a query string") }
    var now: Date?
    if let string = body["now"]?.stringValue {
      guard let date = ISO8601.parse(string, defaultZone: TimeZone.current) else {
        return APIError.response(400, "\"now\" must be an ISO-8601 date (e.g. 2026-11-29T12:00:00Z)")
      }
      now = date
    }
    let options = options(scope, now: now)
    do {
      // The query itself first, so its errors are the errors of /v1/query.
      let (graph, _) = try executor.prepareTyped(text, options: options)
      let summary = try index.summary(scope: scope)
      let extra = summary.exampleValues.filter { $0.value.count > 1 }.keys.sorted().prefix(Self.maximumExtraFacets)
      let tables = try facetTables(of: text, graph: graph, by: ["domainIdentifier", "contentType"] + extra, options: options)
      var facets: [JSONValue] = []
      for (attribute, table) in tables {
        let groups: [JSONValue] = table.rows.filter { $0.count >= 2 }.map { row in
          var group: [(String, JSONValue)] = [("key", row[0].jsonValue), ("count", row[1].jsonValue)]
          // Facets group texts; a group without the attribute narrows to its absence.
          let condition: String? = switch row[0] {
          case .string(let value): QueryNarrowing.condition(attribute, equals: value)
          case .null: QueryNarrowing.condition(attribute, equals: nil)
          default: nil
          }
          if let condition, let narrowed = QueryNarrowing.narrowed(text, by: condition) { group.append(("query", .string(narrowed))) }
          return .object(JSONObject(group))
        }
        if !groups.isEmpty { facets.append(["attribute": .string(attribute), "groups": .array(groups)]) }
      }
      return Self.json(["facets": .array(facets)])
    } catch {
      return Self.failure(error)
    }
  }

  /// The group counts of `text`'s items by each of `attributes` that a grouping can follow
  /// (as `text | group by A | count` would give them), in order: domain and content type,
  /// and the others (without a text search, those that one of its first `facetSampleItems`
  /// items has).
  private func facetTables(of text: String, graph: QueryGraph, by attributes: [String], options: QueryOptions) throws -> [(String, Table)] {
    // The attribute names come from the catalogue; the query is the caller's own, run in the
    // caller's scope: a predicate is searched and grouped, a pipeline of items gets the
    // grouping appended (facets of what it returns).
    func prepared(_ stages: String) -> QueryGraph? {
      ["search (\(text)) | \(stages)", "\(text) | \(stages)"].lazy.compactMap({ try? executor.prepare($0, options: options) }).first
    }
    // Without a text search (a collection, value tests), an attribute that none of the
    // query's first items has is left out: grouping its items by it would look its value up
    // in every one of them to find next to none (four trail attributes over the 336,000 notes
    // of a million items: 0.3 s each). A text search's matches are read once for every
    // grouping, where an absent attribute costs little, and its first items cost as much as
    // the facets.
    let searchesText = graph.statements.contains { statement in
      if case .search(let predicate) = statement.source { predicate.containsTextSearch } else { false }
    }
    let kept = searchesText ? Set(attributes) : Set(["domainIdentifier", "contentType"]).union(try attributesOfFirstItems(of: text, options: options))
    let grouped = attributes.filter(kept.contains).compactMap { attribute in
      prepared("group by \(attribute) | count").map { (attribute, $0) }
    }
    guard !grouped.isEmpty else { return [] }
    // A search whose items are read (a text search, a domain) is grouped by one statement
    // that reads them once.
    if let tables = try executor.groupCounts(grouped.map(\.1), options: options) {
      return Array(zip(grouped.map(\.0), tables))
    }
    // A pipeline forks into one grouping each: what it returns is made once when it is a
    // few items (a ranked top 10), else each grouping is its own statement.
    let labels = grouped.indices.map { "facet \($0)" }
    let branches = zip(grouped, labels).map { facet, label in "(group by \(facet.0) | count as \"\(label)\")" }
    if grouped.count > 1, let forked = prepared("fork " + branches.joined(separator: " ")) {
      var tables: [String: Table] = [:]
      _ = try executor.execute(forked, options: options) { reply in
        if labels.contains(reply.label), case .table(let table) = reply.content { tables[reply.label] = table }
      }
      return zip(grouped, labels).compactMap { facet, label in tables[label].map { (facet.0, $0) } }
    }
    return try grouped.map { attribute, graph in
      var table = Table(columns: [], rows: [])
      _ = try executor.execute(graph, options: options) { reply in
        if case .table(let result) = reply.content { table = result }
      }
      return (attribute, table)
    }
  }

  /// How many of a query's first items `facetTables` looks at for the attributes they have.
  static let facetSampleItems = 100

  /// The attributes that at least one of `text`'s first `facetSampleItems` items has.
  private func attributesOfFirstItems(of text: String, options: QueryOptions) throws -> Set<String> {
    var windowed = options
    windowed.itemWindow = ItemWindow(first: Self.facetSampleItems, countsAll: false)
    var names = Set<String>()
    _ = try executor.run(text, options: windowed) { reply in
      for item in reply.content.resultItems { names.formUnion(item.item.attributeSet.names) }
    }
    return names
  }
}
