import Foundation
import QueryEngine
import SearchIndex
import Stages
import SearchlightTestSupport
import Testing

/// An item window (`QueryOptions.itemWindow`, what a terminal table reads) cuts each reply of
/// items to its first items and says how many the whole reply holds, and changes nothing
/// else: on every grammar example that runs, each reply is the unwindowed run's reply, its
/// items the first of the same items in the same order.
@Suite struct ItemWindowTests {
  /// The examples that run on the samples (`similar` needs an embeddings endpoint).
  static let runnable = GrammarExamplesTests.cases.filter { $0.errorID == nil && !$0.query.contains("similar") }

  /// Replies with their streamed batches joined, as a reader sees them whole.
  static func replies(_ query: String, window: ItemWindow?) throws -> [Reply] {
    let executor = QueryExecutor(index: SampleIndex.shared, registry: StandardLibrary.registry())
    var options = SampleIndex.options
    options.itemWindow = window
    var replies: [Reply] = []
    var pending: [ResultItem] = []
    try executor.run(query, options: options) { reply in
      if reply.isPartial { pending += reply.content.resultItems; return }
      var whole = reply
      if !pending.isEmpty { whole.content = reply.content.replacingItems(pending + reply.content.resultItems) }
      pending = []
      replies.append(whole)
    }
    return replies
  }

  /// The replies as they come (batches apart) and the log of what the run read.
  static func loggedReplies(_ query: String, window: ItemWindow) throws -> (replies: [Reply], log: StatementLog) {
    let executor = QueryExecutor(index: SampleIndex.shared, registry: StandardLibrary.registry())
    var options = SampleIndex.options
    options.itemWindow = window
    let log = StatementLog()
    options.statementLog = log
    var replies: [Reply] = []
    try executor.run(query, options: options) { replies.append($0) }
    return (replies, log)
  }

  static func content(_ reply: Reply) -> JSONValue { reply.jsonValue(fetch: nil)["content"] ?? .null }

  /// A score as the reply's last stage keeps only the window's best items while it scores
  /// (`BoundStage.itemScorer`) and counts every scored item: the first items of the
  /// unwindowed reply, ties in order, and its whole count, from numbers and from records.
  @Test(arguments: [
    #"search domainIdentifier == "trails" | score rating"#,
    #"search domainIdentifier == "trails" | score if(rating > 3, 1, 0)"#,
    #"search "trail" || "lake" | score relevance + 0.1 * rating"#,
    #"search * | score if(title == "*lake*"cd, 1, 0) + recency(contentModificationDate, 30d)"#,
  ])
  func aScoreAtTheEndKeepsTheWindowsBestAndCountsThemAll(_ query: String) throws {
    let full = try Self.replies(query, window: nil)
    let whole = try #require(full.first?.content.resultItems)
    #expect(full.count == 1 && whole.count > 5)
    for first in [1, 3, 5] {
      let cut = try Self.replies(query, window: ItemWindow(first: first, countsAll: true))
      #expect(cut.first?.content.resultItems.map(\.id) == whole.prefix(first).map(\.id), "\(query) first \(first)")
      #expect(cut.first?.content.resultItems.map(\.score) == whole.prefix(first).map(\.score), "\(query) first \(first)")
      #expect(cut.first?.total == whole.count, "\(query) first \(first)")
    }
  }

