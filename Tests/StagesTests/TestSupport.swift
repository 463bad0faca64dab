import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex
@testable import Stages

// The clock, the samples folder, TemporaryIndex, sampleIndex and item(...) live in
// SearchlightTestSupport (Tests/TestSupport/QueryFixtures.swift).

/// The standard stage library.
let standardRegistry = StandardLibrary.registry()

// MARK: Running queries

/// Replies of one execution, with streamed item batches joined into one reply each.
func replies(
  _ text: String, in index: SearchIndex, registry: StageRegistry = standardRegistry, clock: QueryClock = sampleClock,
  protection: Set<String> = [], batchSize: Int = 100
) throws -> [Reply] {
  // The sample notes folder is the app's store that `hydrate` asks.
  let options = QueryOptions(
    scope: AccessScope(now: clock.now, protectionClasses: protection), clock: clock, batchSize: batchSize,
    delegate: CompositeDelegate([FolderSource(folder: samplesFolder.appendingPathComponent("notes-folder").path)]))
  var result: [Reply] = []
  var pending: [ResultItem] = []
  try QueryExecutor(index: index, registry: registry).run(text, options: options) { reply in
    if reply.isPartial {
      pending += reply.content.resultItems
      return
    }
    var whole = reply
    if !pending.isEmpty {
      whole.content = .items(pending + reply.content.resultItems)
      pending = []
    }
    result.append(whole)
  }
  return result
}

/// The identifiers a predicate query returns, in result order.
func ids(
  _ text: String, in index: SearchIndex = sampleIndex.index, clock: QueryClock = sampleClock, protection: Set<String> = [],
  sourceLocation: SourceLocation = #_sourceLocation
) throws -> [String] {
  let all = try replies(text, in: index, clock: clock, protection: protection)
  #expect(all.count == 1, "\(text) gave \(all.count) replies", sourceLocation: sourceLocation)
  return all.first?.content.resultItems.map(\.id) ?? []
}

/// The identifiers as a set.
func idSet(
  _ text: String, in index: SearchIndex = sampleIndex.index, clock: QueryClock = sampleClock, protection: Set<String> = [],
  sourceLocation: SourceLocation = #_sourceLocation
) throws -> Set<String> {
  Set(try ids(text, in: index, clock: clock, protection: protection, sourceLocation: sourceLocation))
}

/// Every item of the sample data as stored, for computing expected answers independently of
/// the query engine.
let sampleItems: [SearchableItem] = try! sampleIndex.index.allItems()

/// The sample items visible at the sample clock without protection classes.
let visibleSampleItems: [SearchableItem] = sampleItems.filter { item in
  item.protectionClass == nil && (item.expirationDate.map { $0 > sampleNow } ?? true)
}

// MARK: Pipelines

/// The content of the only reply of `text`.
func data(
  _ text: String, in index: SearchIndex = sampleIndex.index, clock: QueryClock = sampleClock, protection: Set<String> = [],
  sourceLocation: SourceLocation = #_sourceLocation
) throws -> PipelineData {
  let all = try replies(text, in: index, clock: clock, protection: protection)
  #expect(all.count == 1, "\(text) gave \(all.count) replies", sourceLocation: sourceLocation)
  return try #require(all.first, sourceLocation: sourceLocation).content
}

/// The table of a query that ends in a table.
func table(_ text: String, in index: SearchIndex = sampleIndex.index, protection: Set<String> = [],
           sourceLocation: SourceLocation = #_sourceLocation) throws -> Table {
  guard case .table(let table) = try data(text, in: index, protection: protection, sourceLocation: sourceLocation) else {
    Issue.record("\(text) is not a table", sourceLocation: sourceLocation)
    return Table(columns: [], rows: [])
  }
  return table
}

/// The diagnostics of a query that should not type-check.
func failure(_ text: String, in index: SearchIndex = sampleIndex.index, sourceLocation: SourceLocation = #_sourceLocation) -> DiagnosticsError? {
  do {
    _ = try QueryExecutor(index: index, registry: standardRegistry).prepare(text, options: QueryOptions(clock: sampleClock))
    Issue.record("expected \(text) to fail", sourceLocation: sourceLocation)
  } catch {
    if let diagnostics = error.diagnostics { return diagnostics }
    Issue.record("\(text) failed with \(error)", sourceLocation: sourceLocation)
  }
  return nil
}

/// Checks the first diagnostic of `text`: id, message, 1-based column (line 1) and help.
func expectError(_ text: String, id: String, message: String, column: Int, help: String? = nil,
                 sourceLocation: SourceLocation = #_sourceLocation) {
  guard let error = failure(text, sourceLocation: sourceLocation) else { return }
  let primary = error.primary
  #expect(primary.id == id, "\(text)", sourceLocation: sourceLocation)
  #expect(primary.message == message, "\(text)", sourceLocation: sourceLocation)
  let (line, found) = error.source.location(of: primary.span.start)
  #expect(line == 1 && found == column, "\(text): at column \(found), expected \(column)", sourceLocation: sourceLocation)
  #expect(primary.help == help, "\(text)", sourceLocation: sourceLocation)
}

/// Runs `body` with an execution context over the sample index (the way the executor makes one).
func withContext<T>(
  _ index: SearchIndex = sampleIndex.index, protection: Set<String> = [], cancellation: CancellationFlag = CancellationFlag(),
  _ body: (ExecutionContext) throws -> T
) throws -> T {
  try index.readPassingErrors { connection in
    let context = try ExecutionContext(
      index: index, connection: connection, scope: AccessScope(now: sampleNow, protectionClasses: protection), clock: sampleClock,
      catalog: try SearchIndex.loadCatalogForQuery(connection), cancellation: cancellation,
      token: QueryToken(now: sampleNow, timeZone: utcZone, generation: 0))
    return try body(context)
  }
}

/// The prepared graph of `text`.
func prepare(_ text: String, in index: SearchIndex = sampleIndex.index) throws -> QueryGraph {
  try QueryExecutor(index: index, registry: standardRegistry).prepare(text, options: QueryOptions(clock: sampleClock))
}

/// The bound stages of the only statement of `text`.
func boundStages(_ text: String, in index: SearchIndex = sampleIndex.index) throws -> [any BoundStage] {
  try prepare(text, in: index).statements[0].nodes.compactMap { node in
    if case .stage(let stage) = node.kind { return stage }
    return nil
  }
}

/// `text` computed in Swift: the items of its search, then each stage's `execute` in turn,
/// with nothing pushed into SQL.
func inSwift(_ text: String, in index: SearchIndex = sampleIndex.index, protection: Set<String> = []) throws -> PipelineData {
  let graph = try prepare(text, in: index)
  guard case .search(let predicate) = graph.statements[0].source else {
    Issue.record("\(text) does not start with a search")
    return .items([])
  }
  let stages = try boundStages(text, in: index)
  return try withContext(index, protection: protection) { context in
    var current = PipelineData.items(try context.allItems(SQLPlan(predicate: predicate)))
    for stage in stages { current = try stage.execute(current, context: context) }
    return current
  }
}
