import Foundation
import SearchIndex

/// An attribute read from the value table, a number or a short text (`CompiledStep.numbers`).
struct NumericValue {
  var name: String
  var type: AttributeType
}

/// The SQLite statements of one SQL step of an `ExecutionPlan`, compiled for an execution
/// (or for `explain`, which shows them without running them).
enum CompiledStep {
  case items(SQLCompiler.Compiled)
  /// The items' rowids alone, for a stage that reads only positions; `sortsRowids` when the
  /// executor puts them in rowid order (`SQLCompiler.positionsQuery`).
  case positions(SQLCompiler.Compiled, sortsRowids: Bool)
  /// The positions of every visible match of a text search the ranked index answers, in rank
  /// order, with their relevance: its every-match listing (`rankedListing`), no item row read
  /// (`search "review" | sample 5` at 1M read 200,000 rows to order them). Empty for `explain`.
  case rankedPositions([SearchHit])
  /// A sort with a limit: the walk of the sorted attribute's first index entries, and the
  /// full sort of every match, run when the walk yields fewer than `limit` items. With
  /// `values`, both statements select the numbers form (`SQLCompiler.valueColumns`), as
  /// `numbers` does.
  case sortWalk(SQLCompiler.Compiled, fallback: SQLCompiler.Compiled, limit: Int, values: [NumericValue]? = nil)
  /// Items for a Swift stage that reads only numbers and dates: their fields and those values
  /// (`SQLCompiler.numericItemsQuery`), not their records.
  /// Without `itemFields`, rowids, relevance and the values alone.
  case numbers(SQLCompiler.Compiled, values: [NumericValue], itemFields: Bool)
  case ranked(RankedPlan, fallback: SQLCompiler.Compiled)
  case groupedItems(SQLCompiler.Compiled, by: AttributeTarget)
  case count(SQLCompiler.Compiled)
  case groupCount(SQLCompiler.Compiled, by: AttributeTarget)
  /// One statement for all the statistics (a column each), or one per statistic and, with a
  /// group, the statement that lists every group (a group whose items lack the attribute
  /// still gets a row).
  case statistics([(requests: [StatisticRequest], statement: SQLCompiler.Compiled)], groups: SQLCompiler.Compiled?, by: AttributeTarget?)
}

extension ExecutionContext {
  /// Plans `graph` over this index: which stages run in SQLite, and whether OR-ranked text
  /// searches take the ranked index (when `usesRankedIndex` and the file has a current one).
  public func plan(_ graph: QueryGraph, window: ItemWindow? = nil) throws -> ExecutionPlan {
    try ExecutionPlan(graph: graph, window: window, ranked: answersWithRankedIndex)
  }

  /// True when the items of `plan` come from the ranked index's top k.
  func answersWithRankedIndex(_ plan: SQLPlan) throws -> Bool {
    guard usesRankedIndex, plan.aggregate == nil, plan.groupBy == nil else { return false }
    var compiler = self.compiler()
    guard try compiler.rankedPlan(plan) != nil else { return false }
    return try hasRankedIndex()
  }

