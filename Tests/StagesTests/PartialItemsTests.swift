import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex
@testable import Stages

/// A Swift stage that reads only some attributes (`sample`, `top`, `limit`, `freshness`)
/// gets items with only those decoded; the items it keeps are read whole before a reply,
/// another statement or a stage that reads more sees them. Same answers, whole items.
@Suite struct PartialItemsTests {
  static let registry = StandardLibrary.registryWithExamples()

  /// The replies of `query` as the executor gives them.
  func replies(_ query: String) throws -> [PipelineData] {
    let executor = QueryExecutor(index: sampleIndex.index, registry: Self.registry)
    let options = QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock)
    var replies: [PipelineData] = []
    _ = try executor.run(query, options: options) { replies.append($0.content) }
    return replies
  }

  /// `query` computed in Swift from whole items: its search, then each stage in turn.
  func reference(_ query: String) throws -> PipelineData {
    let executor = QueryExecutor(index: sampleIndex.index, registry: Self.registry)
    let graph = try executor.prepare(query, options: QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock))
    guard case .search(let predicate) = graph.statements[0].source else { return .items([]) }
    let stages = graph.statements[0].nodes.compactMap { node -> (any BoundStage)? in
      if case .stage(let stage) = node.kind { return stage }
      return nil
    }
    return try withContext { context in
      var current = PipelineData.items(try context.allItems(SQLPlan(predicate: predicate)))
      for stage in stages { current = try stage.execute(current, context: context) }
      return current
    }
  }

  @Test(arguments: [
    #"search domainIdentifier == "trails" | sample 3 seed 7"#,
    #"search domainIdentifier == "trails" | sample 4 seed 2 by stateOrProvince"#,
    #"search * | sample 5 seed 3 | top 2"#,
    #"search "trail" | freshness | top 3"#,
    #"search "trail" | freshness | sample 2 seed 5"#,
    // Positions only (rowids from an index) before the sample.
    #"search * | limit 6 | sample 2 seed 4"#,
    #"search rating >= 4 | sample 3 seed 11"#,
    #"search domainIdentifier == "trails" | sample 4 seed 7 | sample 2 seed 1"#,
    #"search * | sample 6 seed 2 | where rating > 3"#,
  ])
  func theAnswersAreThoseOfWholeItems(_ query: String) throws {
    let replies = try replies(query)
    #expect(replies.count == 1)
    let reply = try #require(replies.first)
    #expect(!reply.resultItems.isEmpty, "\(query)")
    #expect(reply == (try reference(query)), "\(query)")
  }

  /// Items reach a table, a merge and `fuse` whole.
  @Test func laterStatementsAndStagesSeeWholeItems() throws {
    let table = try replies(#"search * | sample 5 seed 3 | top 2 | table title, rating"#)
    #expect(table.first == (try reference(#"search * | sample 5 seed 3 | top 2 | table title, rating"#)))
    let fused = try replies(#"a = search domainIdentifier == "trails" | sample 4 seed 9; b = search "trail" | freshness | top 4; merge(a, b) | fuse | top 5"#)
    let items = try #require(fused.last).resultItems
    #expect(items.count == 5)
    for item in items {
      let stored = try #require(try sampleIndex.index.item(withIdentifier: item.id))
      #expect(item.item.attributeSet == stored.attributeSet, "\(item.id)")
    }
  }

  /// Items sampled from their positions alone are read whole, with their engagement, before
  /// a table of item fields, a fork or a reply sees them.
  @Test func sampledPositionsAreReadWholeWithTheirEngagement() throws {
    let temporary = try TemporaryIndex()
    try temporary.add(paths: ["trails.jsonl", "notes.jsonl"].map { samplesFolder.appendingPathComponent($0).path })
    let index = temporary.index
    let ids = try index.allItems().map(\.uniqueIdentifier)
    try #require(ids.count > 8)
    #expect(try index.recordEngagement(withIdentifiers: ids, count: 3).isEmpty)
    for query in [
      #"search * | sample 8 seed 5 | table id, domainIdentifier, engagement"#,
      #"search * | sample 8 seed 5"#,
      #"search domainIdentifier == "trails" | sample 3 seed 2 | fork (count) (table id, engagement)"#,
    ] {
      let all = try StagesTests.replies(query, in: index).map(\.content)
      #expect(!all.isEmpty, "\(query)")
      let engaged = all.contains { reply in
        switch reply {
        case .items(let items): items.contains { $0.engagement == 3 }
        case .table(let table): table.rows.contains { $0.contains(.number(3)) }
        default: false
        }
      }
      // Every item has it: a sampled item read without it shows 0.
      #expect(engaged, "\(query): no engagement came through\n\(all)")
      if all.count == 1 { #expect(all[0] == (try inSwift(query, in: index)), "\(query)") }
    }
  }

  /// A table of attributes needs only those: items read from SQLite for it decode only its
  /// columns, and the table is the one whole items give. Expressions and snippets may read
  /// any attribute and get whole items.
  @Test(arguments: [
    #"search domainIdentifier == "trails" | sort rating desc | limit 4 | table title, rating, domainIdentifier"#,
    #"search "trail" | table title, keywords, relevance"#,
    #"search * | table rating * 2, title"#,
    #"search "waterfall" | table title, snippet"#,
  ])
  func aTableReadsOnlyItsColumns(_ query: String) throws {
    let replies = try replies(query)
    #expect(replies.count == 1)
    let reply = try #require(replies.first)
    guard case .table(let table) = reply else { Issue.record("\(reply)"); return }
    #expect(!table.rows.isEmpty, "\(query)")
    #expect(reply == (try reference(query)), "\(query)")
  }

  @Test func aTableDeclaresTheAttributesItsColumnsName() throws {
    let executor = QueryExecutor(index: sampleIndex.index, registry: Self.registry)
    let options = QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock)
    func read(_ query: String) throws -> Set<String>? {
      let graph = try executor.prepare(query, options: options)
      let stage = graph.statements[0].nodes.compactMap { node -> (any BoundStage)? in
        if case .stage(let stage) = node.kind { return stage }
        return nil
      }.last
      return try #require(stage).attributesRead
    }
    #expect(try read(#"search * | table title, rating, domainIdentifier, relevance"#) == ["title", "rating"])
    #expect(try read(#"search * | table rating * 2"#) == nil)
    #expect(try read(#"search "trail" | table snippet"#) == nil)
  }
}
