import SearchIndex

/// How a query runs, decided once per graph: which stages SQLite runs and how (a statement
/// over the items, the ranked index's top k, an aggregate), which run in Swift, and where a
/// pipeline forks. `QueryExecutor.execute` and `Explainer` both walk this one value, so what
/// `explain` shows is what runs.
///
/// The SQL steps hold `SQLPlan`s (what to compute, in the query's terms), not SQLite text:
/// the statements are compiled from them by `ExecutionContext.compile(_:)`, the one place
/// that knows SQLite's dialect, for both the executor and `explain`.
public struct ExecutionPlan: Sendable {
  /// One statement of the query: where its items come from and the steps that follow.
  public struct Statement: Sendable {
    public var name: String?
    public var isLet: Bool
    /// True when no later statement uses it, so its result is a reply.
    public var isTerminal: Bool
    public var outputType: PipelineType
    public var input: Input
    public var pipeline: Pipeline
    /// True for a statement later statements read (not a `let`) that ends in SQLite's items,
    /// when none of them needs records first (`needsNoRecordFirst`): its items keep only their
    /// fields and relevance until a later stage needs more, so `merge(a, b) | count` reads no
    /// record.
    public var keepsPartialItems = false
  }

  /// Where a statement's items come from.
  public enum Input: Sendable {
    /// A search of the index: the pipeline starts with an SQL step over this predicate.
    case search(BoundExpression)
    /// The result of an earlier statement.
    case reference(Int)
    /// The items of earlier statements, each once, with their rank in every input.
    case merge([Int])
  }

  /// Steps in order, and what the reply of their result is called.
  public struct Pipeline: Sendable {
    public var steps: [Step]
    /// The reply's label (`as "label"`, or the statement's name); nil for the default label
    /// of the result's type.
    public var label: String?
    /// The stage whose result the reply is (`search` for a plain search).
    public var stage: String
    /// Set when the reply is cut to its first items (`QueryOptions.itemWindow`).
    public var window: Window?
  }

  /// How a terminal reply of items is cut to its first items: a screenful of a search that
  /// matches half the index reads a screenful, and a count says how many there were.
  public struct Window: Sendable {
    public var first: Int
    /// The statement that counts every item of the uncut reply, when the pipeline ends in
    /// SQL and the window asks for the count (the items step then reads only `first`).
    public var count: SQLStep?
    /// Whether the reply says how many items the uncut reply holds (`Reply.total`).
    public var countsAll: Bool
    /// For a reply of groups: the items each group keeps (`ItemWindow.itemsPerGroup`).
    public var itemsPerGroup: Int?
    /// For a reply of groups counted in SQL: the first `leadingItems` items in order (from
    /// the ranked index for a text search), then ten times as many, from which the groups
    /// usually take their few without the statement that sorts every match. Thirty groups
    /// sharing a quarter of a million matches expect nine items each among the first 500:
    /// one of them falling short of five was likely enough to cost 3 s at 1M.
    public var leading: [SQLStep] = []
  }

  /// How many items a window's first `leading` step reads (the second, ten times as many).
  /// A task-local so that tests can reach it with a few items.
  @TaskLocal package static var leadingItems = 500

  /// The most items a fork's branches share: a limited SQL step before a fork runs once when
  /// its limit is at most this; with a larger one each branch runs it, as its own statement
  /// that may read less (a count, a group's keys) than every item whole.
  static let itemsSharedByForks = 1000

  /// One step of a pipeline.
  public indirect enum Step: Sendable {
    /// Stages that SQLite runs as one plan.
    case sql(SQLStep)
    /// A stage that runs in Swift over the data so far.
    case swift(SwiftStep)
    /// Branches that each continue from the data (or the SQL plan) so far. `absorbed` are
    /// the stages SQLite runs before the fork; each branch's first SQL step repeats them.
    case fork(absorbed: [StageSummary], branches: [Pipeline])
  }

  /// A stage as `explain` names it.
  public struct StageSummary: Sendable {
    public var name: String
    public var explanation: String
    public var outputType: PipelineType
  }