  @Test(arguments: runnable)
  func aWindowKeepsTheFirstItemsOfEveryReply(_ example: GrammarExamplesTests.Case) throws {
    let full = try Self.replies(example.query, window: nil)
    for first in [1, 3] {
      let cut = try Self.replies(example.query, window: ItemWindow(first: first, countsAll: true, itemsPerGroup: first))
      try #require(cut.count == full.count, "\(example.query)")
      for (windowed, whole) in zip(cut, full) {
        #expect(windowed.label == whole.label && windowed.stage == whole.stage && windowed.content.type == whole.content.type, "\(example.query)")
        switch whole.content {
        case .items(let items), .scoredItems(let items):
          var expected = whole
          expected.content = whole.content.replacingItems(Array(items.prefix(first)))
          let same = Self.content(windowed) == Self.content(expected)
          #expect(same, "\(example.query) first \(first): \(windowed.content.resultItems.map(\.id)) against \(items.prefix(first).map(\.id))")
          if items.count > first {
            #expect(windowed.total == items.count, "\(example.query) first \(first)")
          } else {
            #expect(windowed.total == nil || windowed.total == items.count, "\(example.query)")
          }
        case .groupedItems(let grouped):
          // The same groups with their whole counts, each holding its first items.
          var expected = grouped
          for index in expected.groups.indices { expected.groups[index].items = Array(expected.groups[index].items.prefix(first)) }
          #expect(windowed.content == .groupedItems(expected), "\(example.query) first \(first)")
          #expect(windowed.total == nil)
        case .table(let table):
          // A table of a row per item holds the rows of the first items and counts them all;
          // any other table (statistics, groups) is whole.
          guard case .table(let cutTable) = windowed.content else { Issue.record("\(example.query): not a table"); continue }
          #expect(cutTable.columns == table.columns, "\(example.query)")
          if cutTable.rows.count < table.rows.count {
            #expect(cutTable.rows == Array(table.rows.prefix(first)), "\(example.query) first \(first)")
            #expect(windowed.total == table.rows.count, "\(example.query) first \(first)")
          } else {
            #expect(cutTable.rows == table.rows, "\(example.query)")
            #expect(windowed.total == nil || windowed.total == table.rows.count, "\(example.query)")
          }
        default:
          let same = Self.content(windowed) == Self.content(whole)
          #expect(same, "\(example.query)")
          #expect(windowed.total == nil)
        }
      }
    }
  }

  /// After stages that ran in Swift, a final table of a row per item reads whole only the
  /// items of the window's rows, and counts the rows of all of them.
  @Test(arguments: [
    #"search "trail" | score rating | where score > 0 | table title"#,
    #"search * | score 0.5 * rating + recency(contentModificationDate, 30d) | table title, rating"#,
  ])
  func aTableAfterSwiftStagesReadsItsRowsItemsWhole(_ query: String) throws {
    guard case .table(let all)? = try Self.replies(query, window: nil).first?.content else { Issue.record("no table"); return }
    let (replies, log) = try Self.loggedReplies(query, window: ItemWindow(first: 2, countsAll: true))
    guard case .table(let cut)? = replies.first?.content else { Issue.record("no table"); return }
    #expect(all.rows.count > 2, "\(query)")
    #expect(cut.rows == Array(all.rows.prefix(2)), "\(query)")
    #expect(replies.first?.total == all.rows.count, "\(query)")
    #expect(log.itemsReadWhole <= 2, "\(query): \(log.itemsReadWhole) read whole")
  }

  /// A table of a row per item reads only the window's items (its SQL step holds the limit)
  /// and counts them all; a table after groups or statistics is whole.
  @Test func aTableOfItemsReadsTheWindowsItems() throws {
    let query = #"search domainIdentifier == "trails" | sort distance desc | table title, distance"#
    let whole = try Self.replies(query, window: nil)
    guard case .table(let all)? = whole.first?.content else { Issue.record("no table"); return }
    let (replies, log) = try Self.loggedReplies(query, window: ItemWindow(first: 4, countsAll: true))
    guard case .table(let cut)? = replies.first?.content else { Issue.record("no table"); return }
    #expect(all.rows.count > 4)
    #expect(cut.rows == Array(all.rows.prefix(4)))
    #expect(replies.first?.total == all.rows.count)
    #expect(log.all.contains { $0.contains("LIMIT") } && log.all.contains { $0.contains("count(") }, "\(log.all)")
    let groups = #"search domainIdentifier == "trails" | group by stateOrProvince | table"#
    #expect(try Self.replies(groups, window: ItemWindow(first: 2, countsAll: true)).first?.content == (try Self.replies(groups, window: nil)).first?.content)
  }

