import SearchIndex

/// A stage kind in the registry: it describes itself and binds parsed calls into executable
/// stages. Built-in stages live in `Stages/`; apps add their own (`CustomStage`, `.stage`
/// files). The registry, the type checker, help text and the planner's schema all read the
/// same descriptor.
public protocol StageDefinition: Sendable {
  var descriptor: StageDescriptor { get }
  /// Binds a call whose input has type `input` (already checked against the signatures).
  /// Problems are reported through `context` with spans; return nil after reporting one.
  func bind(_ call: StageSyntax, input: PipelineType, context: inout StageBindingContext) -> (any BoundStage)?
}

/// A bound, type-checked stage ready to run.
public protocol BoundStage: Sendable {
  /// The type the stage produces.
  var outputType: PipelineType { get }
  /// One line for `explain`.
  var explanation: String { get }
  /// Absorbs the stage into the SQL plan of the stages before it, when that gives the same
  /// result; returns false to run `execute` in Swift instead.
  func push(into plan: inout SQLPlan) -> Bool
  /// For a stage that runs in Swift after the SQL plan: narrows the plan to the items the
  /// stage can keep (a filter that drops only items it would drop itself), so SQLite reads
  /// fewer. `extract "Oregon"` after `group by stateOrProvince` needs only the items whose
  /// state folds to "oregon", not every group's. No change by default.
  func narrow(_ plan: inout SQLPlan)
  /// Runs the stage over its input.
  func execute(_ input: PipelineData, context: any StageContext) throws -> PipelineData
  /// The attributes `execute` reads of its input items, when it reads only those (the item
  /// fields, relevance and scores always come): items read from SQLite for it then decode
  /// only these, and only the items it keeps are read whole. Nil (the default) when it may
  /// read any attribute.
  var attributesRead: Set<String>? { get }
  /// True when `execute` reads nothing of its input items but their order, relevance and
  /// scores: no attribute and no item field (not even the identifier). Items read from
  /// SQLite for it are then rowids alone, read from an index rather than from the rows that
  /// hold the records, and only the items it keeps are read whole. False by default.
  var readsOnlyPositions: Bool { get }
  /// For a stage that reads only positions: the positions (ascending) of the items it keeps
  /// out of `count`, when they depend on nothing but the count; the items at the others are
  /// then never made, and `execute` is given the kept ones. Nil (the default): all of them.
  func keptPositions(among count: Int) -> [Int]?
  /// The columns of the table this stage produces, when binding knows them (`stats ... by`,
  /// `table title, rating`, a count of groups); for groups, the column their key becomes.
  /// The next stage checks the columns it names against them (`StageBindingContext.inputColumns`).
  /// Nil (the default) when not known until the table arrives.
  var outputColumns: [String]? { get }
  /// False when `execute` reads no item field (identifier, domain, content type, expiry,
  /// protection) and no engagement of its input items, only `attributesRead`, relevance and
  /// scores: items read for it after a text search, when those attributes are numbers, are
  /// then rowids, relevance and the numbers, and no item row is read. True by default.
  var readsItemFields: Bool { get }
  /// True when `execute` compares items with embeddings (`similarity(...)`): a query with
  /// such a stage fails before it reads anything when the index has none, instead of after
  /// its search (2 s over a million items). False by default.
  var usesEmbeddings: Bool { get }
  /// For a stage over groups that reads only each group's first items (and its count): how
  /// many (`select first` one, `select nth 3` three). The groups then hold only those, read
  /// in order after SQLite counted every group. Nil (the default): every item.
  var itemsPerGroupRead: Int? { get }
  /// For a stage that reads only positions (or only `attributesRead`) but lists a few of its
  /// first items: how many of them it reads whole (`text` lists five and counts the rest).
  /// Nil (the default): none beyond what it declares.
  var leadingItemsRead: Int? { get }
  /// True when `execute` makes one row of a table per input item, in the items' order, each
  /// from its item alone (`table title, rating`): a reply cut to its first rows is the
  /// table of the first items, so a terminal's window reads only those (and counts the
  /// rest). False by default.
  var makesOneRowPerItem: Bool { get }
  /// For a stage that scores each item by itself and orders the items best first, ties in
  /// their input order (`score`): a function that sets one item's score as `execute` does.
  /// When the stage after it keeps only the first few (`keepsFirstScored`), the executor
  /// keeps the best few as it scores the items, instead of holding and ordering every one
  /// (`top 3` of a quarter of a million scored trails). Nil (the default) for other stages.
  func itemScorer(context: any StageContext) -> ItemScorer?
  /// Over scored items in best-first order: how many of the first the stage keeps, in that
  /// order, changing nothing else (`top 10`, `limit 10`). Nil (the default) otherwise.
  var keepsFirstScored: Int? { get }
}

/// Sets one item's score (and its terms) as a scoring stage's `execute` does.
public typealias ItemScorer = (inout ResultItem) throws -> Void

extension BoundStage {
  public func push(into plan: inout SQLPlan) -> Bool { false }
  public func narrow(_ plan: inout SQLPlan) {}
  public var attributesRead: Set<String>? { nil }
  public var readsOnlyPositions: Bool { false }
  public func keptPositions(among count: Int) -> [Int]? { nil }
  public var outputColumns: [String]? { nil }
  public var readsItemFields: Bool { true }
  public var usesEmbeddings: Bool { false }
  public var itemsPerGroupRead: Int? { nil }
  public var leadingItemsRead: Int? { nil }
  public var makesOneRowPerItem: Bool { false }
  public func itemScorer(context: any StageContext) -> ItemScorer? { nil }
  public var keepsFirstScored: Int? { nil }
}
