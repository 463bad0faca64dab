import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Stages
import Testing

/// The sample index, a registry with every example custom stage (`freshness` in Swift,
/// `importantNotes` and `nearby` from `Stages/Examples`), and helpers to decode tool calls and
/// compare what they return with what hand-written queries return.
enum Harness {
  static let examples = SampleIndex.repository.appendingPathComponent("Stages/Examples").path

  /// The standard stages plus the example custom stages.
  static let registry: StageRegistry = {
    var registry = StandardLibrary.registryWithExamples()
    let problems = (try? StageFileLoader.load(directory: examples, into: &registry, catalog: try SampleIndex.shared.catalog())) ?? []
    precondition(problems.isEmpty, "the example stage files must load")
    return registry
  }()

  static var executor: QueryExecutor { QueryExecutor(index: SampleIndex.shared, registry: registry) }

  /// The user of the samples.
  static let identity = Identity(names: ["Alex Morgan"], emails: ["alex.morgan@example.com"])

  /// The samples' options, optionally with an identity and granted protection classes.
  static func options(identity: Identity = Identity(), protection: Set<String> = []) -> QueryOptions {
    var options = SampleIndex.options
    options.identity = identity
    options.scope.protectionClasses = protection
    return options
  }

  static func decoder(identity: Identity = Identity()) -> ToolCallDecoder {
    ToolCallDecoder(clock: SampleIndex.clock, identity: identity)
  }

  /// Decodes a call that must be a search.
  static func searchRequest(_ call: String, identity: Identity = Identity()) throws -> SearchRequest {
    let request = try decoder(identity: identity).decode(call)
    guard case .search(let search) = request else {
      Issue.record("expected a search request for \(call)")
      throw CancellationError()
    }
    return search
  }

  /// The error a call decodes to, or nil when it decodes.
  static func decodingError(_ call: String, identity: Identity = Identity()) -> ToolCallError? {
    do {
      _ = try decoder(identity: identity).decode(call)
      return nil
    } catch {
      return error
    }
  }

  /// Runs a query and returns its final replies, with streamed batches joined.
  static func run(_ query: String, options: QueryOptions = SampleIndex.options) throws -> [Reply] {
    try run(graph: executor.prepare(query, options: options), options: options)
  }

  /// Runs a decoded call: its parsed query as the decoder built it, not its text.
  static func run(_ request: SearchRequest, options: QueryOptions = SampleIndex.options) throws -> [Reply] {
    try run(graph: request.prepare(with: executor, options: options), options: options)
  }

  /// The decoded call's parsed query is the parse of its text: the text shows what runs.
  static func syntaxMatchesText(_ request: SearchRequest) throws -> Bool {
    guard let syntax = request.syntax else { return false }
    return syntax.structure == (try Parser.parse(SourceText(request.query))).structure
  }

  static func run(graph: QueryGraph, options: QueryOptions) throws -> [Reply] {
    var replies: [Reply] = []
    var pending: [String: [ResultItem]] = [:]
    _ = try executor.execute(graph, options: options) { reply in
      if reply.isPartial {
        pending[reply.label, default: []] += reply.content.resultItems
        return
      }
      var whole = reply
      if let earlier = pending.removeValue(forKey: reply.label) {
        whole.content = reply.content.replacingItems(earlier + reply.content.resultItems)
      }
      replies.append(whole)
    }
    return replies
  }

  /// What replies say, without labels or tokens: ids in order, scores, groups, counts, tables,
  /// statistics.
  static func fingerprint(_ replies: [Reply]) -> [String] {
    replies.map { reply in
      switch reply.content {
      case .items(let items):
        return "items: " + items.map(\.id).joined(separator: " ")
      case .scoredItems(let items):
        return "scoredItems: " + items.map { "\($0.id)=\(String(format: "%.6f", $0.score ?? .nan))" }.joined(separator: " ")
      case .groupedItems(let grouped):
        return "groupedItems by \(grouped.attribute): "
          + grouped.groups.map { "\($0.key.displayText)(\($0.count))[\($0.items.map(\.id).joined(separator: " "))]" }.joined(separator: "; ")
      case .count(let count):
        return "count: \(count)"
      case .table(let table):
        return "table: " + table.columns.joined(separator: "|") + " / "
          + table.rows.map { $0.map(\.displayText).joined(separator: "|") }.joined(separator: " / ")
      case .statistic(let statistic):
        return "statistic: \(statistic.function)(\(statistic.attribute)) = \(statistic.value.displayText)"
      case .text(let text):
        return "text: \(text.header) \(text.body)"
      }
    }
  }

