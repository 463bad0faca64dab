import Foundation
import SearchIndex
import SearchlightTestSupport
import Testing

/// `searchlight ask` end to end: offline on the samples, and against a loopback model server.
@Suite struct AskCommandTests {
  static let now = ["--now", "2026-11-29T12:00:00Z"]
  static var db: String { SampleIndex.shared.path }
  /// No model from the caller's environment.
  static let noModel = ["SEARCHLIGHT_MODEL_URL": "", "SEARCHLIGHT_MODEL": ""]

  /// Streamed chat-completion turns, as a llama.cpp server sends them.
  static func events(_ payloads: [String]) -> ScriptedResponse { .events(payloads + ["[DONE]"]) }
  static func text(_ piece: String) -> String {
    #"{"choices":[{"index":0,"delta":{"content":\#(JSONValue.string(piece).compactText)},"finish_reason":null}]}"#
  }
  static func finish(_ reason: String) -> String { #"{"choices":[{"index":0,"delta":{},"finish_reason":"\#(reason)"}]}"# }
  static let searchCall = #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"search_items","arguments":"{\"query\":{\"type\":\"search\",\"value\":{\"root\":{\"type\":\"allText\",\"value\":{\"terms\":[\"orion\",\"retrospective\"]}}}}}"}}]},"finish_reason":null}]}"#

  @Test func offlineAnswerStreamsThenListsItsSources() throws {
    try Workspace.with { workspace in
      let result = try workspace.run(["ask", "--db", Self.db] + Self.now + ["orion retrospective"], environment: Self.noModel)
      #expect(result.status == 0)
      #expect(result.stderr == "")
      #expect(result.stdout.hasPrefix("Found "))
      #expect(result.stdout.contains("\n- Orion launch retrospective (2026-07-09): "))
      #expect(result.stdout.contains("\n\nSources:\n  [1] note-52  Orion launch retrospective  2026-07-09\n"))
    }
  }

  @Test func textSyncedWithoutStoringItIsReadFromTheSourceBeforeItIsQuoted() throws {
    try Workspace.with { workspace in
      try workspace.write("notes/bread.md", "# Kitchen notebook\n\nFeed the sourdough starter twice a day with rye flour and keep it warm.\n")
      try workspace.write("notes/garden.md", "# Garden plan\n\nTomatoes along the south fence, basil between them.\n")
      let sync = try workspace.run("sync", "--db", "unstored.db", "--folder", "notes", "--no-store-text")
      #expect(sync.status == 0, "\(sync)")
      let stored = try workspace.run("query", "--db", "unstored.db", "--format", "json", #"search "sourdough starter""#)
      #expect(stored.stdout.contains("bread"), "the text is searchable: \(stored.stdout)")
      #expect(!stored.stdout.contains("rye flour"), "and not stored")
      let answer = try workspace.run(["ask", "--db", "unstored.db"] + Self.now + ["how often do I feed the sourdough starter"], environment: Self.noModel)
      #expect(answer.status == 0, "\(answer)")
      #expect(answer.stdout.contains("Feed the sourdough starter twice a day with rye flour"), "\(answer.stdout)")
      #expect(answer.stdout.contains("Sources:"))
    }
  }

  @Test func nothingRelevantIsSaidWithoutSources() throws {
    try Workspace.with { workspace in
      let result = try workspace.run(["ask", "--db", Self.db] + Self.now + ["--", "quantum chromodynamics?"], environment: Self.noModel)
      #expect(result.status == 0)
      #expect(result.stdout == "Nothing relevant was found in your items.\n")
    }
  }

  @Test func jsonPrintsOneEventPerLineEndingWithDone() throws {
    try Workspace.with { workspace in
      let result = try workspace.run(["ask", "--db", Self.db, "--format", "json"] + Self.now + ["orion retrospective"], environment: Self.noModel)
      #expect(result.status == 0)
      let events = try result.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
      let names = events.compactMap { $0["event"]?.stringValue }
      #expect(names.count == events.count)
      #expect(names.first == "reply")
      #expect(names.last == "done")
      #expect(names.contains("source") && names.contains("text"))
      #expect(events.first?["reply"]?["content"]?["type"] == "items")
      #expect(events.first { $0["event"] == "source" }?["item"]?["id"] == "note-52")
      #expect(events.last?["responder"] == "offline")
    }
  }

  @Test func timingReportsFirstSourceAndFirstText() throws {
    try Workspace.with { workspace in
      let result = try workspace.run(["ask", "--db", Self.db, "--timing"] + Self.now + ["orion retrospective"], environment: Self.noModel)
      #expect(result.status == 0)
      let pattern = #/^time to first source: [0-9.]+ ms, time to first text: [0-9.]+ ms, total: [0-9.]+ ms\nphases: (.*)\n$/#
      let match = try #require(result.stderr.wholeMatch(of: pattern), "\(result.stderr)")
      // The whole process: opening the index, its catalogue and vocabulary, the plan, the
      // searches and the printing, then the total since the process started.
      let names = match.1.split(separator: ", ").map { $0.split(separator: " ").first.map(String.init) ?? "" }
      #expect(names == ["start", "open", "catalogue", "vocabulary", "plan", "execute", "render", "total"], "\(result.stderr)")
    }
  }

  @Test func unreachableModelPrintsOneNoteAndAnswersOffline() throws {
    let refusing = LoopbackHTTPServer.RefusingPort()
    let port = refusing.port
    defer { withExtendedLifetime(refusing) {} }
    try Workspace.with { workspace in
      for (arguments, environment) in [
        (["--model-url", "http://127.0.0.1:\(port)", "--model", "m"], Self.noModel),
        ([], ["SEARCHLIGHT_MODEL_URL": "http://127.0.0.1:\(port)", "SEARCHLIGHT_MODEL": "m"]),
      ] {
        let result = try workspace.run(["ask", "--db", Self.db] + Self.now + arguments + ["orion retrospective"], environment: environment)
        #expect(result.status == 0)
        #expect(result.stderr == "note: model server unreachable at http://127.0.0.1:\(port)/v1/chat/completions: connection refused; answering without the model\n")
        #expect(result.stdout.hasPrefix("Found "))
      }
    }
  }

  @Test func withAModelServerTheToolRoundRunsAndTheAnswerStreams() throws {
    let loopback = try LoopbackHTTPServer([
      Self.events([Self.searchCall, Self.finish("tool_calls")]),
      Self.events([Self.text("The retrospective "), Self.text("lists action items."), Self.finish("stop")]),
    ])
    defer { loopback.stop() }
    try Workspace.with { workspace in
      let result = try workspace.run(
        ["ask", "--db", Self.db, "--model-url", loopback.baseURL.absoluteString, "--model", "qwen"] + Self.now + ["orion retrospective"])
      #expect(result.status == 0)
      #expect(result.stderr == "")
      #expect(result.stdout == "The retrospective lists action items.\n\nSources:\n  [1] note-52  Orion launch retrospective  2026-07-09\n")
    }
    #expect(loopback.requests.count == 2)
    #expect(loopback.requests.first?.json?["model"] == "qwen")
    #expect(loopback.requests.last?.json?["messages"]?.arrayValue?.last?["role"] == "tool")
  }

  @Test func interruptStopsTheAnswerCleanly() async throws {
    let streaming = TestGate()
    var answer = Self.events([Self.text("The retrospective")])
    answer.steps = Array(answer.steps.prefix(1)) + [.open(streaming), .pause(.seconds(300))]
    let loopback = try LoopbackHTTPServer([Self.events([Self.searchCall, Self.finish("tool_calls")]), answer])
    defer { loopback.stop() }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("searchlight-ask-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let errors = directory.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
    let process = Process()
    process.executableURL = CLI.executable
    process.arguments = ["ask", "--db", Self.db, "--model-url", loopback.baseURL.absoluteString, "--model", "m"] + Self.now + ["orion retrospective"]
    process.currentDirectoryURL = directory
    process.standardError = try FileHandle(forWritingTo: errors)
    let output = directory.appendingPathComponent("stdout")
    _ = FileManager.default.createFile(atPath: output.path, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: output)
    let exited = TestGate()
    process.terminationHandler = { _ in exited.open() }
    try process.run()
    defer { if process.isRunning { process.terminate() } }
    // Ctrl-C as soon as the answer streams, from a thread of its own: a test task starved by
    // other tests could miss the moment (the process gives up on a silent server after 60 s).
    let pid = process.processIdentifier
    Thread { if streaming.blockingWait(timeout: TestGate.patience) { kill(pid, SIGINT) } }.start()
    #expect(await exited.wait(timeout: TestGate.patience))
    #expect(process.terminationReason == .exit)
    let stderr = String(decoding: try Data(contentsOf: errors), as: UTF8.self)
    let stdout = String(decoding: try Data(contentsOf: output), as: UTF8.self)
    #expect(process.terminationStatus == 130, "stderr: \(stderr)\nstdout: \(stdout)")
    #expect(stderr.hasSuffix("cancelled\n"))
    // The server was still inside its pause: the request was torn down, not finished.
    #expect(await loopback.clientHungUp.wait(timeout: TestGate.patience))
  }

  @Test func demoEndsWithTwoOfflineQuestions() throws {
    try Workspace.with { workspace in
      let result = try workspace.run(["demo"], environment: Self.noModel)
      #expect(result.status == 0)
      #expect(result.stdout.contains("$ searchlight ask 'What went wrong at the Orion launch?'\nFound "))
      #expect(result.stdout.contains("$ searchlight ask 'How many trails are in Utah?'\n8 items match.\n\nSources:\n  [1] trail-"))
    }
  }

  @Test func usageErrors() throws {
    try Workspace.with { workspace in
      let missing = try workspace.run(["ask", "--db", Self.db], environment: Self.noModel)
      #expect(missing.status == 64)
      #expect(missing.stderr.hasPrefix("error: missing QUESTION\n"))
      let noURL = try workspace.run(["ask", "--db", Self.db, "--model", "m", "question"], environment: Self.noModel)
      #expect(noURL.status == 64)
      #expect(noURL.stderr.hasPrefix("error: --model needs --model-url <URL> (or SEARCHLIGHT_MODEL_URL)\n"))
      let badURL = try workspace.run(["ask", "--db", Self.db, "--model-url", "localhost:8080", "question"], environment: Self.noModel)
      #expect(badURL.status == 64)
      #expect(badURL.stderr.hasPrefix("error: 'localhost:8080' is not an http or https URL\n"))
    }
  }
}
