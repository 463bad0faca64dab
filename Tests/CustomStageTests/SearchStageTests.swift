import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Stages
import Synchronization
import Testing

/// Keeps the first `count` items, suspending between items: the async shape's counterpart of
/// `KeepFirst`.
struct TakeFirst: SearchStage {
  var count = 2
  var name: String { "takeFirst" }
  var description: String { "Keeps the first N items" }
  var signatures: [StageDescriptor.Signature] { [.init(.items, .items)] }
  var parameters: [SearchStageParameter<Self>] { [.integer("n", \.count, "How many", in: 0...100)] }
  func execute(_ input: PipelineData, context: any StageContext) async throws -> PipelineData {
    var kept: [ResultItem] = []
    for item in input.resultItems.prefix(count) {
      await Task.yield()
      try Task.checkCancellation()
      kept.append(item)
    }
    return .items(kept)
  }
}

/// Records when a stage starts and how it ended, across threads.
final class StageProbe: Sendable {
  private let state = Mutex<(started: Bool, cancelled: Bool)>((false, false))
  var started: Bool { state.withLock { $0.started } }
  var cancelled: Bool { state.withLock { $0.cancelled } }
  func start() { state.withLock { $0.started = true } }
  func cancel() { state.withLock { $0.cancelled = true } }
}

/// Waits, suspended, until its task is cancelled.
struct WaitForCancellation: SearchStage {
  var probe: StageProbe
  var name: String { "waitForCancellation" }
  var description: String { "Never finishes by itself" }
  var signatures: [StageDescriptor.Signature] { [.init(.items, .items)] }
  var parameters: [SearchStageParameter<Self>] { [] }
  func execute(_ input: PipelineData, context: any StageContext) async throws -> PipelineData {
    probe.start()
    do {
      try await Task.sleep(for: .seconds(3600))
    } catch {
      probe.cancel()
      throw error
    }
    return input
  }
}

/// Fails with an error of its own.
struct Refuses: SearchStage {
  struct Refusal: Error, Equatable { var why: String }
  var name: String { "refuses" }
  var description: String { "Always fails" }
  var signatures: [StageDescriptor.Signature] { [.init(.items, .items)] }
  var parameters: [SearchStageParameter<Self>] { [] }
  func execute(_ input: PipelineData, context: any StageContext) async throws -> PipelineData {
    throw Refusal(why: "not today")
  }
}