  /// Compiles the statements of `step`. `resolvingSimilar` first finds the hits of its
  /// `similar` searches (which embeds their phrases); `explain` shows the statements without.
  func compile(_ step: ExecutionPlan.SQLStep, resolvingSimilar: Bool = true) throws -> CompiledStep {
    let plan = step.plan
    var compiler = resolvingSimilar ? try self.compiler(for: plan) : self.compiler()
    var listing: [SearchHit]?
    switch step.operation {
    case .items, .groupedItems:
      listing = try rankedListing(for: plan, resolving: resolvingSimilar)
      compiler.rankedRelevance = listing.map(Self.relevanceByRowid)
    default: break
    }
    switch step.operation {
    case .items:
      if step.positionsOnly, let (positions, sortsRowids) = try compiler.positionsQuery(plan) {
        return .positions(positions, sortsRowids: sortsRowids)
      }
      // A text search alone, in relevance order, with only positions wanted: the ranked
      // index's listing is every match already.
      if step.positionsOnly, let listing, Self.listingIsTheItems(of: plan) { return .rankedPositions(listing) }
      // A Swift stage next that reads only numbers gets them, not the records.
      let numeric = step.partialAttributes.flatMap(numericValues)
      if let numeric, let numbers = try numbers(plan, values: numeric, itemFields: step.partialItemFields, listing: listing, compiler: &compiler) {
        return numbers
      }
      compiler.valueColumns = numeric?.ids
      let walks = compiler.canWalkSortIndex(plan) && plan.limit != nil
      // A sort's walk and its fallback keep the fields (`sortedNumericItems` serves stages
      // that read them); a plain listing leaves them out when the stage reads none.
      compiler.valueColumnsAlone = numeric != nil && !step.partialItemFields && !walks
      let sorted = try compiler.itemsQuery(plan)
      let whole: CompiledStep = numeric.map { .numbers(sorted, values: $0.values, itemFields: !compiler.valueColumnsAlone) } ?? .items(sorted)
      guard walks, let limit = plan.limit else { return whole }
      compiler.walksSortIndex = true
      let walk = try compiler.itemsQuery(plan)
      // A plan the walk does not answer compiles to the same statement.
      return walk.sql == sorted.sql ? whole : .sortWalk(walk, fallback: sorted, limit: limit, values: numeric?.values)
    case .rankedTopK:
      // Every match of a ranked search for a Swift stage that reads only numbers: the numbers
      // form with the ranked index's relevance, as an items step has (an OR of two words in
      // 390,000 items read and decoded every record for `score ... recency(...)`).
      if plan.limit == nil, let numeric = step.partialAttributes.flatMap(numericValues),
        let listing = try rankedListing(for: plan, resolving: resolvingSimilar)
      {
        compiler.rankedRelevance = Self.relevanceByRowid(listing)
        if let numbers = try numbers(plan, values: numeric, itemFields: step.partialItemFields, listing: listing, compiler: &compiler) {
          return numbers
        }
        compiler.rankedRelevance = nil
      }
      let fallback = try compiler.itemsQuery(plan)
      guard let ranked = try compiler.rankedPlan(plan) else { return .items(fallback) }
      return .ranked(ranked, fallback: fallback)
    case .groupedItems(let target): return .groupedItems(try compiler.itemsQuery(plan), by: target)
    case .count: return .count(try compiler.countQuery(plan))
    case .groupCount(let target): return .groupCount(try compiler.groupCountQuery(plan, by: target), by: target)
    case .statistics(let requests, let group):
      // Counting each group's items is a group count (`stats count by keywords`), whose
      // statement reads the value indexes where it can instead of joining every item's values.
      if let group, requests.count == 1, requests[0].function == .count, requests[0].target == nil {
        return .statistics([(requests, try compiler.groupCountQuery(plan, by: group))], groups: nil, by: group)
      }
      if let combined = try compiler.statisticsQuery(plan, requests, by: group) {
        return .statistics([(requests, combined)], groups: nil, by: group)
      }
      let statements = try requests.map { request in ([request], try compiler.statisticQuery(plan, request, by: group)) }
      // A median or a deviation by an attribute lists its groups itself (`statisticQuery`).
      if requests.count == 1, SQLCompiler.listsEveryGroup(requests[0], by: group) {
        return .statistics(statements, groups: nil, by: group)
      }
      return .statistics(statements, groups: try group.map { try compiler.groupCountQuery(plan, by: $0) }, by: group)
    }
  }

  /// Whether the ranked listing of `plan`'s search (every visible match in rank order) is
  /// the plan's items as they are: the search is its only test, in relevance order, with no
  /// limit, aggregate or group.
  static func listingIsTheItems(of plan: SQLPlan) -> Bool {
    guard case .matchAll = plan.predicateWithoutRankingSearch else { return false }
    return plan.rankingSimilar == nil && plan.sort.allSatisfy { $0 == .relevance } && plan.limit == nil && plan.aggregate == nil
      && plan.groupBy == nil
  }

  /// The relevance of each hit of a ranked listing, by rowid (`SQLCompiler.rankedRelevance`).
  static func relevanceByRowid(_ listing: [SearchHit]) -> [Int64: Double] {
    Dictionary(listing.map { ($0.id, $0.score) }, uniquingKeysWith: { first, _ in first })
  }

  /// The ranked index's listing of every visible match of `plan`'s search, in rank order
  /// (score descending, then rowid), when the ranked index answers that search. By rowid it
  /// is `SQLCompiler.rankedRelevance`, the relevance a statement that sorts or groups the
  /// matches gives them, the same as the ranked top k's (an OR's BM25F; an AND's the
  /// full-text index's own, bit for bit, read from the postings instead of FTS5's `bm25` per
  /// match: 1.4 µs each, 0.35 s for a word in a quarter of a million items). Empty without
  /// `resolving` (`explain`); nil for other searches, or when the file has no current ranked
  /// index.
  func rankedListing(for plan: SQLPlan, resolving: Bool) throws -> [SearchHit]? {
    guard usesRankedIndex, let search = plan.rankingSearch else { return nil }
    var ranking = SQLPlan(predicate: plan.predicate)
    ranking.sort = [.relevance]
    // The ranked index takes an AND as a top k (`rankedPlan`); every match is asked below.
    if search.requireAll { ranking.limit = 1 }
    var compiler = self.compiler()
    guard let ranked = try compiler.rankedPlan(ranking), try hasRankedIndex() else { return nil }
    guard resolving else { return [] }
    // The scores of every visible match, as the ranked listing gives them; the statement
    // tests the rest of the predicate itself.
    var matches = ranked
    matches.k = nil
    matches.filter = .scopeOnly
    return try rankedHits(matches)
  }

