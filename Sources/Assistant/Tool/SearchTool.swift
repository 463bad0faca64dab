import Foundation
import QueryEngine
import SearchIndex

/// The search offered to a language model as one tool: decodes a call, runs it over the
/// index, and returns the replies plus a compact, bounded text for the model in which
/// retrieved content is fenced as data.
public struct SearchTool: Sendable {
  public let executor: QueryExecutor
  public var options: QueryOptions
  /// At most this many items per reply reach the model.
  public var maximumResultCount: Int
  /// At most this many characters of text reach the model.
  public var maximumResponseSize: Int

  public init(executor: QueryExecutor, options: QueryOptions, maximumResultCount: Int = 20, maximumResponseSize: Int = 8000) {
    self.executor = executor
    self.options = options
    self.maximumResultCount = maximumResultCount
    self.maximumResponseSize = maximumResponseSize
  }

  /// What one call produced.
  public struct Result: Sendable {
    /// The replies, as DESIGN §4 describes them.
    public var replies: [Reply]
    /// The text the model reads.
    public var text: String
    /// The invalid-call error, when the call could not run (also in `text`).
    public var error: ToolCallError?
    /// The query the call became, for logs and `--explain`.
    public var query: String?
    public var isError: Bool { error != nil }
  }

  /// Attributes a result item carries for the model when the call names none.
  public static let defaultFetch = [
    "title", "contentDescription", "contentCreationDate", "contentModificationDate", "dueDate", "completionDate", "startDate",
    "endDate", "authorNames", "recipientNames",
  ]

  /// Runs one tool call given as JSON text. Never throws for a bad call: the error comes back
  /// in band; index failures (I/O), run-time failures and cancellation throw.
  public func call(_ arguments: String) throws(QueryError) -> Result {
    let hasEmbeddings = options.embedder != nil && ((try? executor.index.embeddingConfiguration()) ?? nil) != nil
    var decoder = ToolCallDecoder(clock: options.clock, identity: options.identity, hasEmbeddings: hasEmbeddings)
    decoder.stageNames = Set(executor.registry.names)
    let request: ToolRequest
    do {
      request = try decoder.decode(arguments)
    } catch {
      return Result(replies: [], text: Self.errorText(error), error: error, query: nil)
    }
    return try run(request)
  }

  /// Runs a decoded request.
  public func run(_ request: ToolRequest) throws(QueryError) -> Result {
    switch request {
    case .help(let topic):
      return Result(replies: [], text: ToolHelp.text(topic: topic, registry: executor.registry), error: nil, query: nil)
    case .schema(let schema):
      let text: String
      do { text = try SchemaDescriber(index: executor.index, scope: options.scope).describe(schema) } catch { throw QueryError(error) }
      return Result(replies: [], text: text, error: nil, query: nil)
    case .search(let search):
      return try runSearch(search)
    }
  }

