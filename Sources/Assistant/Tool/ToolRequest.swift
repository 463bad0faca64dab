import QueryEngine
import SearchIndex

/// A decoded tool call.
public enum ToolRequest: Sendable {
  /// A search: the query it became, and how to shape its results.
  case search(SearchRequest)
  /// The attribute catalogue, one attribute's values, or the content types.
  case schema(SchemaRequest)
  /// Help on a topic ("" for general help).
  case help(topic: String)
}

/// A search tool call turned into a query of the DSL: the same typed graph a person would
/// get by typing that query.
public struct SearchRequest: Sendable {
  /// The query's text (see `searchlight explain` for what it means): the rendering of
  /// `syntax`, or the text a `dsl` call gave.
  public var query: String
  /// Attributes the results carry; nil for the defaults (title, description, dates and every
  /// attribute the query names).
  public var fetchAttributes: [String]?
  /// Attributes the query names, for the default fetch list.
  public var namedAttributes: [String]
  /// Items per reply returned to the model.
  public var pageSize: Int
  /// Items to skip (from `cursor`).
  public var offset: Int
  /// The label of the main reply.
  public var label: String?
  /// True: the results are shown to the user; the model gets only counts.
  public var autoDisplay: Bool
  /// What the decoder assumed or could not honour, told to the model.
  public var notes: [String]
  /// Attributes the replies of particular stages carry (a query stage's own
  /// `fetchAttributes`), by reply label; other replies use `fetchAttributes`.
  public var stageFetchAttributes: [String: [String]] = [:]
  /// The parsed query the call decoded to, its spans pointing into `query`; nil when the call
  /// gave query text (`dsl`), which is parsed when it runs.
  public var syntax: QuerySyntax?
  /// Which JSON path produced which part of `query`, to report errors by path.
  var marks: [(range: Range<Int>, path: String)]

  /// The query type-checked by `executor`: the decoded syntax as it is, or the call's text
  /// parsed.
  public func prepare(with executor: QueryExecutor, options: QueryOptions) throws(QueryError) -> QueryGraph {
    guard let syntax else { return try executor.prepare(query, options: options) }
    return try executor.prepare(syntax, source: SourceText(query), options: options)
  }

  /// The JSON path that produced the query text at `span`.
  public func path(for span: SourceSpan) -> String? {
    marks.filter { $0.range.lowerBound <= span.start && span.start < max($0.range.upperBound, $0.range.lowerBound + 1) }
      .min { $0.range.count < $1.range.count }?.path
  }
}

/// A schema question.
public struct SchemaRequest: Sendable, Hashable {
  public enum Kind: String, Sendable, Hashable { case schema, attribute, contentType = "content_type" }
  public var kind: Kind
  public var attribute: String?
  public var contentType: String?
}