  /// The items of a compiled items step, in batches of `batchSize` (the last call may be
  /// shorter); other steps have no items to stream.
  func items(_ step: CompiledStep, batchSize: Int = .max, _ batch: ([ResultItem]) throws -> Void) throws {
    switch step {
    case .ranked(let ranked, let fallback):
      // The plan chose the ranked index; a file whose index went stale since is read
      // through FTS5 instead, with the same results.
      if try rankedItems(ranked, batchSize: batchSize, batch) { return }
      try items(fallback, batchSize: batchSize, batch)
    case .items(let compiled), .groupedItems(let compiled, _):
      try items(compiled, batchSize: batchSize, batch)
    case .sortWalk(let walk, let fallback, let limit, let values):
      if let values { return try wholeItems(sortedNumericItems(walk, fallback: fallback, limit: limit, values: values), batchSize: batchSize, batch) }
      try sortedItems(walk, fallback: fallback, limit: limit, batchSize: batchSize, batch)
    case .positions(let compiled, let sortsRowids):
      try wholeItems(positions(compiled, sortsRowids: sortsRowids), batchSize: batchSize, batch)
    case .rankedPositions(let listing):
      try wholeItems(rankedPositions(listing), batchSize: batchSize, batch)
    case .numbers(let compiled, let values, _):
      try wholeItems(numericItems(compiled, values: values), batchSize: batchSize, batch)
    case .count, .groupCount, .statistics:
      preconditionFailure("an aggregate step has no items")
    }
  }

  /// Partial items (positions, numbers) read whole after all, in batches.
  private func wholeItems(_ partial: [ResultItem], batchSize: Int, _ batch: ([ResultItem]) throws -> Void) throws {
    var batches = ItemBatches(size: batchSize, cancellation: cancellation)
    for item in try hydrate(.items(partial)).resultItems { try batches.add(item, to: batch) }
    try batches.finish(to: batch)
  }

  /// The first `limit` items of a sort: those of the index walk when it finds `limit` of
  /// them, otherwise those of the full sort (the walk's are then dropped).
  private func sortedItems(
    _ walk: SQLCompiler.Compiled, fallback: SQLCompiler.Compiled, limit: Int, batchSize: Int,
    attributes: Set<String>? = nil, _ batch: ([ResultItem]) throws -> Void
  ) throws {
    var walked: [ResultItem] = []
    try items(walk, batchSize: .max, attributes: attributes) { walked.append(contentsOf: $0) }
    if walked.count < limit, let wider = widerWalk(walk, found: walked.count, limit: limit) {
      walked = []
      try items(wider, batchSize: .max, attributes: attributes) { walked.append(contentsOf: $0) }
    }
    guard walked.count >= limit else {
      return try items(fallback, batchSize: batchSize, attributes: attributes, batch)
    }
    var batches = ItemBatches(size: batchSize, cancellation: cancellation)
    for item in walked { try batches.add(item, to: batch) }
    try batches.finish(to: batch)
  }

  /// `sortedItems` in the numbers form (`CompiledStep.sortWalk` with values).
  func sortedNumericItems(
    _ walk: SQLCompiler.Compiled, fallback: SQLCompiler.Compiled, limit: Int, values: [NumericValue]
  ) throws -> [ResultItem] {
    var walked = try numericItems(walk, values: values)
    if walked.count < limit, let wider = widerWalk(walk, found: walked.count, limit: limit) { walked = try numericItems(wider, values: values) }
    return walked.count >= limit ? walked : try numericItems(fallback, values: values)
  }

