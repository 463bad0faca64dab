import Foundation
import SearchIndex
import Synchronization

/// How a query runs: who is asking (access scope), the clock, batching and cancellation.
public struct QueryOptions: Sendable {
  public var scope: AccessScope
  public var clock: QueryClock
  /// The one moment a query reads: `$time` resolves against it (`clock.now`). Whether an
  /// item has expired is judged by the real clock, so a pinned `now` can replay dates without
  /// showing expired items; an app replaying a moment for expiry too sets `scope.now`.
  public var now: Date {
    get { clock.now }
    set { clock.now = newValue }
  }
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
  /// When set, every reply of items that no later statement reads holds at most its first
  /// `itemWindow.first` items, and says how many the whole reply holds when asked
  /// (`Reply.total`): a terminal shows a screenful without reading every match.
  public var itemWindow: ItemWindow?
  /// The most distinct values an attribute may have for a pattern on it to be matched once
  /// per distinct value (`SQLCompiler.distinctValueLimit`); tests set 0 to have it matched on
  /// every value, as an attribute with many values is.
  package var distinctValueLimit = SQLCompiler.distinctValueLimit
  /// Receives the SQL statements an execution ran, in order (tests compare them with
  /// what `explain` shows for the same plan).
  package var statementLog: StatementLog?

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

/// The first items of each reply of items, for a reader that shows only those
/// (`QueryOptions.itemWindow`).
public struct ItemWindow: Sendable, Hashable {
  /// How many items a reply holds at most.
  public var first: Int
  /// Whether replies say how many items they would hold uncut (`Reply.total`), which costs a
  /// count of the matches.
  public var countsAll: Bool
  /// When set, each group of a reply of groups holds at most this many items (its `count`
  /// stays the whole group's): a terminal lists a few titles under each group.
  public var itemsPerGroup: Int?