  private func runSearch(_ request: SearchRequest) throws(QueryError) -> Result {
    var replies: [Reply] = []
    do throws(QueryError) {
      let graph = try request.prepare(with: executor, options: options)
      try executor.execute(graph, options: options) { reply in
        guard !reply.isPartial else {
          if let index = replies.lastIndex(where: { $0.isPartial && $0.label == reply.label }) {
            replies[index].content = replies[index].content.replacingItems(replies[index].content.resultItems + reply.content.resultItems)
          } else {
            replies.append(reply)
          }
          return
        }
        if let index = replies.lastIndex(where: { $0.isPartial && $0.label == reply.label }) {
          var whole = reply
          whole.content = reply.content.replacingItems(replies[index].content.resultItems + reply.content.resultItems)
          replies[index] = whole
        } else {
          replies.append(reply)
        }
      }
    } catch {
      let toolError: ToolCallError
      switch error {
      case .invalidQuery(let diagnostics): toolError = Self.toolError(diagnostics, request: request)
      case .runtime(let failure): toolError = ToolCallError(path: "$.query", message: failure.message)
      default: throw error
      }
      return Result(replies: [], text: Self.errorText(toolError), error: toolError, query: request.query)
    }
    // Pages: skip `offset` items of item replies, keep `pageSize`.
    let pageSize = min(request.pageSize, maximumResultCount)
    var pagedReplies: [Reply] = []
    var more: [String: Int] = [:]
    for reply in replies {
      var paged = reply
      let items = reply.content.resultItems
      if case .items = reply.content, items.count > 0 {
        paged.content = .items(Array(items.dropFirst(request.offset).prefix(pageSize)))
        more[reply.label] = max(0, items.count - request.offset - pageSize)
      } else if case .scoredItems = reply.content {
        paged.content = .scoredItems(Array(items.dropFirst(request.offset).prefix(pageSize)))
        more[reply.label] = max(0, items.count - request.offset - pageSize)
      }
      pagedReplies.append(paged)
    }
    let fetch = request.fetchAttributes ?? Array(Set(Self.defaultFetch + request.namedAttributes)).sorted {
      (Self.defaultFetch.firstIndex(of: $0) ?? 99, $0) < (Self.defaultFetch.firstIndex(of: $1) ?? 99, $1)
    }
    let stageFetch = request.stageFetchAttributes
    var formatter = ToolResultFormatter(maximumResponseSize: maximumResponseSize, fetch: fetch)
    formatter.fetchByLabel = stageFetch
    let requested = (request.fetchAttributes ?? []) + stageFetch.keys.sorted().flatMap { stageFetch[$0] ?? [] }
    let unknown: [String]
    do { unknown = try unknownFetchNotes(requested.isEmpty ? nil : Self.unique(requested)) } catch { throw QueryError(error) }
    let text = formatter.format(pagedReplies, more: more, offset: request.offset, autoDisplay: request.autoDisplay,
                                notes: request.notes + unknown)
    let shaped = pagedReplies.map { reply -> Reply in
      var copy = reply
      copy.content = Self.fetching(reply.content, stageFetch[reply.label] ?? fetch)
      return copy
    }
    return Result(replies: shaped, text: text, error: nil, query: request.query)
  }

  /// A note for each requested fetch attribute the index does not know (a misspelt name
  /// would otherwise show nothing, silently), with the closest known name.
  private func unknownFetchNotes(_ requested: [String]?) throws -> [String] {
    guard let requested, !requested.isEmpty else { return [] }
    let catalog = try executor.index.catalog(scope: options.scope)
    return requested.filter { catalog.type(of: $0) == nil }.map { name in
      let suggestion = closestMatch(to: name, in: catalog.allNames).map { " (did you mean '\($0)'?)" } ?? ""
      return "fetchAttributes: '\(name)' is not an attribute of this index, so no item shows it\(suggestion)"
    }
  }

  /// The names in their first order, each once.
  static func unique(_ names: [String]) -> [String] {
    var seen = Set<String>()
    return names.filter { seen.insert($0).inserted }
  }

  /// Items keep only the fetch attributes.
  static func fetching(_ data: PipelineData, _ fetch: [String]) -> PipelineData {
    func trim(_ items: [ResultItem]) -> [ResultItem] {
      items.map { item in
        var copy = item
        copy.item.attributeSet = AttributeSet(fetch.compactMap { name in item.item.attributeSet[name].map { (name, $0) } })
        return copy
      }
    }
    switch data {
    case .items(let items): return .items(trim(items))
    case .scoredItems(let items): return .scoredItems(trim(items))
    case .groupedItems(var grouped):
      grouped.groups = grouped.groups.map { group in
        var copy = group
        copy.items = trim(group.items)
        return copy
      }
      return .groupedItems(grouped)
    default: return data
    }
  }

  /// A diagnostic about the generated query, reported at the JSON path that produced it.
  static func toolError(_ error: DiagnosticsError, request: SearchRequest) -> ToolCallError {
    let primary = error.primary
    let path = request.path(for: primary.span) ?? "$.query"
    var message = primary.message
    if path.hasSuffix(".query.value.query") {
      let (line, column) = error.source.location(of: primary.span.start)
      message += " (query line \(line), column \(column))"
    }
    return ToolCallError(path: path, message: message, expected: primary.help)
  }

  /// The in-band error text for the model.
  static func errorText(_ error: ToolCallError) -> String {
    "The tool call was invalid and did not run. Correct it and call again.\n\(error.description)"
  }
}