  /// When a sort's walk found some of its `limit` matches but fewer, the walk again over
  /// twice as many entries as their share says `limit` needs, up to
  /// `SQLCompiler.sortWalkEntryLimit`: a walk of 2,000 dates finds 26 of a hundred emails
  /// from one sender at a million items, one of 15,400 finds them in 40 ms where the full
  /// sort of that sender's 12,900 emails takes a second. Nil when it found none (the tests
  /// are selective: the full sort reads their few items) or would read more.
  func widerWalk(_ walk: SQLCompiler.Compiled, found: Int, limit: Int) -> SQLCompiler.Compiled? {
    guard found > 0, let entries = walk.walkedEntries else { return nil }
    let needed = 2 * entries * limit / found
    guard needed > entries, needed <= SQLCompiler.sortWalkEntryLimit else { return nil }
    return walk.walking(entries: needed)
  }

  private func items(
    _ compiled: SQLCompiler.Compiled, batchSize: Int, attributes: Set<String>? = nil, _ batch: ([ResultItem]) throws -> Void
  ) throws {
    var batches = ItemBatches(size: batchSize, cancellation: cancellation)
    try run(compiled) { row in try batches.add(try resultItem(row, attributes: attributes), to: batch) }
    try batches.finish(to: batch)
  }

  /// The item of a row of an items statement (`SQLCompiler.itemColumns`, then relevance),
  /// with only `attributes` decoded (nil: all).
  private func resultItem(_ row: Statement, attributes: Set<String>?) throws -> ResultItem {
    itemRowsRead += 1
    let item = try StoredItem.decode(row: row, offset: 1, catalog: catalog, only: attributes, lazily: true)
    var result = ResultItem(rowid: row.int64(0), item: item, relevance: row.double(8))
    result.engagement = Int(row.int64(7))
    return result
  }

  /// The items of a compiled items step with only `attributes` decoded (item fields,
  /// relevance and engagement always), for a Swift stage that reads no others; nil when the
  /// step is not a plain items statement. `hydrate` reads the kept items whole afterwards.
  func partialItems(_ step: CompiledStep, attributes: Set<String>) throws -> PipelineData? {
    var all: [ResultItem] = []
    switch step {
    case .items(let compiled):
      try items(compiled, batchSize: .max, attributes: attributes) { all.append(contentsOf: $0) }
    case .sortWalk(let walk, let fallback, let limit, nil):
      try sortedItems(walk, fallback: fallback, limit: limit, batchSize: .max, attributes: attributes) { all.append(contentsOf: $0) }
    default:
      return nil
    }
    return .items(all)
  }

  /// The numbers form of an items step for a Swift stage that reads only `attributes`, when
  /// each is a single number, date or flag and the step is a text search in relevance order
  /// (`SQLCompiler.numericItemsQuery`); nil otherwise (the records are read).
  /// With `listing` (the ranked index's every visible match in rank order) of a search that
  /// is the plan's only test, for a stage that reads relevance alone (`score relevance`), the
  /// listing drives the statement: no full-text scan, no sort (`search "launch" || "review" |
  /// score relevance | top 10` at 1M, 0.59 → 0.29 s). Not when values are read: their rows
  /// looked up in rank order cost more than the sort saves (0.78 → 0.85 s for a date).
  private func numbers(
    _ plan: SQLPlan, values numeric: (values: [NumericValue], ids: [SQLCompiler.ValueColumn]), itemFields: Bool, listing: [SearchHit]? = nil,
    compiler: inout SQLCompiler
  ) throws -> CompiledStep? {
    if let listing, !itemFields, numeric.ids.isEmpty, Self.listingIsTheItems(of: plan) {
      let rowids = "[" + listing.map { String($0.id) }.joined(separator: ",") + "]"
      return .numbers(compiler.numericItemsOfListing(rowids, values: numeric.ids), values: numeric.values, itemFields: false)
    }
    guard let compiled = try compiler.numericItemsQuery(plan, values: numeric.ids, itemFields: itemFields) else { return nil }
    return .numbers(compiled, values: numeric.values, itemFields: itemFields)
  }

  /// `attributes` as values the numbers form reads (with their columns), when each is a
  /// single number, date, flag or short text (`difficulty == "easy"` in a score: a quarter of
  /// a million trails read their records for it); nil otherwise (the records are read).
  private func numericValues(_ attributes: Set<String>) -> (values: [NumericValue], ids: [SQLCompiler.ValueColumn])? {
    guard Self.readsNumbersAlone else { return nil }
    var values: [NumericValue] = []
    var ids: [SQLCompiler.ValueColumn] = []
    for name in attributes.sorted() {
      guard let type = catalog.type(of: name), !type.isList, [.number, .date, .bool, .string].contains(type.scalar) else { return nil }
      // An attribute no item has: nothing to read.
      guard let id = attributeMap.ids[name] else { continue }
      // A long text's value is in the record alone (`vals` has a marker row).
      let isText = type.scalar == .string
      if isText, attributeMap.longAttributes[id] != nil { return nil }
      values.append(NumericValue(name: name, type: type))
      ids.append(SQLCompiler.ValueColumn(id: id, isText: isText))
    }
    return (values, ids)
  }

