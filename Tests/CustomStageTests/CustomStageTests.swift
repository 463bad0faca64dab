import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Stages
import Testing

/// A stage that keeps the first N items: a minimal Swift custom stage for tests.
struct KeepFirst: CustomStage {
  var count: Double = 2
  var name: String { "keepFirst" }
  var description: String { "Keeps the first N items" }
  var signatures: [StageDescriptor.Signature] { [.init(.items, .items)] }
  var parameters: [StageParameter] { [StageParameter("n", .integer, "How many", default: .number(count), range: 0...100)] }
  func execute(_ input: PipelineData, arguments: StageArguments, context: any StageContext) throws -> PipelineData {
    .items(Array(input.resultItems.prefix(Int(arguments.number("n") ?? count))))
  }
}

/// A stage that lies about its output type.
struct Liar: CustomStage {
  var name: String { "liar" }
  var description: String { "Declares items, returns a count" }
  var signatures: [StageDescriptor.Signature] { [.init(.items, .items)] }
  var parameters: [StageParameter] { [] }
  func execute(_ input: PipelineData, arguments: StageArguments, context: any StageContext) throws -> PipelineData { .count(1) }
}

@Suite struct CustomStageTests {
  static let examples = SampleIndex.repository.appendingPathComponent("Stages/Examples").path

  func registry() throws -> StageRegistry {
    var registry = StandardLibrary.registryWithExamples()
    let problems = try StageFileLoader.load(directory: Self.examples, into: &registry, catalog: try SampleIndex.shared.catalog())
    #expect(problems.isEmpty)
    return registry
  }

  func run(_ query: String, registry: StageRegistry? = nil) throws -> [Reply] {
    let executor = QueryExecutor(index: SampleIndex.shared, registry: try registry ?? self.registry())
    var replies: [Reply] = []
    try executor.run(query, options: SampleIndex.options) { if !$0.isPartial { replies.append($0) } }
    return replies
  }

  func diagnostics(_ query: String) throws -> DiagnosticsError {
    do {
      _ = try run(query)
    } catch {
      if let diagnostics = (error as? QueryError)?.diagnostics { return diagnostics }
      throw error
    }
    Issue.record("expected diagnostics for \(query)")
    throw CancellationError()
  }

  // MARK: Registration

