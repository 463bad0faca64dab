import Foundation
import SearchIndex
import SearchlightTestSupport
import Testing

/// `searchlight ask` with a model: the token limit it sends, the timeouts, the notes and
/// events of a cut answer, and the grounding check in the terminal and in JSON.
@Suite struct AskBoundsTests {
  typealias A = AskCommandTests

  static func answering(_ pieces: [String], finish: String = "stop") -> [ScriptedResponse] {
    [A.events([A.searchCall, A.finish("tool_calls")]), A.events(pieces.map(A.text) + [A.finish(finish)])]
  }

  static func ask(_ loopback: LoopbackHTTPServer, _ extra: [String]) throws -> CLIResult {
    try Workspace.with { workspace in
      try workspace.run(
        ["ask", "--db", A.db, "--model-url", loopback.baseURL.absoluteString, "--model", "m"] + A.now + extra + ["orion retrospective"],
        environment: ["SEARCHLIGHT_MODEL": ""])
    }
  }

  static let answer = ["The Orion launch got 1,900 sign-ups.", " It was held at Yosemite Falls.", " Kenji adds a canary."]

  @Test func theTokenLimitIsSentAndACutAnswerSaysSo() throws {
    let loopback = try LoopbackHTTPServer(Self.answering(["The retrospective lists"], finish: "length"))
    defer { loopback.stop() }
    let result = try Self.ask(loopback, ["--max-tokens", "64"])
    #expect(result.status == 0, "\(result)")
    #expect(loopback.requests.map { $0.json?["max_tokens"] } == [64, 64])
    #expect(result.stdout.hasPrefix("The retrospective lists\n\nSources:\n"))
    #expect(result.stderr == "note: the answer was cut at the token limit (64 tokens)\n")
  }

  @Test func withoutTheOptionTheDefaultLimitIsSent() throws {
    let loopback = try LoopbackHTTPServer(Self.answering(["See the Orion launch retrospective."]))
    defer { loopback.stop() }
    let result = try Self.ask(loopback, [])
    #expect(result.status == 0, "\(result)")
    #expect(loopback.requests.first?.json?["max_tokens"] == 512)
  }

  @Test func unsupportedSentencesAreMarkedInTheTerminal() throws {
    let loopback = try LoopbackHTTPServer(Self.answering(Self.answer))
    defer { loopback.stop() }
    let result = try Self.ask(loopback, [])
    #expect(result.status == 0, "\(result)")
    #expect(result.stdout.hasPrefix(
      "The Orion launch got 1,900 sign-ups. It was held at Yosemite Falls. [not in the sources: Yosemite, Falls] Kenji adds a canary.\n\nSources:\n"))
    #expect(result.stderr == "")
  }

  @Test func jsonTextIsUnchangedAndUnsupportedSentencesAreEvents() throws {
    let loopback = try LoopbackHTTPServer(Self.answering(Self.answer))
    defer { loopback.stop() }
    let result = try Self.ask(loopback, ["--format", "json"])
    #expect(result.status == 0, "\(result)")
    let events = try result.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
    let texts = events.filter { $0["event"] == "text" }.compactMap { $0["delta"]?.stringValue }
    #expect(texts.joined() == Self.answer.joined())
    let unsupported = events.filter { $0["event"] == "unsupported" }
    #expect(unsupported.map(\.compactText) == [
      #"{"event":"unsupported","sentence":"It was held at Yosemite Falls.","missing":["Yosemite","Falls"],"dropped":false}"#,
    ])
  }

  @Test func strictLeavesThemOutAndOffLeavesThemAlone() throws {
    let strict = try LoopbackHTTPServer(Self.answering(Self.answer))
    defer { strict.stop() }
    let dropped = try Self.ask(strict, ["--grounding", "strict"])
    #expect(dropped.stdout.hasPrefix("The Orion launch got 1,900 sign-ups. Kenji adds a canary.\n\nSources:\n"), "\(dropped)")
    #expect(dropped.stderr == "note: left out 1 sentence of the model's answer that the sources do not support\n")

    let off = try LoopbackHTTPServer(Self.answering(Self.answer))
    defer { off.stop() }
    let unchecked = try Self.ask(off, ["--grounding", "off"])
    #expect(unchecked.stdout.hasPrefix(Self.answer.joined() + "\n\nSources:\n"), "\(unchecked)")
    #expect(unchecked.stderr == "")
  }

  @Test func aSilentServerIsCutAfterTheIdleTimeout() throws {
    var stalled = A.events([A.text("The retrospective")])
    stalled.steps = Array(stalled.steps.prefix(1)) + [.pause(.seconds(120))]
    let loopback = try LoopbackHTTPServer([A.events([A.searchCall, A.finish("tool_calls")]), stalled])
    defer { loopback.stop() }
    let result = try Self.ask(loopback, ["--timeout", "1", "--format", "json"])
    #expect(result.status == 0, "\(result)")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(lines.contains(#"{"event":"notice","message":"the answer was cut short: model server sent nothing for 1s in the middle of a response"}"#))
    #expect(lines.contains(#"{"event":"cut","reason":"timeout"}"#))
  }

  @Test(arguments: [
    (["--max-tokens", "0"], "error: --max-tokens takes a positive whole number, not '0'"),
    (["--timeout", "soon"], "error: --timeout takes a positive number of seconds, not 'soon'"),
    (["--total-timeout", "-5"], "error: --total-timeout takes a positive number of seconds, not '-5'"),
    (["--grounding", "loose"], "error: unknown grounding 'loose'; use one of flag, strict, off"),
  ])
  func badValuesAreUsageErrors(_ options: [String], _ message: String) throws {
    try Workspace.with { workspace in
      let result = try workspace.run(
        ["ask", "--db", A.db, "--model-url", "http://127.0.0.1:9"] + options + ["orion"], environment: A.noModel)
      #expect(result.status == 64, "\(result)")
      #expect(result.stderr.hasPrefix(message), "\(result)")
    }
  }
}