  public init(first: Int, countsAll: Bool, itemsPerGroup: Int? = nil) {
    self.first = max(0, first)
    self.countsAll = countsAll
    self.itemsPerGroup = itemsPerGroup.map { max(0, $0) }
  }
}

/// Collects the SQL statements of executions.
package final class StatementLog: Sendable {
  private let statements = Mutex<[String]>([])
  package init() {}
  private let rows = Mutex(0)
  package func append(_ sql: [String]) { statements.withLock { $0 += sql } }
  package var all: [String] { statements.withLock { $0 } }
  /// Rows of items statements the executions read (`ExecutionContext.itemRowsRead`).
  package var itemRowsRead: Int { rows.withLock { $0 } }
  package func addItemRows(_ count: Int) { rows.withLock { $0 += count } }
  /// Items read whole after a stage had them in part (`ExecutionContext.itemsReadWhole`).
  package var itemsReadWhole: Int { whole.withLock { $0 } }
  private let whole = Mutex(0)
  package func addItemsReadWhole(_ count: Int) { whole.withLock { $0 += count } }
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

  /// Parses and type-checks `text`; throws every diagnostic at once (`.invalidQuery`).
  public func prepare(_ text: String, options: QueryOptions, sourceName: String = "query") throws(QueryError) -> QueryGraph {
    try QueryError.catching {
      let source = SourceText(text, name: sourceName)
      let syntax = try Parser.parse(source)
      return try bind(syntax, source: source, options: options)
    }
  }

  /// Type-checks a query built without text (a decoded tool call, a planner's plan);
  /// `source` is its rendering, where diagnostics point.
  public func prepare(_ syntax: QuerySyntax, source: SourceText, options: QueryOptions) throws(QueryError) -> QueryGraph {
    try QueryError.catching {
      try Parser.checkLimits(syntax, source: source)
      return try bind(syntax, source: source, options: options)
    }
  }

  /// Binds names against the catalogue this process read last, without a read transaction of
  /// its own (a query then opens one transaction, not two); `current(_:in:options:)` binds
  /// again when the execution reads another generation. A query that fails to bind against
  /// that catalogue is bound against the index as it is now, so a name added since is found.
  private func bind(_ syntax: QuerySyntax, source: SourceText, options: QueryOptions) throws -> QueryGraph {
    if let last = index.lastQueryCatalog(scope: options.scope),
      var graph = try? builder(options: options, variables: [:], catalog: last.catalog).build(syntax, source: source)
    {
      graph.catalogGeneration = last.generation
      graph.boundWithoutRead = true
      return graph
    }
    let (catalog, generation) = try index.queryCatalogAndGeneration(scope: options.scope)
    var graph = try builder(options: options, variables: [:], catalog: catalog).build(syntax, source: source)
    graph.catalogGeneration = generation
    return graph
  }

  /// `graph` bound against the catalogue of the generation `context` reads. When that
  /// catalogue lacks a name of the query (the caller may no longer see any item holding it),
  /// a graph bound without a read fails as `prepare` would have failed after one; a graph
  /// whose prepare read the index runs as it was bound, and finds nothing under that name.
  func current(_ graph: QueryGraph, in context: ExecutionContext, options: QueryOptions) throws -> QueryGraph {
    guard let bound = graph.catalogGeneration, bound != context.token.generation else { return graph }
    let catalog = try index.queryVisibleCatalog(context.connection, scope: options.scope, generation: context.token.generation)
    var rebound: QueryGraph
    do {
      rebound = try builder(options: options, variables: [:], catalog: catalog).build(graph.syntax, source: graph.source)
    } catch {
      if graph.boundWithoutRead { throw error }
      return graph
    }
    rebound.catalogGeneration = context.token.generation
    return rebound
  }

  /// `prepare` for text a person typed: when `text` fails to prepare and is only words,
  /// none of them an attribute the caller can see (`BareWords`), the text search of those
  /// words is prepared instead and returned as `searched`, so the caller can say so. The
  /// original diagnostics are thrown when the rule does not apply.
  public func prepareTyped(_ text: String, options: QueryOptions, sourceName: String = "query") throws(QueryError) -> (graph: QueryGraph, searched: String?) {
    // A lone `*` is not a predicate, but a person typing it means every item.
    if text.trimmingCharacters(in: .whitespacesAndNewlines) == "*" {
      return (try prepare("search *", options: options, sourceName: sourceName), nil)
    }
    do throws(QueryError) {
      return (try prepare(text, options: options, sourceName: sourceName), nil)
    } catch .invalidQuery(let diagnostics) {
      guard let catalog = try? index.catalog(scope: options.scope), let search = BareWords.searchQuery(for: text, catalog: catalog)
      else { throw .invalidQuery(diagnostics) }
      return (try prepare(search, options: options, sourceName: sourceName), search)
    }
  }

  /// Names bind (and are suggested) only as the caller may see them (`catalog`, read once per
  /// index generation and scope).
  private func builder(options: QueryOptions, variables: [String: Value], catalog: AttributeCatalog) -> GraphBuilder {
    let context = BindingContext(catalog: catalog, clock: options.clock, variables: variables, identity: options.identity)
    return GraphBuilder(registry: registry, bindingContext: context)
  }

  /// Runs a prepared graph, handing each reply to `onReply` as soon as it exists. An error
  /// `onReply` throws ends the run and comes back as `.reply(error)`; one of the engine's own
  /// (`QueryCancelled`, a `QueryError` of a nested query) comes back as its case.
  @discardableResult
  public func execute(_ graph: QueryGraph, options: QueryOptions, onReply: (Reply) throws -> Void) throws(QueryError) -> QueryToken {
    try QueryError.catching {
      try execute(planned: { try $0.plan(current(graph, in: $0, options: options), window: options.itemWindow) }, options: options, onReply: onReply)
    }
  }

  /// Runs a plan made by `plan(_:options:)`, handing each reply to `onReply` as soon as it
  /// exists.
  @discardableResult
  public func execute(_ plan: ExecutionPlan, options: QueryOptions, onReply: (Reply) throws -> Void) throws(QueryError) -> QueryToken {
    try QueryError.catching { try execute(planned: { _ in plan }, options: options, onReply: onReply) }
  }

  /// The plan of `graph` over this index as it is now: what `execute` runs and `explain`
  /// shows.
  public func plan(_ graph: QueryGraph, options: QueryOptions) throws(QueryError) -> ExecutionPlan {
    try QueryError.catching {
      try index.readPassingErrors { connection in
        let context = try makeContext(connection, options: options)
        return try context.plan(current(graph, in: context, options: options), window: options.itemWindow)
      }
    }
  }

  /// A context for one execution (or one explanation) on `connection`, inside its read
  /// transaction: its token records the generation that transaction sees, and the catalogue
  /// and attribute ids are those of that generation (read once per generation).
  func makeContext(_ connection: Connection, options: QueryOptions) throws -> ExecutionContext {
    let generation = try SearchIndex.generation(in: connection)
    let token = QueryToken(now: options.clock.now, timeZone: options.clock.timeZone, generation: generation)
    let catalog = try index.queryCatalog(connection, generation: generation)
    let attributes = try index.cachedForGeneration("attribute-map", generation: generation) {
      try SQLCompiler.AttributeMap.load(connection, catalog: catalog)
    }
    let context = ExecutionContext(
      index: index, connection: connection, scope: options.scope, clock: options.clock, catalog: catalog, attributes: attributes,
      cancellation: options.cancellation, token: token, delegate: options.delegate, embedder: options.embedder)
    context.usesRankedIndex = options.usesRankedIndex
    context.distinctValueLimit = options.distinctValueLimit
    return context
  }

  private func execute(
    planned: (ExecutionContext) throws -> ExecutionPlan, options: QueryOptions, onReply: (Reply) throws -> Void
  ) throws -> QueryToken {
    // One moment decides expiry for the whole execution, even when the scope follows the
    // real clock.
    var options = options
    options.scope.now = options.scope.now
    var token: QueryToken?
    try withoutActuallyEscaping(onReply) { onReply in
    try index.readPassingErrors { connection in
      let context = try makeContext(connection, options: options)
      token = context.token
      defer {
        options.statementLog?.append(context.executedSQL)
        options.statementLog?.addItemRows(context.itemRowsRead)
        options.statementLog?.addItemsReadWhole(context.itemsReadWhole)
      }
      var run = Run(context: context, options: options, onReply: onReply)
      var plan = try planned(context)
      // A stage that compares with embeddings fails now when there are none, not after the
      // search before it has run.
      if plan.usesEmbeddings, try !index.hasEmbeddings(connection) { throw EmbeddingError.noEmbeddings(path: index.path) }
      var variables: [String: Value] = [:]
      var index = 0
      while index < plan.statements.count {
        let statement = plan.statements[index]
        run.keepsStreamedItems = statement.isLet || !statement.isTerminal
        let data = try run.statement(statement, at: index)
        run.results[index] = data
        if statement.isLet, let name = statement.name {
          variables[name] = Self.variableValue(data)
          // The rest of the query is bound, and planned, with the variable's value.
          let catalog = try self.index.queryVisibleCatalog(connection, scope: options.scope, generation: context.token.generation)
          let graph = try builder(options: options, variables: variables, catalog: catalog).build(plan.graph.syntax, source: plan.graph.source)
          plan = try context.plan(graph, window: options.itemWindow)
        }
        index += 1
      }
    }
    }
    guard let token else { throw QueryRuntimeError("the query did not run") }
    return token
  }

  /// Parses, checks and runs `text` in one call.
  @discardableResult
  public func run(_ text: String, options: QueryOptions, onReply: (Reply) throws -> Void) throws(QueryError) -> QueryToken {
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

/// The state of one execution: it walks the plan's steps and hands out the replies.
private struct Run {
  let context: ExecutionContext
  let options: QueryOptions
  let onReply: (Reply) throws -> Void
  var results: [Int: PipelineData] = [:]
  /// What the items of a statement's result carry, for those not whole
  /// (`ExecutionPlan.Statement.keepsPartialItems`).
  var carriedBy: [Int: Carried] = [:]
  /// Whether the statement running keeps the items it streams as replies (a `let`, whose
  /// value is its first item); otherwise its result holds none of them.
  var keepsStreamedItems = true

  mutating func statement(_ statement: ExecutionPlan.Statement, at position: Int) throws -> PipelineData {
    var data: PipelineData?
    var carried = Carried.whole
    switch statement.input {
    case .search: break  // the pipeline's first step is the SQL plan of the search
    case .reference(let index):
      data = results[index] ?? .items([])
      carried = carriedBy[index] ?? .whole
    case .merge(let indexes):
      data = merge(indexes)
      // Partial inputs all carry the same (fields and relevance); whole items serve too.
      carried = indexes.compactMap { carriedBy[$0] }.first ?? .whole
    }
    let (result, left) = try pipeline(statement.pipeline, data: data, carried: carried, emit: statement.isTerminal,
                                      keepingPartialItems: statement.keepsPartialItems)
    if left != .whole { carriedBy[position] = left }
    return result
  }

  /// The items of earlier statements, each once, as its first input has it, with its rank
  /// in every input (for `fuse`).
  private func merge(_ indexes: [Int]) -> PipelineData {
    var position: [String: Int] = [:]
    var merged: [ResultItem] = []
    var scored = false
    for (input, index) in indexes.enumerated() {
      if case .scoredItems = results[index] { scored = true }
      for (rank, item) in (results[index]?.resultItems ?? []).enumerated() {
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
    return scored ? .scoredItems(merged) : .items(merged)
  }

  /// The positions the Swift stage after step `offset` keeps among a number of items, when it
  /// says (`BoundStage.keptPositions(among:)`): a sample of 3 from a million matches makes 3
  /// items, not a million.
  private static func keptPositions(after offset: Int, in pipeline: ExecutionPlan.Pipeline) -> ((Int) -> [Int]?)? {
    guard offset + 1 < pipeline.steps.count, case .swift(let next) = pipeline.steps[offset + 1] else { return nil }
    return next.stage.keptPositions(among:)
  }

  /// When the Swift stage at `offset` scores each item by itself and only the first few of
  /// its order are kept, by the stage after it (`score ... | top 10`) or, as the last stage of
  /// an emitted reply, by the window (a terminal shows 25): the scorer and how many.
  private func keptBest(at offset: Int, in pipeline: ExecutionPlan.Pipeline, emit: Bool) -> (scorer: ItemScorer, count: Int)? {
    guard offset >= 0, offset < pipeline.steps.count, case .swift(let stage) = pipeline.steps[offset] else { return nil }
    let count: Int
    if offset + 1 < pipeline.steps.count {
      guard case .swift(let next) = pipeline.steps[offset + 1], let first = next.stage.keepsFirstScored else { return nil }
      count = first
    } else {
      guard emit, let window = pipeline.window else { return nil }
      count = window.first
    }
    return stage.stage.itemScorer(context: context).map { ($0, count) }
  }

  /// Runs the steps of `pipeline` over `start`; emits the result as a reply when `emit`,
  /// streaming item batches when the last step reads items from SQLite.
  private func pipeline(_ pipeline: ExecutionPlan.Pipeline, data start: PipelineData?, emit: Bool) throws -> PipelineData {
    try self.pipeline(pipeline, data: start, carried: .whole, emit: emit, keepingPartialItems: false).data
  }

  /// `pipeline(_:data:emit:)` from items that carry `start`; with `keepingPartialItems`
  /// partial items stay so at the end (for a later statement), with what they carry.
  private func pipeline(
    _ pipeline: ExecutionPlan.Pipeline, data start: PipelineData?, carried carriedAtStart: Carried, emit: Bool, keepingPartialItems: Bool
  ) throws -> (data: PipelineData, carried: Carried) {
    var data = start
    // What the items carry while they are not whole; a stage they cannot serve, a fork and
    // the reply get them read whole first.
    var carried = carriedAtStart
    // The rows a window's table would have had, when its items were cut before it.
    var uncutRows: Int?
    // A scoring stage that ran as its items were read (see `keptBest`).
    var scoredAlready: Int?
    // How many items the last stage scored, when it kept only the window's.
    var scoredUncut: Int?
    for (offset, step) in pipeline.steps.enumerated() where offset != scoredAlready {
      try context.cancellation.check()
      switch step {
      case .sql(let sql):
        let compiled = try context.compile(sql)
        if emit, offset == pipeline.steps.count - 1, sql.outputType == .items {
          // A window's count runs first, so every batch can say how many items there are.
          let total = try windowCount(pipeline.window)
          return (try stream(compiled, label: pipeline.label ?? QueryExecutor.defaultLabel(.items), stage: pipeline.stage, total: total), .whole)
        }
        // A Swift stage next that reads only some attributes gets items with only those;
        // the items it keeps are read whole before anything else sees them.
        if case .positions(let positions, let sortsRowids) = compiled {
          data = .items(try context.positions(positions, sortsRowids: sortsRowids, keeping: Self.keptPositions(after: offset, in: pipeline)))
          carried = .positions
        } else if case .rankedPositions(let listing) = compiled {
          data = .items(context.rankedPositions(listing, keeping: Self.keptPositions(after: offset, in: pipeline)))
          carried = .positions
        } else if emit, offset == pipeline.steps.count - 1, let perGroup = pipeline.window?.itemsPerGroup, case .groupedItems(_, let target) = compiled {
          let counts = try pipeline.window?.count.map { try context.compile($0) }
          let leading = try (pipeline.window?.leading ?? []).map { (step: try context.compile($0), items: $0.plan.limit ?? .max) }
          data = try context.groups(compiled, counts: counts, leading: leading, by: target, keepingAtMost: perGroup)
        } else if let perGroup = sql.itemsPerGroup, let counting = sql.groupCounting, case .groupedItems(_, let target) = compiled {
          data = try context.groups(compiled, counts: try context.compile(counting), by: target, keepingAtMost: perGroup)
        } else if case .numbers(let numbers, let values, let itemFields) = compiled, let needed = sql.partialAttributes {
          carried = itemFields ? .attributes(needed) : .numbers(needed)
          if case .swift(let next)? = pipeline.steps.dropFirst(offset + 1).first, carried.serves(next.stage),
            let best = keptBest(at: offset + 1, in: pipeline, emit: emit)
          {
            // Scored as they are read: only the best few are kept.
            let kept = try context.bestNumericItems(numbers, values: values, scorer: best.scorer, keeping: best.count)
            data = .scoredItems(kept.items)
            scoredAlready = offset + 1
            if offset + 2 == pipeline.steps.count { scoredUncut = kept.scored }
          } else {
            data = .items(try context.numericItems(numbers, values: values))
          }
        } else if case .sortWalk(let walk, let fallback, let limit, let values?) = compiled, let needed = sql.partialAttributes {
          data = .items(try context.sortedNumericItems(walk, fallback: fallback, limit: limit, values: values))
          carried = .attributes(needed)
        } else if offset + 1 < pipeline.steps.count, case .swift(let next) = pipeline.steps[offset + 1], let needed = next.stage.attributesRead,
          ExecutionPlan.takesPartialItems(next.stage), let items = try context.partialItems(compiled, attributes: needed)
        {
          data = items
          carried = .attributes(needed)
        } else {
          data = try context.materialize(compiled)
        }
      case .swift(let swift):
        // The last stage makes a row per item (`table title`) after stages that ran in Swift:
        // the window's rows are those of its first items, so only those are read whole (a
        // table of 50,000 scored matches read every record to show 25 rows).
        if emit, offset == pipeline.steps.count - 1, swift.stage.makesOneRowPerItem, let window = pipeline.window, window.count == nil,
          let items = data, items.resultItems.count > window.first
        {
          uncutRows = items.resultItems.count
          data = items.replacingItems(Array(items.resultItems.prefix(window.first)))
        }
        if !carried.serves(swift.stage) {
          data = try data.map(context.hydrate)
          carried = .whole
        } else if carried != .whole, let leading = swift.stage.leadingItemsRead, let items = data {
          // Its first few whole, the rest as they are.
          let all = items.resultItems
          let head = try context.hydrate(items.replacingItems(Array(all.prefix(leading)))).resultItems
          data = items.replacingItems(head + all.dropFirst(leading))
        }
        if let best = keptBest(at: offset, in: pipeline, emit: emit) {
          let kept = try context.bestScored(data?.resultItems ?? [], scorer: best.scorer, keeping: best.count)
          data = .scoredItems(kept.items)
          if offset + 1 == pipeline.steps.count { scoredUncut = kept.scored }
        } else {
          data = try swift.stage.execute(data ?? .items([]), context: context)
        }
        // A table, count or statistic made from partial items holds none of them.
        if ExecutionPlan.holdsNoItems(swift.stage) { carried = .whole }
      case .fork(_, let branches):
        if carried != .whole {
          data = try data.map(context.hydrate)
          carried = .whole
        }
        var last: PipelineData = data ?? .items([])
        for branch in branches { last = try self.pipeline(branch, data: data, emit: emit) }
        return (last, .whole)
      }
    }
    var total: Int?
    if emit, let perGroup = pipeline.window?.itemsPerGroup, case .groupedItems(let grouped) = data {
      data = .groupedItems(grouped.keepingFirstItems(perGroup))
    } else if emit, let window = pipeline.window, case .table(var table) = data {
      // A row per item: the rows of the window's items (and the count of them all), or of
      // every item, cut after they were made.
      if window.countsAll {
        total = try windowCount(window) ?? uncutRows ?? table.rows.count
      }
      if table.rows.count > window.first { table.rows = Array(table.rows.prefix(window.first)) }
      data = .table(table)
    } else if emit, let window = pipeline.window, var items = data {
      // Stages that ran in Swift are cut after they ran, before their items are read whole.
      if window.countsAll { total = scoredUncut ?? items.resultItems.count }
      if items.resultItems.count > window.first { items = items.replacingItems(Array(items.resultItems.prefix(window.first))) }
      data = items
    }
    if carried != .whole, emit || !keepingPartialItems {
      data = try data.map(context.hydrate)
      carried = .whole
    }
    let result = data ?? .items([])
    if emit {
      var reply = Reply(queryToken: context.token.id, label: pipeline.label ?? QueryExecutor.defaultLabel(result.type), content: result, stage: pipeline.stage)
      reply.total = total
      try onReply(reply)
    }
    return (result, carried)
  }

  /// The count of all the items a window cut, from its counting statement; nil when it has none.
  private func windowCount(_ window: ExecutionPlan.Window?) throws -> Int? {
    guard let count = window?.count, case .count(let n) = try context.materialize(context.compile(count)) else { return nil }
    return n
  }

  /// What items read from SQLite for a Swift stage carry when they are not whole.
  enum Carried: Equatable {
    case whole
    /// Only these attributes (`partialItems`), for stages that read no others.
    case attributes(Set<String>)
    /// Their rowids alone (`CompiledStep.positions`), for stages that read only positions.
    case positions
    /// Rowids, relevance and only these numbers (`CompiledStep.numbers` without item
    /// fields), for stages that read no item field.
    case numbers(Set<String>)

    /// Whether `stage` can run on items that carry this.
    func serves(_ stage: any BoundStage) -> Bool {
      switch self {
      case .whole: true
      case .attributes(let names): ExecutionPlan.takesPartialItems(stage) && (stage.attributesRead.map { $0.isSubset(of: names) } ?? false)
      case .positions: stage.readsOnlyPositions
      case .numbers(let names):
        ExecutionPlan.takesPartialItems(stage) && !stage.readsItemFields && (stage.attributesRead.map { $0.isSubset(of: names) } ?? false)
      }
    }
  }


  /// Streams the items of `step` in batches: the first results reach the reader before the
  /// query ends.
  private func stream(_ step: CompiledStep, label: String, stage: String, total: Int? = nil) throws -> PipelineData {
    var all: [ResultItem] = []
    var pendingBatch: [ResultItem]?
    func reply(_ items: [ResultItem], isPartial: Bool) -> Reply {
      var reply = Reply(queryToken: context.token.id, label: label, content: .items(items), stage: stage, isPartial: isPartial)
      reply.total = total
      return reply
    }
    try context.items(step, batchSize: options.batchSize) { batch in
      if let previous = pendingBatch { try onReply(reply(previous, isPartial: true)) }
      pendingBatch = batch
      // A reply's items are the caller's once handed over: only a `let` binds them again
      // (no later statement reads a reply). Kept, a quarter of a million items printed as
      // JSON held 1.8 GB.
      if keepsStreamedItems { all.append(contentsOf: batch) }
    }
    try onReply(reply(pendingBatch ?? [], isPartial: false))
    return .items(all)
  }
}