  /// Stages pushed into one SQL plan, and how the plan runs.
  public struct SQLStep: Sendable {
    /// How the plan is answered.
    public enum Operation: Sendable {
      /// The matching items, in the plan's order, read by one statement.
      case items
      /// The exact top k of an OR-ranked text search from the ranked index, then the
      /// items fetched in rank order.
      case rankedTopK
      /// The matching items grouped (in Swift) by an attribute's values.
      case groupedItems(AttributeTarget)
      /// The number of matching items.
      case count
      /// Items per value of an attribute.
      case groupCount(AttributeTarget)
      /// Statistics over the matching items, optionally per value of an attribute.
      case statistics([StatisticRequest], by: AttributeTarget?)
    }

    public var plan: SQLPlan
    public var operation: Operation
    /// The stages absorbed into the plan, in order; the first `inherited` of them were
    /// absorbed before a fork (and `explain` shows them there).
    public var stages: [StageSummary]
    public var inherited: Int
    /// True when the Swift stage after an `.items` step reads only the items' positions
    /// (`BoundStage.readsOnlyPositions`): the step then reads their rowids, not their rows.
    public var positionsOnly = false
    /// The attributes the Swift stage after an `.items` step reads, when items with only
    /// those serve it (`takesPartialItems`): numbers and dates alone are then read from the
    /// value table instead of the records (`CompiledStep.numbers`).
    public var partialAttributes: Set<String>?
    /// Whether that stage reads the items' fields or engagement (`BoundStage.readsItemFields`):
    /// when not, the numbers form reads no item row either.
    public var partialItemFields = true
    /// For a `.groupedItems` step: how many of each group's first items the Swift stage after
    /// it reads (`BoundStage.itemsPerGroupRead`). The groups' counts come from SQLite first
    /// (`groupCounting`), then the items in order until each group has that many, and only
    /// those are read whole: the latest mail of each sender no longer reads every mail.
    public var itemsPerGroup: Int?

    /// The step that counts the items of each group of a `.groupedItems` step.
    public var groupCounting: SQLStep? {
      guard case .groupedItems(let group) = operation else { return nil }
      var counting = plan
      counting.groupBy = nil
      counting.aggregate = .groupCount(group)
      return SQLStep(plan: counting, operation: .groupCount(group), stages: stages, inherited: inherited)
    }

    /// The type of the step's result.
    public var outputType: PipelineType {
      switch operation {
      case .items, .rankedTopK: .items
      case .groupedItems: .groupedItems
      case .count: .count
      case .groupCount: .table
      case .statistics(let requests, let group): group == nil && requests.count == 1 ? .statistic : .table
      }
    }
  }

  /// A stage that runs in Swift.
  public struct SwiftStep: Sendable {
    public var summary: StageSummary
    public var stage: any BoundStage
  }

  public var statements: [Statement]

  /// True when a stage of the plan that runs in Swift compares items with embeddings
  /// (`BoundStage.usesEmbeddings`).
  public var usesEmbeddings: Bool {
    func uses(_ pipeline: Pipeline) -> Bool {
      pipeline.steps.contains { step in
        switch step {
        case .sql: false
        case .swift(let swift): swift.stage.usesEmbeddings
        case .fork(_, let branches): branches.contains(where: uses)
        }
      }
    }
    return statements.contains { uses($0.pipeline) }
  }
  /// The graph the plan was made from: a `let` statement's value binds the rest of it.
  public var graph: QueryGraph
}

