import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Stages
import Testing

/// Searchlight against a real model: llama.cpp's `llama-server` with SmolLM2-135M-Instruct, a
/// small instruction-tuned model that runs on a CPU. What must hold whatever such a model
/// writes: the answer ends within its time and token budget, its sources come only from the
/// searches, the client sleeps while the model works, and embeddings and `similar` work
/// against the real `/v1/embeddings`.
///
/// Each test prints its measurements (`measured: …`) for BENCHMARKS.md.
@Suite(
  .serialized,
  .enabled(
    if: LocalModel.enabled,
    "no local model: set SEARCHLIGHT_LLAMA_SERVER and SEARCHLIGHT_LLAMA_MODEL (.ci/run sets them and SEARCHLIGHT_REQUIRE_LLAMA=1)"))
struct LocalModelTests {
  static let question = "What went wrong at the Orion launch?"
  /// Tokens each model turn may generate in these tests.
  static let maximumTokens = 256
  /// Generous: a 135M model on two loaded cores writes a few tokens a second at worst.
  static let answerLimit: Duration = .seconds(600)

  static func session(_ server: LlamaServer, configure: (inout AnswerSession.Configuration) -> Void = { _ in }) throws -> AnswerSession {
    let registry = StandardLibrary.registry()
    let index = SampleIndex.shared
    let tool = SearchTool(executor: QueryExecutor(index: index, registry: registry), options: SampleIndex.options, maximumResultCount: 10)
    let schema = try ToolSchemaGenerator(index: index, registry: registry, scope: SampleIndex.options.scope).tool(.focused)
    var configuration = AnswerSession.Configuration()
    configuration.generation.maxTokens = maximumTokens
    configuration.generation.temperature = 0
    configuration.generation.seed = 7
    configure(&configuration)
    let model = OpenAICompatibleModel(
      server: ModelServer(baseURL: server.baseURL, requestTimeout: answerLimit, idleTimeout: .seconds(120)), model: "smollm2")
    return AnswerSession(
      tool: tool, toolDefinition: ToolDefinition(openAIFunction: schema)!, model: model,
      planner: try BuiltinPlanner(index: index, clock: SampleIndex.clock, registry: registry), configuration: configuration)
  }

