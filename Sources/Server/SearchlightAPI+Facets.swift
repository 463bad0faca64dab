import Foundation
import QueryEngine
import SearchIndex

extension SearchlightAPI {
  /// Attributes faceted besides domain and content type: text attributes with few distinct
  /// values (`IndexSummary.exampleValues`), at most this many.
  static let maximumExtraFacets = 4

  /// `POST /v1/facets {"query","now"?}` (for the web page): group counts of the items a
  /// predicate query finds, by domain, content type and the index's low-cardinality
  /// attributes: `{"facets":[{"attribute","groups":[{"key","count"}]}]}`. A pipeline that
  /// ends in items is faceted on what it returns; one that ends otherwise (a count, a table) has
  /// no facets (an empty list); a bad query is the 400 of `/v1/query`.
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
    let executor = executor
    do {
      // The query itself first, so its errors are the errors of /v1/query.
      _ = try executor.prepareTyped(text, options: options)
      let summary = try index.summary(scope: scope)
      let extra = summary.exampleValues.filter { $0.value.count > 1 }.keys.sorted().prefix(Self.maximumExtraFacets)
      // The attribute name comes from the catalogue; the query is the caller's own, run in
      // the caller's scope: a predicate is searched and grouped, a pipeline of items gets the
      // grouping appended (facets of what it returns).
      let faceted: [(attribute: String, graph: QueryGraph)] = (["domainIdentifier", "contentType"] + extra).compactMap { attribute in
        let candidates = ["search (\(text)) | group by \(attribute) | count", "\(text) | group by \(attribute) | count"]
        return candidates.lazy.compactMap({ try? executor.prepare($0, options: options) }).first.map { (attribute, $0) }
      }
      // A search whose items are read (a text search, a domain) is grouped by one statement
      // that reads them once; other queries run one by one.
      let tables = try executor.groupCounts(faceted.map(\.graph), options: options) ?? faceted.map { _, graph in
        var table = Table(columns: [], rows: [])
        _ = try executor.execute(graph, options: options) { reply in
          if case .table(let result) = reply.content { table = result }
        }
        return table
      }
      var facets: [JSONValue] = []
      for ((attribute, _), table) in zip(faceted, tables) {
        let groups: [JSONValue] = table.rows.filter { $0.count >= 2 }.map { row in ["key": row[0].jsonValue, "count": row[1].jsonValue] }
        if !groups.isEmpty { facets.append(["attribute": .string(attribute), "groups": .array(groups)]) }
      }
      return Self.json(["facets": .array(facets)])
    } catch {
      return Self.failure(error)
    }
  }
}