  /// Whether replies hold anything: a comparison of two empty results proves little.
  static func isEmpty(_ replies: [Reply]) -> Bool {
    replies.allSatisfy { reply in
      switch reply.content {
      case .items(let items), .scoredItems(let items): items.isEmpty
      case .groupedItems(let grouped): grouped.groups.isEmpty
      case .count(let count): count == 0
      case .table(let table): table.rows.isEmpty
      case .statistic, .text: false
      }
    }
  }

  /// A search tool over the samples.
  static func tool(identity: Identity = Identity(), protection: Set<String> = [], maximumResultCount: Int = 20, maximumResponseSize: Int = 8000) -> SearchTool {
    SearchTool(executor: executor, options: options(identity: identity, protection: protection),
               maximumResultCount: maximumResultCount, maximumResponseSize: maximumResponseSize)
  }

  /// Parses JSON text in a test.
  static func json(_ text: String) throws -> JSONValue {
    do { return try JSONParser.parse(text) } catch {
      Issue.record("invalid JSON in a test: \(error.message)\n\(text)")
      throw CancellationError()
    }
  }
}

/// Builders for tool calls, so the cases read close to the JSON a model sends.
enum Call {
  /// `{"query":{"type":"search","value":VALUE}}`.
  static func search(_ value: String) -> String { #"{"query":{"type":"search","value":"# + value + "}}" }

  /// A search of `node` with more search fields (`"pageSize":5`, ...).
  static func root(_ node: String, _ fields: String = "") -> String {
    search(#"{"root":"# + node + (fields.isEmpty ? "" : "," + fields) + "}")
  }

  /// A search whose arguments are a pipeline of `stages`.
  static func pipeline(_ stages: [String], _ fields: String = "") -> String {
    search(#"{"pipeline":{"stages":["# + stages.joined(separator: ",") + "]}" + (fields.isEmpty ? "" : "," + fields) + "}")
  }

  static func stage(_ id: String, _ type: String, _ value: String) -> String {
    #"{"id":"\#(id)","kind":{"type":"\#(type)","value":\#(value)}}"#
  }

  /// A query stage.
  static func query(_ id: String, _ node: String, _ fields: String = "") -> String {
    stage(id, "query", #"{"query":"# + node + (fields.isEmpty ? "" : "," + fields) + "}")
  }

  static func allText(_ terms: String...) -> String {
    #"{"type":"allText","value":{"terms":["# + terms.map { "\"\($0)\"" }.joined(separator: ",") + "]}}"
  }

  /// A predicate node; `value` is the discriminated value JSON.
  static func predicate(_ attribute: String, _ op: String, _ value: String, caseSensitive: Bool? = nil) -> String {
    var fields = #""attribute":"\#(attribute)","operator":"\#(op)","value":\#(value)"#
    if let caseSensitive { fields += #","caseSensitive":\#(caseSensitive)"# }
    return #"{"type":"predicate","value":{"# + fields + "}}"
  }

  static func string(_ s: String) -> String { #"{"type":"string","value":"\#(s)"}"# }
  static func int(_ n: Int) -> String { #"{"type":"int","value":\#(n)}"# }
  static func double(_ n: Double) -> String { #"{"type":"double","value":\#(n)}"# }
  static func bool(_ b: Bool) -> String { #"{"type":"bool","value":\#(b)}"# }
  static func date(_ d: String) -> String { #"{"type":"date","value":"\#(d)"}"# }
  static func array(_ values: String...) -> String { #"{"type":"array","value":["# + values.map { "\"\($0)\"" }.joined(separator: ",") + "]}" }
  static func variable(_ name: String) -> String { #"{"type":"variable","value":"\#(name)"}"# }

  static func operation(_ logic: String, _ children: String...) -> String {
    #"{"type":"operation","value":{"logic":"\#(logic)","children":["# + children.joined(separator: ",") + "]}}"
  }

  /// A temporal node; `body` is the fields after `"type"`.
  static func temporal(_ type: String, _ body: String) -> String {
    #"{"type":"temporal","value":{"type":"\#(type)","# + body + "}}"
  }

  static func relative(_ name: String) -> String { #"{"type":"relative","value":"\#(name)"}"# }

  /// An absolute reference from components given as `"year":{...}`-style fields.
  static func absolute(_ components: String) -> String { #"{"type":"absolute","value":{"# + components + "}}" }

  /// The trails: the query node most pipeline cases start from.
  static let trails = predicate("domainIdentifier", "equals", string("trails"))
  static let trailsStage = query("q", trails)
}