  /// The items of a numbers step: their fields, relevance and engagement, and only `values`.
  func numericItems(_ compiled: SQLCompiler.Compiled, values: [NumericValue]) throws -> [ResultItem] {
    var items: [ResultItem] = []
    try forEachNumericItem(compiled, values: values) { items.append($0) }
    return items
  }

  /// The first `count` of a numbers step's items once `scorer` scored each and they were
  /// ordered best first (`score ... | top 10`), kept while they are read; and how many
  /// were scored.
  func bestNumericItems(
    _ compiled: SQLCompiler.Compiled, values: [NumericValue], scorer: @escaping ItemScorer, keeping count: Int
  ) throws -> (items: [ResultItem], scored: Int) {
    try best(count, scoredBy: scorer) { try forEachNumericItem(compiled, values: values, $0) }
  }

  /// The first `count` of `items` once `scorer` scored each and they were ordered best
  /// first; and how many were scored.
  func bestScored(_ items: [ResultItem], scorer: @escaping ItemScorer, keeping count: Int) throws -> (items: [ResultItem], scored: Int) {
    try best(count, scoredBy: scorer) { offer in
      for item in items {
        try cancellation.check()
        try offer(item)
      }
    }
  }

  /// The best `count` of the items `source` hands over, each scored by `scorer`.
  private func best(
    _ count: Int, scoredBy scorer: @escaping ItemScorer, _ source: ((ResultItem) throws -> Void) throws -> Void
  ) throws -> (items: [ResultItem], scored: Int) {
    var best = BestScored(keeping: count)
    try source { item in
      var item = item
      try scorer(&item)
      best.offer(item)
    }
    return (best.items, best.offered)
  }

  /// Hands each item of a numbers step to `body` as it is read.
  private func forEachNumericItem(_ compiled: SQLCompiler.Compiled, values: [NumericValue], _ body: (ResultItem) throws -> Void) throws {
    try run(compiled) { row in
      // The fields as `StoredItem` reads them (no record asked for, none read).
      var item = try StoredItem.decode(row: row, offset: 1, catalog: catalog, only: [])
      for (offset, value) in values.enumerated() where !row.isNull(8 + offset) {
        if value.type.scalar == .string {
          item.attributeSet[value.name] = .string(row.string(8 + offset) ?? "")
          continue
        }
        let number = row.double(8 + offset)
        item.attributeSet[value.name] = switch value.type.scalar {
        case .date: .date(Date(timeIntervalSince1970: number))
        case .bool: .bool(number != 0)
        default: .number(number)
        }
      }
      var result = ResultItem(rowid: row.int64(0), item: item, relevance: row.double(7))
      result.engagement = Int(row.int64(6))
      try body(result)
    }
  }

  /// Whether `numericItems` may answer (tests compare it with the records' path).
  @TaskLocal package static var readsNumbersAlone = true

  /// The groups of a grouped-items step with at most `perGroup` items each (every group's
  /// count whole), the kept items read whole (`hydrate`). With `counts` (the groups and their
  /// counts from SQLite, in the order `group` gives them) the items are read in order, with
  /// only the grouped attribute, until every group has its first ones: a terminal listing a
  /// few titles per state of a million items reads a few thousand rows. Otherwise (or when an
  /// item's value names no counted group) every item is read that way and grouped in Swift.
  /// `leading`, the first items of the same order (a few hundred, then a few thousand, each
  /// with how many it reads), is tried first: when every group takes its few from them, the
  /// statement over every match never runs. A wider one is tried only when it reads under
  /// half of what the groups count (on a small index it would read nearly every item).
  func groups(
    _ step: CompiledStep, counts: CompiledStep?, leading: [(step: CompiledStep, items: Int)] = [], by target: AttributeTarget,
    keepingAtMost perGroup: Int
  ) throws -> PipelineData {
    guard case .groupedItems(let compiled, _) = step else { return try materialize(step) }
    let attributes: Set<String>? = switch target {
    case .attribute(let name, _): [name]
    case .itemField: []
    case .anyText, .anyAttribute: nil
    }
    var grouped: GroupedItems
    let counts = try counts.map(materialize)
    if let counts {
      let counted = if case .table(let table) = counts { table.rows.reduce(0) { $0 + Int($1[1].number ?? 0) } } else { 0 }
      for (offset, first) in leading.enumerated() where offset == 0 || first.items < counted / 2 {
        if let led = try firstItems(first.step, counts: counts, by: target, perGroup: perGroup) { return .groupedItems(led) }
      }
    }
    if let counts, let counted = try firstItems(compiled, counts: counts, by: target, attributes: attributes, perGroup: perGroup) {
      grouped = counted
    } else {
      var all: [ResultItem] = []
      try items(compiled, batchSize: .max, attributes: attributes) { all.append(contentsOf: $0) }
      grouped = Aggregation.group(all, by: target)
    }
    grouped = grouped.keepingFirstItems(perGroup)
    var kept: [ResultItem] = []
    var seen = Set<Int64>()
    for item in grouped.groups.flatMap(\.items) where seen.insert(item.rowid).inserted { kept.append(item) }
    guard attributes != nil else { return .groupedItems(grouped) }
    var whole: [Int64: ResultItem] = [:]
    for item in try hydrate(.items(kept)).resultItems { whole[item.rowid] = item }
    for index in grouped.groups.indices {
      grouped.groups[index].items = grouped.groups[index].items.compactMap { whole[$0.rowid] }
    }
    return .groupedItems(grouped)
  }