  @Test func aStreamedAnswerEndsWithinItsBudgetAndCitesOnlyWhatTheSearchesReturned() async throws {
    try await LlamaServer.with(.chat) { server in
      let session = try Self.session(server)
      let started = ContinuousClock.now
      var returned = Set<String>()
      var sources: [String] = []
      var texts: [String] = []
      var notices: [String] = []
      var summary: AnswerSummary?
      for try await event in session.streamResponse(to: Self.question) {
        switch event {
        case .reply(let reply): returned.formUnion(reply.content.resultItems.map(\.id))
        case .source(let source): sources.append(source.id)
        case .text(let piece): texts.append(piece)
        case .notice(let message): notices.append(message)
        case .done(let done): summary = done
        case .cut, .unsupported: break
        }
      }
      let elapsed = ContinuousClock.now - started
      let done = try #require(summary, "no done event; notices: \(notices)\n\(server.logTail)")
      // The model answered (no fall-back to the offline answer).
      #expect(done.responder == .model("smollm2"), "notices: \(notices)\n\(server.logTail)")
      #expect(!notices.contains { $0.contains("answering without the model") }, "\(notices)")
      #expect(!done.text.isEmpty)
      #expect(texts.joined() == done.text)
      // Sources only from searches, each once.
      #expect(!sources.isEmpty)
      #expect(Set(sources).isSubset(of: returned), "sources \(sources) not all among returned \(returned)")
      #expect(Set(sources).count == sources.count)
      // Within the budget: every model turn stops at the token limit (the rounds plus the
      // planned search's extra turn plus the answer).
      // A stream the client cuts itself (the model repeating a sentence) ends before the
      // server's usage chunk; every other answer must report it.
      let usage = done.usage ?? TokenUsage(promptTokens: 0, completionTokens: 0, totalTokens: 0)
      if done.usage == nil { #expect(done.cut?.reason == .repetition, "the server reported no usage: \(String(describing: done.cut))") }
      let turns = done.toolRounds + 2
      #expect(usage.completionTokens <= Self.maximumTokens * turns, "\(usage)")
      #expect(elapsed < Self.answerLimit)
      print(
        "measured: answer in \(elapsed), \(usage.completionTokens) completion tokens, \(usage.promptTokens) prompt tokens, "
          + "toolRounds \(done.toolRounds), \(done.unsupported.count) unsupported sentences, cut \(String(describing: done.cut)); "
          + "answer: \(done.text.debugDescription)")
    }
  }

  @Test func theClientSleepsWhileTheModelAnswers() async throws {
    try await LlamaServer.with(.chat) { server in
      let run = try MeasuredProcess.run(
        MeasuredProcess.searchlight,
        ["ask", "--db", SampleIndex.shared.path, "--now", "2026-11-29T12:00:00Z", "--model-url", server.baseURL.absoluteString,
         "--max-tokens", String(Self.maximumTokens), "--", Self.question])
      #expect(run.status == 0, "\(run)")
      #expect(!run.stderr.contains("answering without the model"), "\(run)\n\(server.logTail)")
      #expect(run.stdout.contains("Sources:"), "\(run)")
      // A client that blocks costs a few percent while the model works; a spinning one
      // takes a whole core (95 % of the wall time before this client).
      #expect(run.cpuShare < 0.25, "\(run)")
      print(String(format: "measured: ask client cpu %.3f s (user %.3f, system %.3f) in %.2f s wall, %.1f%%",
                   run.cpu.seconds, run.userTime.seconds, run.systemTime.seconds, run.wall.seconds, run.cpuShare * 100))
    }
  }

  @Test func embeddingsAndSimilarWorkAgainstTheRealEndpoint() async throws {
    try await LlamaServer.with(.embeddings) { server in
      let client = EmbeddingsClient(server: ModelServer(baseURL: server.baseURL, requestTimeout: .seconds(300)), model: "smollm2")
      let vectors = try await client.embed(["A waterfall hike in Yosemite", "A waterfall hike in Yosemite", "Kitchen remodel invoice"])
      #expect(vectors.count == 3)
      let size = vectors[0].count
      #expect(size > 0 && vectors.allSatisfy { $0.count == size })
      #expect(vectors.joined().allSatisfy { $0.isFinite })
      #expect(Self.cosine(vectors[0], vectors[1]) > 0.999)

      // The CLI: embed the trails, then search by meaning.
      let folder = FileManager.default.temporaryDirectory.appendingPathComponent("searchlight-local-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: folder) }
      let db = folder.appendingPathComponent("trails.db").path
      let indexed = try MeasuredProcess.run(
        MeasuredProcess.searchlight, ["index", "--db", db, SampleIndex.samples.appendingPathComponent("trails.jsonl").path])
      #expect(indexed.status == 0, "\(indexed)")
      let embedded = try MeasuredProcess.run(
        MeasuredProcess.searchlight, ["embeddings", "--db", db, "--url", server.baseURL.absoluteString, "--model", "smollm2"])
      #expect(embedded.status == 0, "\(embedded)\n\(server.logTail)")
      let count = try #require(embedded.stdout.firstMatch(of: #/embedded (\d+) items/#).flatMap { Int($0.1) }, "\(embedded)")
      #expect(count > 0)
      #expect(embedded.cpuShare < 0.25, "\(embedded)")
      let similar = try MeasuredProcess.run(
        MeasuredProcess.searchlight,
        ["query", "--db", db, "--format", "json", #"similar "a hike to a waterfall" within 2 | top 3"#])
      #expect(similar.status == 0, "\(similar)")
      let ids = similar.stdout.matches(of: #/"id":"([^"]+)"/#).map { String($0.1) }
      #expect(ids.count == 3, "\(similar)")
      print(String(format: "measured: embeddings of %d items in %.2f s (%.1f items/s), client cpu %.3f s, %.1f%%",
                   count, embedded.wall.seconds, Double(count) / embedded.wall.seconds, embedded.cpu.seconds, embedded.cpuShare * 100))
    }
  }

  static func cosine(_ a: [Float], _ b: [Float]) -> Float {
    var dot: Float = 0, na: Float = 0, nb: Float = 0
    for (x, y) in zip(a, b) {
      dot += x * y
      na += x * x
      nb += y * y
    }
    return dot / max((na * nb).squareRoot(), 1e-12)
  }
}

/// Fails when the CI asks for the local model and it is not there, so a broken install
/// cannot pass as a disabled suite.
@Suite struct LocalModelRequirementTests {
  @Test func aRequiredLocalModelIsThere() throws {
    guard LocalModel.required else { return }
    let (server, model) = try LocalModel.paths()
    #expect(FileManager.default.isExecutableFile(atPath: server))
    #expect(FileManager.default.fileExists(atPath: model))
  }
}