extension ExecutionPlan {
  /// Plans `graph`: stages are pushed into the SQL plan before them while they give the
  /// same result there, and each SQL plan gets its operation. `ranked` says whether an
  /// items plan is answered by the ranked index.
  /// `window` cuts the replies of items no other statement reads.
  init(graph: QueryGraph, window: ItemWindow? = nil, ranked: (SQLPlan) throws -> Bool) rethrows {
    var statements: [Statement] = []
    var read = Set<Int>()
    for statement in graph.statements {
      switch statement.source {
      case .reference(let index): read.insert(index)
      case .merge(let indexes): read.formUnion(indexes)
      case .search: break
      }
    }
    for (position, statement) in graph.statements.enumerated() {
      var sql: SQLPlan?
      if case .search(let predicate) = statement.source { sql = SQLPlan(predicate: predicate) }
      let input: Input = switch statement.source {
      case .search(let predicate): .search(predicate)
      case .reference(let index): .reference(index)
      case .merge(let indexes): .merge(indexes)
      }
      // A table of a row per item ends in the stage that makes it: cut before it.
      let rowsOfItems: Bool = if statement.outputType == .table, case .stage(let last)? = statement.nodes.last?.kind {
        last.makesOneRowPerItem
      } else {
        false
      }
      let cut = statement.isTerminal && !read.contains(position)
        && ([.items, .scoredItems].contains(statement.outputType) || (statement.outputType == .groupedItems && window?.itemsPerGroup != nil)
          || rowsOfItems)
      let pipeline = try Self.pipeline(
        statement.nodes, sql: sql, absorbed: [], label: statement.name, stage: "search", window: cut ? window : nil, ranked: ranked)
      statements.append(Statement(
        name: statement.name, isLet: statement.isLet, isTerminal: statement.isTerminal, outputType: statement.outputType,
        input: input, pipeline: pipeline))
    }
    // A statement that ends in SQLite's items and that only statements whose first stage
    // needs no record read (a count, a top, a limit; or a reply the window cuts) keeps its
    // items without records. One whose reader needs records reads them in one statement.
    for position in statements.indices where read.contains(position) && !statements[position].isLet {
      guard case .sql(var step)? = statements[position].pipeline.steps.last, case .items = step.operation else { continue }
      let readers = statements.filter { reader in
        switch reader.input {
        case .reference(let index): index == position
        case .merge(let indexes): indexes.contains(position)
        case .search: false
        }
      }
      guard readers.allSatisfy(Self.needsNoRecordFirst) else { continue }
      step.partialAttributes = []
      step.partialItemFields = true
      statements[position].pipeline.steps[statements[position].pipeline.steps.count - 1] = .sql(step)
      statements[position].keepsPartialItems = true
    }
    self.init(statements: statements, graph: graph)
  }

  /// The steps of `nodes`, starting from a pending SQL plan (with the stages it absorbed)
  /// or from data.
  private static func pipeline(
    _ nodes: [QueryGraph.Node], sql start: SQLPlan?, absorbed inherited: [StageSummary], label startLabel: String?, stage startStage: String,
    window itemWindow: ItemWindow? = nil, ranked: (SQLPlan) throws -> Bool
  ) rethrows -> Pipeline {
    var steps: [Step] = []
    var pending = start
    var absorbed = inherited
    var label = startLabel
    var stage = startStage
    /// `next` is the Swift stage that follows the SQL step, if any.
    func finishSQL(before next: (any BoundStage)? = nil) throws {
      guard let plan = pending else { return }
      var step = SQLStep(plan: plan, operation: try operation(plan, ranked: ranked), stages: absorbed, inherited: inherited.count)
      if case .items = step.operation, next?.readsOnlyPositions == true { step.positionsOnly = true }
      // Items, or every match of a ranked search (no limit) for a stage that reads only some
      // attributes, which can be listed as an items step's are.
      let listsItems = switch step.operation {
      case .items: true
      case .rankedTopK: plan.limit == nil && next?.attributesRead != nil
      default: false
      }
      if listsItems, let next, Self.takesPartialItems(next) {
        step.partialAttributes = next.attributesRead
        step.partialItemFields = next.readsItemFields
      }
      if case .groupedItems = step.operation, let perGroup = next?.itemsPerGroupRead { step.itemsPerGroup = perGroup }
      steps.append(.sql(step))
      pending = nil
      absorbed = []
    }
    var window: Window?
    /// Cuts the pending SQL step to the window's first items, with a statement that counts
    /// them all; false when the step is no plain list of items or is as short already.
    func cutPending(to itemWindow: ItemWindow) -> Bool {
      guard var plan = pending, plan.aggregate == nil, plan.groupBy == nil else { return false }
      window = Window(first: itemWindow.first, countsAll: itemWindow.countsAll, itemsPerGroup: itemWindow.itemsPerGroup)
      if let limit = plan.limit, limit <= itemWindow.first {
        window = nil  // never longer than the window
        return true
      }
      if itemWindow.countsAll {
        var counting = plan
        counting.aggregate = .count
        window?.count = SQLStep(plan: counting, operation: .count, stages: absorbed, inherited: inherited.count)
      }
      plan.limit = itemWindow.first
      pending = plan
      return true
    }
    var windowed = false
    for (position, node) in nodes.enumerated() {
      switch node.kind {
      case .stage(let bound):
        let summary = StageSummary(name: node.name, explanation: bound.explanation, outputType: node.outputType)
        stage = node.name
        if let nodeLabel = node.label { label = nodeLabel }
        if var plan = pending, bound.push(into: &plan) {
          pending = plan
          absorbed.append(summary)
          continue
        }
        // The last stage makes a row per item: the window cuts the items it reads.
        if let itemWindow, position == nodes.count - 1, bound.makesOneRowPerItem, cutPending(to: itemWindow) { windowed = true }
        if var plan = pending {
          bound.narrow(&plan)
          pending = plan
        }
        try finishSQL(before: bound)
        steps.append(.swift(SwiftStep(summary: summary, stage: bound)))
      case .fork(let branches):
        // A few items (`top 10`, `limit 50`) are read once, and each branch goes on from
        // them: a branch that started from the SQL step would run its search again (a search
        // page's six facets of a ranked top 10 ran it six times).
        if let limit = pending?.limit, limit <= Self.itemsSharedByForks { try finishSQL() }
        let shared = pending == nil ? [] : absorbed
        let forked = try branches.map { branch in
          try Self.pipeline(branch, sql: pending, absorbed: shared, label: branch.last?.label, stage: stage, ranked: ranked)
        }
        steps.append(.fork(absorbed: shared, branches: forked))
        return Pipeline(steps: steps, label: forked.last?.label, stage: forked.last?.stage ?? stage)
      }
    }
    // A window cuts the last SQL step's items: the step reads the first ones, and a second
    // statement counts them all (stages that run in Swift are cut after they run).
    if let itemWindow, !windowed, !cutPending(to: itemWindow) {
      window = Window(first: itemWindow.first, countsAll: itemWindow.countsAll, itemsPerGroup: itemWindow.itemsPerGroup)
      if let plan = pending, plan.aggregate == nil, plan.limit == nil, let group = plan.groupBy, itemWindow.itemsPerGroup != nil {
        // Groups keeping a few items each: their counts from SQLite (one index for a text
        // attribute), then the items in order until every group has its few.
        var counting = plan
        counting.groupBy = nil
        counting.aggregate = .groupCount(group)
        window?.count = SQLStep(plan: counting, operation: .groupCount(group), stages: absorbed, inherited: inherited.count)
        for size in [Self.leadingItems, 10 * Self.leadingItems] {
          var leading = plan
          leading.groupBy = nil
          leading.limit = size
          window?.leading.append(SQLStep(plan: leading, operation: try operation(leading, ranked: ranked), stages: absorbed, inherited: inherited.count))
        }
      }
    }
    try finishSQL()
    return Pipeline(steps: steps, label: label, stage: stage, window: window)
  }