  /// Groups keep their first items only when asked; their counts stay whole.
  @Test func groupsKeepTheirFirstItems() throws {
    let query = #"search domainIdentifier == "trails" | group by stateOrProvince"#
    guard case .groupedItems(let whole)? = try Self.replies(query, window: nil).first?.content,
      case .groupedItems(let cut)? = try Self.replies(query, window: ItemWindow(first: 5, countsAll: true, itemsPerGroup: 2)).first?.content,
      case .groupedItems(let untouched)? = try Self.replies(query, window: ItemWindow(first: 5, countsAll: true)).first?.content
    else { Issue.record("no groups"); return }
    #expect(whole.groups.contains { $0.items.count > 2 })
    #expect(cut.groups.map(\.key) == whole.groups.map(\.key) && cut.groups.map(\.count) == whole.groups.map(\.count))
    #expect(cut.groups.allSatisfy { $0.items.count <= 2 })
    #expect(cut.groups.map { $0.items.map(\.id) } == whole.groups.map { $0.items.prefix(2).map(\.id) })
    // Whole records, not the grouped attribute alone.
    #expect(cut.groups.flatMap(\.items).allSatisfy { $0.item.attributeSet["title"] != nil })
    #expect(untouched == whole)
  }

  /// Groups keeping a few items take their counts from SQLite and read items only until
  /// every group has its few: the first items in order (here 20), and when some group has
  /// none among them, the items in order until it has. Far fewer rows than the items grouped.
  @Test func groupsWithFewItemsStopReadingEarly() throws {
    try ExecutionPlan.$leadingItems.withValue(20) { try groupsStopEarly() }
  }

  /// When the first items leave a group short, ten times as many are tried before the
  /// statement over every match (here 2, then 20, of the trails' items).
  @Test func groupsShortAfterTheFirstItemsTryTenTimesAsMany() throws {
    let executor = QueryExecutor(index: SampleIndex.shared, registry: StandardLibrary.registry())
    let query = #"search domainIdentifier == "trails" | group by difficulty"#
    var options = SampleIndex.options
    let whole = StatementLog()
    options.statementLog = whole
    var all: GroupedItems?
    try executor.run(query, options: options) { if case .groupedItems(let g) = $0.content { all = g } }
    #expect(try #require(all).groups.reduce(0) { $0 + $1.count } > 40, "enough items for the wider step")
    let cut = StatementLog()
    options.statementLog = cut
    options.itemWindow = ItemWindow(first: 10, countsAll: true, itemsPerGroup: 2)
    var few: GroupedItems?
    try ExecutionPlan.$leadingItems.withValue(2) {
      try executor.run(query, options: options) { if case .groupedItems(let g) = $0.content { few = g } }
    }
    #expect(few?.groups.map(\.count) == all?.groups.map(\.count))
    #expect(few?.groups.map { $0.items.map(\.id) } == all?.groups.map { $0.items.prefix(2).map(\.id) })
    #expect(cut.itemRowsRead <= 22, "\(cut.itemRowsRead) rows")
    #expect(cut.itemRowsRead > 2, "the first two left a group short")
    #expect(!cut.all.contains(try #require(whole.all.last)), "the statement over every match never ran: \(cut.all)")
  }

