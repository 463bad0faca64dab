import Foundation
import SearchIndex

/// How a query runs: who is asking (access scope), the clock, batching and cancellation.
public struct QueryOptions: Sendable {
  public var scope: AccessScope
  public var clock: QueryClock
  /// Items per streamed batch of an items reply.
  public var batchSize: Int
  public var cancellation: CancellationFlag
  /// Who "me" is, for `people me`.
  public var identity: Identity
  /// The app's side of the index: `hydrate` asks it for current, authorised records.
  public var delegate: (any IndexDelegate)?
  /// False ranks OR text searches with FTS5's bm25() instead of the ranked index: the
  /// baseline `eval --planner fts5` measures.
  public var usesRankedIndex = true
  /// Embeds the phrases of `similar` searches; it must use the model the index records
  /// (`SearchIndex.embeddingConfiguration()`). nil: `similar` fails with a clear message.
  public var embedder: (any TextEmbedder)?

  public init(scope: AccessScope = AccessScope(), clock: QueryClock = QueryClock(), batchSize: Int = 100,
              cancellation: CancellationFlag = CancellationFlag(), identity: Identity = Identity(),
              delegate: (any IndexDelegate)? = nil, embedder: (any TextEmbedder)? = nil) {
    self.embedder = embedder
    self.identity = identity
    self.delegate = delegate
    self.scope = scope
    self.clock = clock
    self.batchSize = batchSize
    self.cancellation = cancellation
  }
}

/// Parses, type-checks and runs queries over an index: parse -> graph -> type check -> plan
/// -> execute. Leading stages are pushed into one SQL statement; the rest run in Swift.
/// Replies stream to the caller as they are produced, each tagged with the execution's token.
public struct QueryExecutor: Sendable {
  public let index: SearchIndex
  public let registry: StageRegistry

  public init(index: SearchIndex, registry: StageRegistry) {
    self.index = index
    self.registry = registry
  }

  /// Parses and type-checks `text`; throws every diagnostic at once.
  public func prepare(_ text: String, options: QueryOptions, sourceName: String = "query") throws -> QueryGraph {
    let source = SourceText(text, name: sourceName)
    let syntax = try Parser.parse(source)
    return try builder(options: options, variables: [:]).build(syntax, source: source)
  }

  private func builder(options: QueryOptions, variables: [String: Value]) throws -> GraphBuilder {
    let catalog: AttributeCatalog
    // Names bind (and are suggested) only as the caller may see them.
    do { catalog = try index.catalog(scope: options.scope) } catch { throw error }
    let context = BindingContext(catalog: catalog, clock: options.clock, variables: variables, identity: options.identity)
    return GraphBuilder(registry: registry, bindingContext: context)
  }

  /// Runs a prepared graph, handing each reply to `onReply` as soon as it exists.
  @discardableResult
  public func execute(_ graph: QueryGraph, options: QueryOptions, onReply: (Reply) throws -> Void) throws -> QueryToken {
    // One moment decides expiry for the whole execution, even when the scope follows the
    // real clock.
    var options = options
    options.scope.now = options.scope.now
    let generation = try index.generation()
    let token = QueryToken(now: options.clock.now, timeZone: options.clock.timeZone, generation: generation)
    try withoutActuallyEscaping(onReply) { onReply in
    try index.readPassingErrors { connection in
      let context = try ExecutionContext(
        index: index, connection: connection, scope: options.scope, clock: options.clock,
        catalog: try SearchIndex.loadCatalogForQuery(connection), cancellation: options.cancellation, token: token,
        delegate: options.delegate, embedder: options.embedder)
      context.usesRankedIndex = options.usesRankedIndex
      var run = Run(context: context, options: options, onReply: onReply)
      var graph = graph
      var variables: [String: Value] = [:]
      for index in graph.statements.indices {
        let statement = graph.statements[index]
        let data = try run.statement(statement, results: run.results)
        run.results[index] = data
        if statement.isLet, let name = statement.name {
          variables[name] = Self.variableValue(data)
          // Bind the rest of the query with the variable's value.
          graph = try builder(options: options, variables: variables).build(graph.syntax, source: graph.source)
        }
      }
    }
    }
    return token
  }

  /// Parses, checks and runs `text` in one call.
  @discardableResult
  public func run(_ text: String, options: QueryOptions, onReply: (Reply) throws -> Void) throws -> QueryToken {
    try execute(try prepare(text, options: options), options: options, onReply: onReply)
  }