  private static func operation(_ plan: SQLPlan, ranked: (SQLPlan) throws -> Bool) rethrows -> SQLStep.Operation {
    switch plan.aggregate {
    case .count?: return .count
    case .groupCount(let target)?: return .groupCount(target)
    case .statistics(let requests, let group)?: return .statistics(requests, by: group)
    case nil:
      if let group = plan.groupBy { return .groupedItems(group) }
      return try ranked(plan) ? .rankedTopK : .items
    }
  }
}

extension ExecutionPlan {
  /// Whether `stage` gives items (which may stay partial) rather than groups or aggregates.
  static func keepsItems(_ stage: any BoundStage) -> Bool {
    stage.outputType == .items || stage.outputType == .scoredItems
  }

  /// Whether `stage` gives a table, a count, a statistic or text: values read from its input
  /// items, none of the items themselves, so items with only the attributes it reads serve.
  static func holdsNoItems(_ stage: any BoundStage) -> Bool {
    switch stage.outputType {
    case .table, .count, .statistic, .text: true
    default: false
    }
  }

  /// Whether the items `reader` starts from need no record before its first stage has run:
  /// that stage reads only their fields and order, or nothing runs before a window cuts the
  /// reply (`keepsPartialItems`).
  static func needsNoRecordFirst(_ reader: Statement) -> Bool {
    switch reader.pipeline.steps.first {
    case .swift(let swift)?: takesPartialItems(swift.stage) && swift.stage.attributesRead?.isEmpty == true
    case nil: reader.pipeline.window != nil
    default: false
    }
  }

  /// Whether items with only the attributes `stage` reads can serve it: it gives items (the
  /// ones it keeps are read whole later) or values made from them, not groups of them.
  static func takesPartialItems(_ stage: any BoundStage) -> Bool {
    keepsItems(stage) || holdsNoItems(stage)
  }
}