  /// The groups `counts` lists, each with its first `perGroup` items among the whole items of
  /// `leading`; nil unless every group has them there.
  private func firstItems(_ leading: CompiledStep, counts: PipelineData, by target: AttributeTarget, perGroup: Int) throws -> GroupedItems? {
    guard var filler = GroupFiller(counts: counts, target: target, perGroup: perGroup) else { return nil }
    if !filler.isFull {
      try items(leading) { batch in
        for item in batch where filler.agrees && !filler.isFull { filler.add(item) }
      }
    }
    return filler.agrees && filler.isFull ? filler.grouped : nil
  }

  /// The groups `counts` lists, each with its first `perGroup` items of `compiled` in order
  /// (read with only `attributes`); nil when an item's value is not among the counted groups
  /// (the two would disagree: the caller groups every item instead).
  private func firstItems(
    _ compiled: SQLCompiler.Compiled, counts: PipelineData, by target: AttributeTarget, attributes: Set<String>?, perGroup: Int
  ) throws -> GroupedItems? {
    guard var filler = GroupFiller(counts: counts, target: target, perGroup: perGroup) else { return nil }
    if !filler.isFull {
      try runRows(compiled) { row in
        filler.add(try resultItem(row, attributes: attributes))
        return !filler.agrees || filler.isFull
      }
    }
    return filler.agrees && filler.isFull ? filler.grouped : nil
  }

  /// The items of a positions step: rowids (in rowid order) standing for items that hold
  /// nothing else yet, for a stage that reads only positions; `hydrate` reads the ones it
  /// keeps whole.
  func positions(_ compiled: SQLCompiler.Compiled, sortsRowids: Bool, keeping: ((Int) -> [Int]?)? = nil) throws -> [ResultItem] {
    var rowids: [Int64] = []
    try run(compiled) { rowids.append($0.int64(0)) }
    if sortsRowids { rowids.sort() }
    let placeholder = SearchableItem(uniqueIdentifier: "")
    // A sample of 3 from a million matches makes 3 items, not a million.
    if let kept = keeping?(rowids.count) { return kept.map { ResultItem(rowid: rowids[$0], item: placeholder) } }
    return rowids.map { ResultItem(rowid: $0, item: placeholder) }
  }

  /// The items of a ranked listing (already in the order the statement that sorts the
  /// matches gives them: relevance descending, then rowid), each with its relevance; with
  /// `keeping`, only the positions it keeps.
  func rankedPositions(_ listing: [SearchHit], keeping: ((Int) -> [Int]?)? = nil) -> [ResultItem] {
    let placeholder = SearchableItem(uniqueIdentifier: "")
    let positions = keeping?(listing.count) ?? Array(listing.indices)
    return positions.map { ResultItem(rowid: listing[$0].id, item: placeholder, relevance: listing[$0].score) }
  }

