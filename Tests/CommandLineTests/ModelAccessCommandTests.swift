import Foundation
import SearchIndex
import SearchlightTestSupport
import Testing

/// How `ask` reaches a hosted or local model server: the API key, the model when none is
/// named, the idle timeout and what a model failure does to the exit status.
@Suite struct ModelAccessCommandTests {
  static let now = ["--now", "2026-11-29T12:00:00Z"]
  static var db: String { SampleIndex.shared.path }
  /// Nothing from the caller's environment: no model, no key.
  static let clean = ["SEARCHLIGHT_MODEL_URL": "", "SEARCHLIGHT_MODEL": "", "SEARCHLIGHT_API_KEY": "", "OPENAI_API_KEY": ""]
  static let answer = ScriptedResponse.events([
    #"{"choices":[{"index":0,"delta":{"content":"Nothing to add."},"finish_reason":null}]}"#,
    #"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#, "[DONE]",
  ])

  static func ask(_ workspace: Workspace, _ loopback: LoopbackHTTPServer, _ extra: [String], environment: [String: String] = [:]) throws -> CLIResult {
    try workspace.run(
      ["ask", "--db", db, "--model-url", loopback.baseURL.absoluteString] + now + extra + ["orion retrospective"],
      environment: clean.merging(environment) { $1 })
  }

  @Test func theKeyComesFromTheFileThenSearchlightThenOpenAIVariables() throws {
    try Workspace.with { workspace in
      try workspace.write("key.txt", "sk-from-file\n")
      let cases: [(arguments: [String], environment: [String: String], expected: String?)] = [
        (["--model", "m"], [:], nil),
        (["--model", "m"], ["OPENAI_API_KEY": "sk-openai"], "Bearer sk-openai"),
        (["--model", "m"], ["OPENAI_API_KEY": "sk-openai", "SEARCHLIGHT_API_KEY": "sk-searchlight"], "Bearer sk-searchlight"),
        (["--model", "m", "--api-key-file", workspace.path("key.txt")], ["SEARCHLIGHT_API_KEY": "sk-searchlight"], "Bearer sk-from-file"),
      ]
      for (arguments, environment, expected) in cases {
        let loopback = try LoopbackHTTPServer { _ in Self.answer }
        defer { loopback.stop() }
        let result = try Self.ask(workspace, loopback, arguments, environment: environment)
        #expect(result.status == 0, "\(result)")
        #expect(loopback.requests.first?.headers["authorization"] == expected)
      }
    }
  }

  @Test func aRefusedKeyExitsWithTheServersMessageAndNeverPrintsTheKey() throws {
    let loopback = try LoopbackHTTPServer([.json(#"{"error":{"message":"Incorrect API key provided"}}"#, status: 401)])
    defer { loopback.stop() }
    try Workspace.with { workspace in
      let result = try Self.ask(workspace, loopback, ["--model", "m"], environment: ["SEARCHLIGHT_API_KEY": "sk-secret-4242"])
      #expect(result.status == 74)
      #expect(result.stderr.hasPrefix("error: model server returned http 401: Incorrect API key provided\n"), "\(result.stderr)")
      #expect(result.stderr.contains("--api-key-file"))
      #expect(result.stdout.isEmpty)
      #expect(!(result.stdout + result.stderr).contains("sk-secret-4242"))
    }
  }

  @Test func fallbackOfflineAnswersWithoutTheModelAfterANote() throws {
    let loopback = try LoopbackHTTPServer([.json(#"{"error":{"message":"rate limit reached"}}"#, status: 429), .json(#"{"error":{"message":"rate limit reached"}}"#, status: 429)])
    defer { loopback.stop() }
    try Workspace.with { workspace in
      let result = try Self.ask(workspace, loopback, ["--model", "m", "--fallback", "offline"])
      #expect(result.status == 0, "\(result)")
      #expect(result.stderr == "note: model server returned http 429: rate limit reached; answering without the model\n")
      #expect(result.stdout.hasPrefix("Found "))
    }
  }

  @Test func withoutAModelNameTheServersOnlyModelIsUsed() throws {
    let loopback = try LoopbackHTTPServer([.json(#"{"object":"list","data":[{"id":"smollm2-135m","object":"model"}]}"#)]) { _ in Self.answer }
    defer { loopback.stop() }
    try Workspace.with { workspace in
      let result = try Self.ask(workspace, loopback, [])
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout.hasPrefix("Nothing to add."))
    }
    // Asked once, then every turn names the listed model.
    let requests = loopback.requests.map { "\($0.method) \($0.path)" }
    #expect(requests.first == "GET /v1/models")
    #expect(requests.dropFirst().allSatisfy { $0 == "POST /v1/chat/completions" } && requests.count > 1, "\(requests)")
    #expect(loopback.requests.dropFirst().allSatisfy { $0.json?["model"] == "smollm2-135m" })
  }

  @Test func aServerWithSeveralModelsNeedsOneNamed() throws {
    let loopback = try LoopbackHTTPServer([.json(#"{"data":[{"id":"llama3"},{"id":"qwen3"}]}"#)])
    defer { loopback.stop() }
    try Workspace.with { workspace in
      let result = try Self.ask(workspace, loopback, [])
      #expect(result.status == 74)
      #expect(result.stderr.hasPrefix("error: no model named: the server offers 2 models (llama3, qwen3); name one with --model\n"), "\(result.stderr)")
    }
    #expect(loopback.requests.count == 1)
  }

  @Test func aServerThatNeverAnswersFailsAfterTheIdleTimeout() throws {
    let loopback = try LoopbackHTTPServer([.neverRespond])
    defer { loopback.stop() }
    try Workspace.with { workspace in
      let result = try Self.ask(workspace, loopback, ["--model", "m", "--timeout", "1"])
      #expect(result.status == 74)
      #expect(result.stderr.hasPrefix("error: model server sent no response within 1s\n"), "\(result.stderr)")
      #expect(result.stderr.contains("--timeout SECONDS"))
    }
  }

  @Test func badKeyFilesAndFallbacksAreRefused() throws {
    let loopback = try LoopbackHTTPServer([])
    defer { loopback.stop() }
    try Workspace.with { workspace in
      let missing = try Self.ask(workspace, loopback, ["--api-key-file", workspace.path("nothing.txt")])
      #expect(missing.status == 66)
      #expect(missing.stderr.hasPrefix("error: cannot read --api-key-file '\(workspace.path("nothing.txt"))': no such file\n"))
      try workspace.write("empty.txt", "\n")
      let empty = try Self.ask(workspace, loopback, ["--api-key-file", workspace.path("empty.txt")])
      #expect(empty.status == 64)
      let fallback = try Self.ask(workspace, loopback, ["--fallback", "sometimes"])
      #expect(fallback.status == 64)
      #expect(fallback.stderr.hasPrefix("error: unknown --fallback 'sometimes'; use one of offline, unreachable, none\n"))
    }
    #expect(loopback.requests.isEmpty)
  }
}