  @Test func registeringAnInstanceMakesItsValuesTheDefaults() throws {
    var registry = StandardLibrary.registry()
    try registry.register(KeepFirst(count: 3))
    let replies = try run(#"search domainIdentifier == "trails" | keepFirst"#, registry: registry)
    #expect(replies.first?.content.resultItems.count == 3)
    let overridden = try run(#"search domainIdentifier == "trails" | keepFirst(n: 5)"#, registry: registry)
    #expect(overridden.first?.content.resultItems.count == 5)
    #expect(registry.definition(named: "keepFirst")?.descriptor.isCustom == true)
  }

  @Test func registeringByStaticMemberUsesTheExampleStage() throws {
    var registry = StandardLibrary.registry()
    try registry.register(.freshness(halfLife: 7 * 86400, weight: 1))
    let freshness = try #require(registry.definition(named: "freshness"))
    #expect(freshness.descriptor.parameters.first { $0.name == "halfLife" }?.defaultValue == .number(7 * 86400))
  }

  @Test func aDuplicateNameIsRefused() throws {
    var registry = StandardLibrary.registry()
    try registry.register(KeepFirst())
    #expect(throws: StageRegistry.RegistrationError.self) { try registry.register(KeepFirst()) }
    var another = StandardLibrary.registry()
    #expect(throws: StageRegistry.RegistrationError.self) { try another.register(TopNamed()) }
  }

  struct TopNamed: CustomStage {
    var name: String { "top" }
    var description: String { "clashes with the built-in" }
    var signatures: [StageDescriptor.Signature] { [.init(.items, .items)] }
    var parameters: [StageParameter] { [] }
    func execute(_ input: PipelineData, arguments: StageArguments, context: any StageContext) throws -> PipelineData { input }
  }

  @Test func aStageReturningTheWrongTypeFailsClearly() throws {
    var registry = StandardLibrary.registry()
    try registry.register(Liar())
    let error = #expect(throws: QueryError.self) { _ = try run("search * | liar", registry: registry) }
    #expect(error?.underlying as? QueryRuntimeError == QueryRuntimeError("custom stage 'liar' returned count, but declares items"))
  }

  // MARK: Parameter validation at call time

  @Test(arguments: [
    (#"search * | nearby(latitude: 95, longitude: 0)"#, "stage.out-of-range", "'latitude' of nearby must be from -90 to 90; got 95"),
    (#"search * | nearby(longitude: 0)"#, "stage.missing-argument", "'nearby' needs 'latitude' (Latitude of the point in degrees)"),
    (#"search * | nearby(latitude: 1, longitude: 2, radios: 3)"#, "stage.unknown-parameter", "'nearby' has no parameter 'radios'"),
    (#"search * | importantNotes(minimumScore: "high")"#, "type.mismatch", "'minimumScore' of importantNotes is a number"),
    (#"search * | freshness(weight: 2)"#, "stage.out-of-range", "'weight' of freshness must be from 0 to 1; got 2"),
    (#"search * | importantNotes(minimumScore: 0.5, minimumScore: 0.6)"#, "stage.duplicate-argument", "'minimumScore' is given twice"),
  ])
  func badArgumentsAreDiagnosedAtTheCall(query: String, id: String, message: String) throws {
    let error = try diagnostics(query)
    #expect(error.primary.id == id)
    #expect(error.primary.message == message)
    #expect(error.primary.span.start >= query.utf8.count - query.split(separator: "|").last!.utf8.count - 1)
  }

  @Test func anUnknownParameterSuggestsTheClosestName() throws {
    let error = try diagnostics(#"search * | nearby(latitude: 1, longitude: 2, radios: 3)"#)
    #expect(error.primary.help == "did you mean 'radius'?")
  }

  @Test func aCustomStageIsTypeCheckedLikeABuiltIn() throws {
    let error = try diagnostics(#"search * | count | nearby(latitude: 1, longitude: 2)"#)
    #expect(error.primary.id == "type.stage-input")
    #expect(error.primary.message == "'nearby' needs items or scoredItems; 'count' produces count")
  }

  // MARK: The example stages

  @Test func nearbyKeepsTrailsInsideTheRadiusNearestFirst() throws {
    let (latitude, longitude, radius) = (45.52, -122.68, 100.0)
    let replies = try run(#"search domainIdentifier == "trails" | nearby(latitude: 45.52, longitude: -122.68, radius: 100)"#)
    let items = try #require(replies.first).content.resultItems
    #expect(!items.isEmpty)
    let distances = items.map { item in
      ExpressionEvaluator.haversineKilometres(latitude, longitude, item.item.attributeSet["latitude"]!.numericValue!,
                                              item.item.attributeSet["longitude"]!.numericValue!)
    }
    #expect(distances.allSatisfy { $0 <= radius })
    #expect(distances == distances.sorted())
    for (item, distance) in zip(items, distances) { #expect(abs((item.score ?? 0) + distance) < 1e-6) }
    // Every trail within the radius is there.
    let all = try run(#"search domainIdentifier == "trails""#).first!.content.resultItems
    let inside = all.filter {
      ExpressionEvaluator.haversineKilometres(latitude, longitude, $0.item.attributeSet["latitude"]!.numericValue!,
                                              $0.item.attributeSet["longitude"]!.numericValue!) <= radius
    }
    #expect(Set(inside.map(\.id)) == Set(items.map(\.id)))
  }

  @Test func importantNotesKeepsOnlyScoresAboveTheMinimum() throws {
    let strict = try run(#"search domainIdentifier == "notes*" | importantNotes(minimumScore: 0.7)"#).first!.content.resultItems
    let loose = try run(#"search domainIdentifier == "notes*" | importantNotes(minimumScore: 0.3)"#).first!.content.resultItems
    #expect(strict.allSatisfy { ($0.score ?? 0) >= 0.7 })
    #expect(loose.count > strict.count)
    #expect(Set(strict.map(\.id)).isSubset(of: Set(loose.map(\.id))))
    // The score is the declared formula: 0.6 * rating / 5 + 0.4 * recency(14 days).
    let item = try #require(strict.first)
    let rating = item.item.attributeSet["rating"]?.numericValue ?? 0
    let age = SampleIndex.now.timeIntervalSince1970 - item.item.attributeSet["contentModificationDate"]!.numericValue!
    let expected = 0.6 * rating / 5 + 0.4 * pow(0.5, max(0, age) / (14 * 86400))
    #expect(abs(item.score! - expected) < 1e-9)
  }

  @Test func freshnessBoostsRecentItemsAboveOlderOnes() throws {
    let boosted = try run(#"search "budget" | freshness(halfLife: 7d, weight: 1) | top 20"#).first!.content.resultItems
    let plain = try run(#"search "budget" | top 20"#).first!.content.resultItems
    #expect(Set(boosted.map(\.id)) == Set(plain.map(\.id)))
    #expect(boosted.map { $0.score ?? 0 } == boosted.map { $0.score ?? 0 }.sorted(by: >))
    // Every score is relevance * (1 + recency) and records its freshness term.
    for item in boosted {
      let base = item.relevance > 0 ? item.relevance : 1
      let freshness = try #require(item.scoreTerms.last)
      #expect(abs((item.score ?? 0) - (base + freshness.value)) < 1e-9)
    }
  }

  // MARK: Concurrency

  @Test func manyQueriesWithCustomStagesRunAtOnce() async throws {
    let registry = try self.registry()
    let queries = [
      #"search domainIdentifier == "trails" | nearby(latitude: 37.7, longitude: -119.5, radius: 300) | count"#,
      #"search domainIdentifier == "notes*" | importantNotes(minimumScore: 0.5) | count"#,
      #"search "budget" | freshness | count"#,
    ]
    let expected = try queries.map { try countOf($0, registry: registry) }
    let results = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
      for round in 0..<24 {
        let index = round % queries.count
        group.addTask { (index, try self.countOf(queries[index], registry: registry)) }
      }
      var all: [(Int, Int)] = []
      for try await result in group { all.append(result) }
      return all
    }
    #expect(results.count == 24)
    for (index, count) in results { #expect(count == expected[index]) }
  }

  func countOf(_ query: String, registry: StageRegistry) throws -> Int {
    let executor = QueryExecutor(index: SampleIndex.shared, registry: registry)
    var count = -1
    try executor.run(query, options: SampleIndex.options) { reply in
      if case .count(let n) = reply.content { count = n }
    }
    return count
  }
}

/// The `.stage` examples in `Grammar/examples/stages`: valid ones load cleanly; each invalid
/// one produces the diagnostic its first comment line names.
@Suite struct StageFileTests {
  static let folder = SampleIndex.repository.appendingPathComponent("Grammar/examples/stages")

  static let invalidFiles: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
    .filter { $0.hasPrefix("invalid-") && $0.hasSuffix(".stage") }.sorted()

  @Test func theValidExamplesLoad() throws {
    var registry = StandardLibrary.registry()
    let text = try String(contentsOf: Self.folder.appendingPathComponent("valid.stage"), encoding: .utf8)
    let error = StageFileLoader.load(source: SourceText(text, name: "valid.stage"), into: &registry, catalog: try SampleIndex.shared.catalog())
    #expect(error == nil, "\(error.map { DiagnosticRenderer.render($0) } ?? "")")
    for name in ["importantNotes", "nearby", "hardTrails", "recentTop", "importantCount"] {
      #expect(registry.definition(named: name)?.descriptor.isCustom == true)
    }
    let executor = QueryExecutor(index: SampleIndex.shared, registry: registry)
    var counts: [Int] = []
    try executor.run(#"search domainIdentifier == "trails" | hardTrails"#, options: SampleIndex.options) { reply in
      if case .count(let n) = reply.content { counts.append(n) }
    }
    var direct: [Int] = []
    try executor.run(#"search domainIdentifier == "trails" && difficulty == "hard" | count"#, options: SampleIndex.options) { reply in
      if case .count(let n) = reply.content { direct.append(n) }
    }
    #expect(counts == direct)
    #expect(counts.first ?? 0 > 0)
  }

  @Test(arguments: invalidFiles)
  func anInvalidExampleGivesItsDiagnostic(_ file: String) throws {
    let text = try String(contentsOf: Self.folder.appendingPathComponent(file), encoding: .utf8)
    let lines = text.components(separatedBy: "\n")
    // "# error ID at L:C: description" and "# message: MESSAGE"
    let header = lines[0].dropFirst("# error ".count).split(separator: " ", maxSplits: 3)
    let id = String(header[0]), location = String(header[2].dropLast())
    let message = String(lines[1].dropFirst("# message: ".count))
    var registry = StandardLibrary.registry()
    let error = try #require(StageFileLoader.load(source: SourceText(text, name: file), into: &registry, catalog: try SampleIndex.shared.catalog()))
    let primary = error.primary
    let (line, column) = error.source.location(of: primary.span.start)
    #expect(primary.id == id)
    #expect("\(line):\(column)" == location)
    #expect(primary.message == message)
    #expect(registry.names == StandardLibrary.registry().names, "a bad file registers nothing")
  }

  @Test func aFileWithOneBadStageRegistersNoneOfItsStages() throws {
    var registry = StandardLibrary.registry()
    let text = """
      stage fine() "ok" : items -> count = count
      stage broken() "bad" : items -> items = count
      """
    #expect(StageFileLoader.load(source: SourceText(text, name: "mixed.stage"), into: &registry, catalog: nil) != nil)
    #expect(registry.definition(named: "fine") == nil)
  }

  @Test func aStageCannotCallItself() throws {
    var registry = StandardLibrary.registry()
    let text = #"stage loop() "x" : items -> items = loop"#
    let error = try #require(StageFileLoader.load(source: SourceText(text, name: "loop.stage"), into: &registry, catalog: nil))
    #expect(error.primary.id == "stage.unknown")
  }
}