  /// `data` with every item's record read whole again (after `partialItems` and the stages
  /// that needed only part of it), by rowid in this read transaction; scores, relevance and
  /// ranks stay. Not among the plan's statements: a fetch per kept item, as the ranked
  /// index's are.
  func hydrate(_ data: PipelineData) throws -> PipelineData {
    switch data {
    case .items, .scoredItems: break
    default: return data
    }
    let items = data.resultItems
    guard !items.isEmpty else { return data }
    let fetch = try connection.checkOutStatement(
      "SELECT id, domain, contentType, expiration, protection, attributes, engagement FROM items WHERE rowid = ?")
    defer { connection.checkIn(fetch) }
    itemsReadWhole += items.count
    var whole: [ResultItem] = []
    whole.reserveCapacity(items.count)
    for var item in items {
      try cancellation.check()
      fetch.reset()
      try fetch.bind(.integer(item.rowid), at: 1)
      guard try fetch.step() else { continue }
      item.item = try StoredItem.decode(row: fetch, offset: 0, catalog: catalog, lazily: true)
      item.engagement = Int(fetch.int64(6))
      whole.append(item)
    }
    fetch.reset()
    return data.replacingItems(whole)
  }

  /// The data a compiled step produces: items, groups (grouped in Swift from the items), or
  /// an aggregate computed by SQLite.
  func materialize(_ step: CompiledStep) throws -> PipelineData {
    switch step {
    case .items, .sortWalk, .ranked, .positions, .rankedPositions, .numbers:
      var all: [ResultItem] = []
      try items(step) { all.append(contentsOf: $0) }
      return .items(all)
    case .groupedItems(_, let target):
      var all: [ResultItem] = []
      try items(step) { all.append(contentsOf: $0) }
      return .groupedItems(Aggregation.group(all, by: target))
    case .count(let compiled):
      var count = 0
      try run(compiled) { count = Int($0.int64(0)) }
      return .count(count)
    case .groupCount(let compiled, let target):
      var rows: [[Value]] = []
      try run(compiled) { row in
        rows.append([Self.keyValue(row, 0, target: target), .number(Double(row.int64(1)))])
      }
      return .table(Self.groupCountTable(rows, by: target))
    case .statistics(let statements, let groups, let group):
      return try statistics(statements, groups: groups, by: group)
    }
  }

  /// The table of `group by target | count` from its (key, count) rows: the largest groups
  /// first, ties in the order `group` gives them (SQLite orders keys bytewise).
  private static func groupCountTable(_ rows: [[Value]], by target: AttributeTarget) -> Table {
    let rows = rows.sorted { a, b in a[1] != b[1] ? (a[1].number ?? 0) > (b[1].number ?? 0) : Aggregation.order(a[0], b[0]) }
    return Table(columns: [target.displayName, "count"], rows: rows)
  }

  /// The tables of `group by target | count` for each of `targets` over the items of `plan`,
  /// from one statement (`SQLCompiler.groupCountsQuery`); nil when that has none for them.
  func groupCounts(_ plan: SQLPlan, by targets: [AttributeTarget]) throws -> [Table]? {
    var compiler = try self.compiler(for: plan)
    guard let compiled = try compiler.groupCountsQuery(plan, by: targets) else { return nil }
    var rows = Array(repeating: [[Value]](), count: targets.count)
    try run(compiled) { row in
      let position = Int(row.int64(0))
      rows[position].append([Self.keyValue(row, 1, target: targets[position]), .number(Double(row.int64(2)))])
    }
    return targets.indices.map { Self.groupCountTable(rows[$0], by: targets[$0]) }
  }

  /// All items of `plan`, as the plan of a query would read them (ranked index or SQL).
  public func allItems(_ plan: SQLPlan) throws -> [ResultItem] {
    let operation: ExecutionPlan.SQLStep.Operation = try answersWithRankedIndex(plan) ? .rankedTopK : .items
    let step = ExecutionPlan.SQLStep(plan: plan, operation: operation, stages: [], inherited: 0)
    return try materialize(try compile(step)).resultItems
  }