@Suite(.timeLimit(.minutes(1))) struct SearchStageTests {
  static let trails = #"search domainIdentifier == "trails""#

  func registry(_ stages: [any SearchStage] = [TakeFirst()]) throws -> StageRegistry {
    var registry = StandardLibrary.registry()
    for stage in stages { try registry.register(stage) }
    return registry
  }

  func ids(_ query: String, registry: StageRegistry, options: QueryOptions = SampleIndex.options) throws(QueryError) -> [String] {
    var ids: [String] = []
    try QueryExecutor(index: SampleIndex.shared, registry: registry).run(query, options: options) { reply in
      ids += reply.content.resultItems.map(\.id)
    }
    return ids
  }

  @Test func anAsyncStageRunsWithItsNamedParameter() throws {
    let registry = try registry()
    let expected = try ids("\(Self.trails) | limit 3", registry: registry)
    #expect(expected.count == 3)
    #expect(try ids("\(Self.trails) | takeFirst(n: 3)", registry: registry) == expected)
    #expect(try ids("\(Self.trails) | takeFirst 3", registry: registry) == expected)
  }

  @Test func theRegisteredInstanceGivesTheDefault() throws {
    let registry = try registry([TakeFirst(count: 4)])
    #expect(try ids("\(Self.trails) | takeFirst", registry: registry) == ids("\(Self.trails) | limit 4", registry: registry))
    let parameter = try #require(registry.definition(named: "takeFirst")?.descriptor.parameters.first)
    #expect(parameter.name == "n")
    #expect(parameter.kind == .integer)
    #expect(parameter.description == "How many")
    #expect(parameter.range == 0...100)
    #expect(parameter.defaultValue == .number(4))
    #expect(registry.definition(named: "takeFirst")?.descriptor.isCustom == true)
  }

  @Test func anOutOfRangeValueIsADiagnosticWithTheRange() throws {
    let registry = try registry()
    let query = "\(Self.trails) | takeFirst(n: 500)"
    var diagnostics: DiagnosticsError?
    do {
      _ = try ids(query, registry: registry)
    } catch {
      diagnostics = error.diagnostics
    }
    let primary = try #require(diagnostics?.primary)
    #expect(primary.id == "stage.out-of-range")
    #expect(primary.message == "'n' of takeFirst must be from 0 to 100; got 500")
    let column = try #require(query.range(of: "500")).lowerBound.utf16Offset(in: query) + 1
    #expect(diagnostics?.primaryLocation.line == 1)
    #expect(diagnostics?.primaryLocation.column == column)
  }

  @Test func aWholeNumberParameterRefusesFractions() throws {
    let registry = try registry()
    do {
      _ = try ids("\(Self.trails) | takeFirst(n: 2.5)", registry: registry)
      Issue.record("2.5 is not a whole number")
    } catch {
      #expect(error.diagnostics?.primary.message == "'n' of takeFirst is a whole number")
    }
  }

  @Test func cancellingTheIteratingTaskCancelsTheStage() async throws {
    let probe = StageProbe()
    let executor = QueryExecutor(index: SampleIndex.shared, registry: try registry([WaitForCancellation(probe: probe)]))
    let task = Task {
      var replies = 0
      for try await _ in executor.replies(for: "\(Self.trails) | waitForCancellation", options: SampleIndex.options) { replies += 1 }
      return replies
    }
    while !probe.started { await Task.yield() }
    task.cancel()
    let replies = try await task.value
    #expect(replies == 0, "a cancelled query ends without replies and without an error")
    // The stream ends as soon as its iterating task is cancelled; the query's thread sees the
    // cancellation at its next poll and cancels the stage's task after that.
    let deadline = ContinuousClock.now + .seconds(30)
    while !probe.cancelled && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
    #expect(probe.cancelled)
  }

  @Test func cancellingTheFlagCancelsTheStage() throws {
    let probe = StageProbe()
    let executor = QueryExecutor(index: SampleIndex.shared, registry: try registry([WaitForCancellation(probe: probe)]))
    var options = SampleIndex.options
    let flag = CancellationFlag()
    options.cancellation = flag
    let canceller = Thread {
      while !probe.started { Thread.sleep(forTimeInterval: 0.001) }
      flag.cancel()
    }
    canceller.start()
    var thrown: QueryError?
    do {
      try executor.run("\(Self.trails) | waitForCancellation", options: options) { _ in }
    } catch {
      thrown = error
    }
    guard case .cancelled? = thrown else {
      Issue.record("expected cancellation, got \(String(describing: thrown))")
      return
    }
    #expect(probe.cancelled)
  }

  @Test func aStagesOwnErrorComesBackTaggedWithItsName() throws {
    let registry = try registry([Refuses()])
    var thrown: QueryError?
    do {
      _ = try ids("\(Self.trails) | refuses", registry: registry)
    } catch {
      thrown = error
    }
    guard case .stage(let name, let underlying)? = thrown else {
      Issue.record("expected the stage's error, got \(String(describing: thrown))")
      return
    }
    #expect(name == "refuses")
    #expect(underlying as? Refuses.Refusal == Refuses.Refusal(why: "not today"))
  }

  // MARK: The adapter of the synchronous shape

  @Test func anOldShapeStageGivesTheSameResultsAsTheAsyncOne() throws {
    var registry = StandardLibrary.registry()
    try registry.register(KeepFirst(count: 3))
    try registry.register(TakeFirst(count: 3))
    for arguments in ["", "(n: 1)", "(n: 5)", " 0"] {
      let old = try ids("\(Self.trails) | keepFirst\(arguments)", registry: registry)
      #expect(old == (try ids("\(Self.trails) | takeFirst\(arguments)", registry: registry)), "arguments \(arguments)")
    }
    #expect(try ids("\(Self.trails) | keepFirst", registry: registry).count == 3)
  }

  @Test func theAdapterDeclaresTheOldParametersUnchanged() throws {
    let stage = KeepFirst(count: 7)
    var registry = StageRegistry()
    try registry.register(CustomStageAdapter(stage))
    let descriptor = try #require(registry.definition(named: "keepFirst")?.descriptor)
    #expect(descriptor.parameters == stage.parameters)
    #expect(descriptor.abstract == stage.description)
    #expect(descriptor.signatures == stage.signatures)
  }

  @Test func anOldShapeStagesOutOfRangeArgumentIsRefusedAsBefore() throws {
    var registry = StandardLibrary.registry()
    try registry.register(KeepFirst())
    do {
      _ = try ids("\(Self.trails) | keepFirst(n: 101)", registry: registry)
      Issue.record("101 is out of range")
    } catch {
      #expect(error.diagnostics?.primary.message == "'n' of keepFirst must be from 0 to 100; got 101")
    }
  }
}