  func groupsStopEarly() throws {
    let executor = QueryExecutor(index: SampleIndex.shared, registry: StandardLibrary.registry())
    // A domain whose items all come last (the folder of notes) keeps the second reading most rows.
    for (query, perGroup, share) in [
      (#"search domainIdentifier == "trails" | group by difficulty"#, 2, 0.3), (#"search "trail" | group by stateOrProvince"#, 1, 0.7),
      (#"search * | group by domainIdentifier"#, 1, 0.9),
    ] {
      var options = SampleIndex.options
      let whole = StatementLog()
      options.statementLog = whole
      var all: GroupedItems?
      try executor.run(query, options: options) { if case .groupedItems(let g) = $0.content { all = g } }
      let cut = StatementLog()
      options.statementLog = cut
      options.itemWindow = ItemWindow(first: 10, countsAll: true, itemsPerGroup: perGroup)
      var few: GroupedItems?
      try executor.run(query, options: options) { if case .groupedItems(let g) = $0.content { few = g } }
      let items = try #require(all).groups.reduce(0) { $0 + $1.count }
      #expect(whole.itemRowsRead >= items, "\(query)")
      #expect(Double(cut.itemRowsRead) < share * Double(whole.itemRowsRead), "\(query): \(cut.itemRowsRead) rows of \(whole.itemRowsRead)")
      #expect(few?.groups.map(\.count) == all?.groups.map(\.count), "\(query)")
      #expect(cut.all.contains { $0.contains("count(") }, "the groups counted in SQLite: \(cut.all)")
      if query.contains("difficulty") {
        // Filled from the first 20 items: the statement over every match never ran.
        #expect(cut.itemRowsRead <= 20)
        #expect(!cut.all.contains(try #require(whole.all.last)), "\(cut.all)")
      }
    }
  }

  @Test func withoutTheCountRepliesSayNothingOfTheRest() throws {
    let query = #"search domainIdentifier == "trails""#
    let full = try Self.replies(query, window: nil)
    let cut = try Self.replies(query, window: ItemWindow(first: 2, countsAll: false))
    #expect(full[0].content.resultItems.count > 2)
    #expect(cut[0].content.resultItems.map(\.id) == full[0].content.resultItems.prefix(2).map(\.id))
    #expect(cut[0].total == nil)
  }

  /// The count of a limited search is the limit's.
  @Test func theCountOfALimitedSearchIsItsLimit() throws {
    let cut = try Self.replies(#"search domainIdentifier == "trails" | sort rating desc | limit 5"#, window: ItemWindow(first: 2, countsAll: true))
    #expect(cut[0].content.resultItems.count == 2)
    #expect(cut[0].total == 5)
  }

  /// A statement another one reads is not cut: the count sees every item, and a labelled
  /// one (a reply and an input) is shown whole.
  @Test func statementsThatOthersReadStayWhole() throws {
    let query = #"hikes = search domainIdentifier == "trails" | sort rating desc as "Hikes"; hikes | count"#
    let full = try Self.replies(query, window: nil)
    let cut = try Self.replies(query, window: ItemWindow(first: 1, countsAll: true))
    #expect(full[0].content.resultItems.count > 1)
    let same = cut.map(Self.content) == full.map(Self.content)
    #expect(same, "\(cut.map(\.content.resultItems.count)) items against \(full.map(\.content.resultItems.count))")
  }

  /// The window is in the plan: the SQL step reads the first items, a second statement
  /// counts them all; a Swift stage's items are cut after it runs.
  @Test func theSQLStepReadsOnlyTheWindow() throws {
    let executor = QueryExecutor(index: SampleIndex.shared, registry: StandardLibrary.registry())
    var options = SampleIndex.options
    options.itemWindow = ItemWindow(first: 4, countsAll: true)
    for query in [#"search "trail""#, #"search "trail lake""#, "search rating >= 2 | sort rating desc"] {
      let plan = try executor.plan(try executor.prepare(query, options: options), options: options)
      let pipeline = plan.statements[0].pipeline
      guard case .sql(let step)? = pipeline.steps.last else { Issue.record("\(query): no SQL step"); continue }
      #expect(step.plan.limit == 4, "\(query)")
      guard case .count? = pipeline.window?.count?.operation else { Issue.record("\(query): no count"); continue }
      #expect(pipeline.window?.count?.plan.limit == nil, "\(query)")
    }
    let swift = try executor.plan(try executor.prepare(#"search "trail" | where rating > 1"#, options: options), options: options)
    #expect(swift.statements[0].pipeline.window?.first == 4)
    // A limit within the window needs no window.
    let top = try executor.plan(try executor.prepare(#"search "trail" | top 3"#, options: options), options: options)
    #expect(top.statements[0].pipeline.window == nil)
  }
}