  private func statistics(
    _ statements: [(requests: [StatisticRequest], statement: SQLCompiler.Compiled)], groups: SQLCompiler.Compiled?, by group: AttributeTarget?
  ) throws -> PipelineData {
    var columns: [[Value: Value]] = []
    var keys: [Value] = []
    var seen = Set<Value>()
    for (requests, compiled) in statements {
      var values = Array(repeating: [Value: Value](), count: requests.count)
      if requests.count == 1, let request = requests.first, request.function == .median || request.function == .stddev {
        // The statement lists each group's values in ascending order (a group whose items
        // lack the attribute as a NULL, first).
        var grouped: [(Value, [Double])] = []
        try run(compiled) { row in
          let key = group.map { Self.keyValue(row, 0, target: $0) } ?? .null
          if grouped.last?.0 != key { grouped.append((key, [])) }
          if !row.isNull(1) { grouped[grouped.count - 1].1.append(row.double(1)) }
        }
        for (key, list) in grouped {
          let number = request.function == .stddev ? Aggregation.standardDeviation(list) : Aggregation.median(ofSorted: list)
          values[0][key] = number.map { Aggregation.value($0, of: request) } ?? .null
        }
        if group == nil && grouped.isEmpty { values[0][.null] = .null }
      } else {
        try run(compiled) { row in
          let key = group.map { Self.keyValue(row, 0, target: $0) } ?? .null
          for (offset, request) in requests.enumerated() {
            let column = offset + 1
            values[offset][key] = row.isNull(column) ? Aggregation.emptyValue(request) : Aggregation.value(row.double(column), of: request)
          }
        }
      }
      for column in values {
        for key in column.keys.sorted(by: Aggregation.order) where seen.insert(key).inserted { keys.append(key) }
      }
      columns += values
    }
    let requests = statements.flatMap(\.requests)
    guard let group else {
      let request = requests[0]
      let value = columns[0][.null] ?? Aggregation.emptyValue(request)
      if requests.count == 1 {
        return .statistic(Statistic(function: request.function.rawValue, attribute: request.target?.displayName ?? "*", value: value))
      }
      return .table(Table(columns: requests.map(\.columnName), rows: [zip(requests, columns).map { request, values in
        values[.null] ?? Aggregation.emptyValue(request)
      }]))
    }
    if let groups {
      // Every group of the items gets a row, also one whose items lack the attribute (the
      // statements of single statistics only see groups with values), as `stats` in Swift gives.
      try run(groups) { row in
        let key = Self.keyValue(row, 0, target: group)
        if seen.insert(key).inserted { keys.append(key) }
      }
    }
    keys.sort(by: Aggregation.order)
    let rows = keys.map { key in [key] + zip(requests, columns).map { request, values in values[key] ?? Aggregation.emptyValue(request) } }
    return .table(Table(columns: [group.displayName] + requests.map(\.columnName), rows: rows))
  }

  private static func keyValue(_ row: Statement, _ column: Int, target: AttributeTarget) -> Value {
    if row.isNull(column) { return .null }
    switch target.scalarType {
    case .string, .url: return .string(row.string(column) ?? "")
    case .date: return .date(Date(timeIntervalSince1970: row.double(column)))
    case .bool: return .bool(row.int64(column) != 0)
    case .number: return .number(row.double(column))
    }
  }
}

/// Collects items into batches of `size` for a consumer (the last may be shorter; with no
/// size limit, one batch even when empty), checking for cancellation between batches.
struct ItemBatches {
  let size: Int
  let cancellation: CancellationFlag
  private var buffer: [ResultItem] = []

  init(size: Int, cancellation: CancellationFlag) {
    self.size = size
    self.cancellation = cancellation
  }

  mutating func add(_ item: ResultItem, to deliver: ([ResultItem]) throws -> Void) throws {
    buffer.append(item)
    guard buffer.count >= size else { return }
    try deliver(buffer)
    buffer.removeAll(keepingCapacity: true)
    try cancellation.check()
  }

  func finish(to deliver: ([ResultItem]) throws -> Void) throws {
    if !buffer.isEmpty || size == .max { try deliver(buffer) }
  }
}

/// Groups counted in SQLite taking their first items as they come, in order.
private struct GroupFiller {
  private(set) var grouped: GroupedItems
  private let target: AttributeTarget
  private let perGroup: Int
  private var slots: [Value: Int] = [:]
  private var unfilled = 0
  /// False once an item's value names no counted group.
  private(set) var agrees = true

  /// nil when `counts` is not the table of a group count.
  init?(counts: PipelineData, target: AttributeTarget, perGroup: Int) {
    guard case .table(let table) = counts else { return nil }
    grouped = GroupedItems(
      attribute: target.displayName, groups: table.rows.map { GroupedItems.Group(key: $0[0], items: [], count: Int($0[1].number ?? 0)) })
    self.target = target
    self.perGroup = perGroup
    for (slot, group) in grouped.groups.enumerated() {
      slots[group.key] = slot
      if min(perGroup, group.count) > 0 { unfilled += 1 }
    }
  }

  /// Whether every group has its first items.
  var isFull: Bool { unfilled == 0 }

  mutating func add(_ item: ResultItem) {
    for key in Aggregation.values(of: target, in: item) {
      guard let slot = slots[key] else { agrees = false; return }
      let wanted = min(perGroup, grouped.groups[slot].count)
      guard grouped.groups[slot].items.count < wanted else { continue }
      grouped.groups[slot].items.append(item)
      if grouped.groups[slot].items.count == wanted { unfilled -= 1 }
    }
  }
}