  /// The value a `let` statement binds: a count, a statistic, the first cell of a table, the
  /// key of the first group, the title of the first item.
  static func variableValue(_ data: PipelineData) -> Value {
    switch data {
    case .count(let n): .number(Double(n))
    case .statistic(let statistic): statistic.value
    case .table(let table): table.rows.first?.first ?? .null
    case .groupedItems(let grouped): grouped.groups.first?.key ?? .null
    case .items(let items), .scoredItems(let items): items.first.map { Value($0.item.attributeSet["title"]) } ?? .null
    case .text(let text): .string(text.body)
    }
  }

  /// The label of a reply with no `as "label"`.
  public static func defaultLabel(_ type: PipelineType) -> String {
    switch type {
    case .items: "Search results"
    case .scoredItems: "Scored results"
    case .groupedItems: "Groups"
    case .count: "Count"
    case .table: "Table"
    case .statistic: "Statistic"
    case .text: "Summary"
    }
  }
}

/// The state of one execution.
private struct Run {
  let context: ExecutionContext
  let options: QueryOptions
  let onReply: (Reply) throws -> Void
  var results: [Int: PipelineData] = [:]

  mutating func statement(_ statement: QueryGraph.Statement, results: [Int: PipelineData]) throws -> PipelineData {
    var plan: SQLPlan?
    var data: PipelineData?
    switch statement.source {
    case .search(let predicate): plan = SQLPlan(predicate: predicate)
    case .reference(let index): data = results[index] ?? .items([])
    case .merge(let indexes):
      var position: [String: Int] = [:]
      var merged: [ResultItem] = []
      var scored = false
      for (input, index) in indexes.enumerated() {
        if case .scoredItems = results[index] { scored = true }
        for (rank, item) in (results[index]?.resultItems ?? []).enumerated() {
          // Each item once, as its first input has it, with its rank in every input (for `fuse`).
          if let existing = position[item.id] {
            if merged[existing].inputRanks[input] == nil { merged[existing].inputRanks[input] = rank + 1 }
            continue
          }
          var item = item
          item.inputRanks = Array(repeating: nil, count: indexes.count)
          item.inputRanks[input] = rank + 1
          position[item.id] = merged.count
          merged.append(item)
        }
      }
      data = scored ? .scoredItems(merged) : .items(merged)
    }
    let label = statement.name.map { $0 }
    return try nodes(statement.nodes, plan: plan, data: data, emit: statement.isTerminal, defaultLabel: label, stage: "search")
  }

  /// Runs `nodes` from a plan (not yet run in SQLite) or data; emits the result as a reply
  /// when `emit`, streaming item batches when the plan's items are the result.
  private func nodes(
    _ nodes: [QueryGraph.Node], plan startPlan: SQLPlan?, data startData: PipelineData?, emit: Bool,
    defaultLabel: String?, stage startStage: String
  ) throws -> PipelineData {
    var plan = startPlan
    var data = startData
    var stageName = startStage
    var label = defaultLabel
    for node in nodes {
      try context.cancellation.check()
      switch node.kind {
      case .stage(let stage):
        if var pending = plan {
          if stage.push(into: &pending, context: context) {
            plan = pending
            stageName = node.name
            if let nodeLabel = node.label { label = nodeLabel }
            continue
          }
          data = try context.materialize(pending)
          plan = nil
        }
        data = try stage.execute(data ?? .items([]), context: context)
        stageName = node.name
        if let nodeLabel = node.label { label = nodeLabel }
      case .fork(let branches):
        var last: PipelineData = data ?? .items([])
        for branch in branches {
          last = try self.nodes(branch, plan: plan, data: data, emit: emit, defaultLabel: branch.last?.label, stage: stageName)
        }
        return last
      }
    }
    if let pending = plan {
      if emit, pending.aggregate == nil, pending.groupBy == nil {
        // Stream the items in batches: the first results reach the reader before the query ends.
        var all: [ResultItem] = []
        var pendingBatch: [ResultItem]?
        let replyLabel = label ?? QueryExecutor.defaultLabel(.items)
        try context.items(pending, batchSize: options.batchSize) { batch in
          if let previous = pendingBatch {
            try onReply(Reply(queryToken: context.token.id, label: replyLabel, content: .items(previous), stage: stageName, isPartial: true))
          }
          pendingBatch = batch
          all.append(contentsOf: batch)
        }
        try onReply(Reply(queryToken: context.token.id, label: replyLabel, content: .items(pendingBatch ?? []), stage: stageName))
        return .items(all)
      }
      data = try context.materialize(pending)
    }
    let result = data ?? .items([])
    if emit {
      try onReply(Reply(queryToken: context.token.id, label: label ?? QueryExecutor.defaultLabel(result.type), content: result, stage: stageName))
    }
    return result
  }
}
