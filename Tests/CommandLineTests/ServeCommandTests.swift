import Foundation
import Glibc
import SearchIndex
import SearchlightTestSupport
import Testing

/// `searchlight serve` as a process: its usage errors, its start line, answers that match the
/// CLI's `--format json` output line for line, and a clean stop on SIGTERM.
@Suite struct ServeCommandTests {
  @Test func aNonLoopbackHostWithoutTokensIsAUsageErrorNamingTokenFile() throws {
    try Workspace.with { workspace in
      try workspace.write("items.jsonl", #"{"id":"a","attributes":{"title":"A"}}"# + "\n")
      #expect(try workspace.run("index", "--db", "i.db", "items.jsonl").status == 0)
      for host in ["0.0.0.0", "192.168.1.10", "::"] {
        let result = try workspace.run("serve", "--db", "i.db", "--host", host, "--port", "0")
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("--token-file"), "\(result)")
      }
    }
  }

  @Test(arguments: [
    (["--port", "http"], 64, "--port"), (["--host", "example.com"], 64, "--host"), (["--max-body", "0"], 64, "--max-body"),
    (["--token-file", "missing.json"], 66, "missing.json"), (["--token-file", "bad.json"], 65, "bad.json"),
    (["extra"], 64, "extra"),
  ])
  func badFlagsFailBeforeServing(_ flags: [String], _ status: Int32, _ mentions: String) throws {
    try Workspace.with { workspace in
      try workspace.write("items.jsonl", #"{"id":"a","attributes":{"title":"A"}}"# + "\n")
      try workspace.write("bad.json", #"{"tokens":[{"token":""}]}"#)
      #expect(try workspace.run("index", "--db", "i.db", "items.jsonl").status == 0)
      let result = try workspace.run(["serve", "--db", "i.db", "--port", "0"] + flags)
      #expect(result.status == status, "\(result)")
      #expect(result.stderr.contains(mentions), "\(result)")
    }
  }

  /// A running `serve` process and the port its start line names.
  final class Served {
    let process = Process()
    let log: URL
    var port: UInt16 = 0

    init(_ arguments: [String], in directory: URL) throws {
      log = directory.appendingPathComponent("serve.log")
      _ = FileManager.default.createFile(atPath: log.path, contents: nil)
      process.executableURL = CLI.executable
      process.arguments = ["serve", "--port", "0"] + arguments
      process.currentDirectoryURL = directory
      var environment = ProcessInfo.processInfo.environment
      environment["SEARCHLIGHT_NOW"] = "2026-11-29T12:00:00Z"
      environment["SEARCHLIGHT_DB"] = nil
      process.environment = environment
      process.standardError = try FileHandle(forWritingTo: log)
      process.standardOutput = FileHandle.nullDevice
      try process.run()
      let deadline = Date().addingTimeInterval(60)
      while port == 0, Date() < deadline, process.isRunning {
        if let range = stderr.range(of: #"http://127\.0\.0\.1:(\d+)/"#, options: .regularExpression) {
          port = UInt16(stderr[range].dropFirst("http://127.0.0.1:".count).dropLast()) ?? 0
        }
        Thread.sleep(forTimeInterval: 0.05)
      }
    }

    var stderr: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
    var client: HTTPTestClient { HTTPTestClient(port: port) }

    /// Sends SIGTERM and waits for the exit status.
    func terminate() -> Int32 {
      kill(process.processIdentifier, SIGTERM)
      process.waitUntilExit()
      return process.terminationStatus
    }
  }

  static func withoutTokens(_ text: String) -> String {
    text.replacingOccurrences(of: #""queryToken":"q[0-9a-z]{10}""#, with: #""queryToken":"Q""#, options: .regularExpression)
  }

  @Test func answersMatchTheCLIsJSONAndSIGTERMStopsCleanly() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("searchlight-serve-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let workspace = Workspace(directory: directory)
    let samples = SampleIndex.samples
    #expect(try workspace.run("index", "--db", "i.db", samples.appendingPathComponent("trails.jsonl").path,
                              samples.appendingPathComponent("notes.jsonl").path).status == 0)
    let served = try Served(["--db", "i.db"], in: directory)
    #expect(served.port != 0, "\(served.stderr)")
    let lines = served.stderr.split(separator: "\n")
    #expect(lines.count == 1 && lines[0].hasPrefix("searchlight serve: http://127.0.0.1:"), "\(served.stderr)")
    let now = ["SEARCHLIGHT_NOW": "2026-11-29T12:00:00Z"]

    for query in ["keywords == \"waterfall\"c && rating >= 4.5", "search domainIdentifier == \"trails\" | group by stateOrProvince | count", "waterfall"] {
      let cli = try workspace.run(["query", "--db", "i.db", "--format", "json", "--", query], environment: now)
      let http = try await served.client.send("POST", "/v1/query", body: JSONValue.object(JSONObject([("query", .string(query))])).compactText)
      #expect(http.status == 200)
      #expect(cli.status == 0 && !cli.stdout.isEmpty, "\(cli)")
      #expect(Self.withoutTokens(http.text) == Self.withoutTokens(cli.stdout), "\(query)")
    }
    // A bad query: the same error object, with endColumn besides.
    let badCLI = try workspace.run(["query", "--db", "i.db", "--format", "json", "--", "title == \"june"], environment: now)
    let badHTTP = try await served.client.send("POST", "/v1/query", body: #"{"query":"title == \"june"}"#)
    #expect(badHTTP.status == 400)
    let cliError = try #require(try JSONParser.parse(badCLI.stderr)["error"]?.objectValue)
    let httpError = try #require(badHTTP.json?["error"]?.objectValue)
    #expect(cliError["message"] != nil && cliError["column"] != nil)
    for (key, value) in cliError { #expect(httpError[key] == value, "\(key)") }

    let call = #"{"query":{"type":"search","value":{"root":{"type":"allText","value":{"terms":["waterfall"]}},"pageSize":3}}}"#
    let toolCLI = try workspace.run(["tool-call", "--db", "i.db", "--", call], environment: now)
    let toolHTTP = try await served.client.send("POST", "/v1/tool-call", body: call)
    #expect(toolCLI.status == 0 && toolCLI.stdout.contains("queryToken"), "\(toolCLI)")
    #expect(Self.withoutTokens(toolHTTP.text) == Self.withoutTokens(toolCLI.stdout))

    let question = "trails with waterfalls"
    let askCLI = try workspace.run(["ask", "--db", "i.db", "--format", "json", "--", question], environment: now)
    var patient = served.client
    patient.timeoutSeconds = 600
    let askHTTP = try await patient.send(
      "POST", "/v1/ask", headers: ["Accept": "text/event-stream"], body: JSONValue.object(JSONObject([("question", .string(question))])).compactText)
    let events = askHTTP.text.components(separatedBy: "\n\n").filter { !$0.isEmpty && !$0.hasPrefix(": ") }.map { String($0.dropFirst("data: ".count)) + "\n" }
    #expect(askCLI.stdout.contains("\"event\":\"source\"") && askCLI.stdout.contains("\"event\":\"done\""), "\(askCLI)")
    #expect(Self.withoutTokens(events.joined()) == Self.withoutTokens(askCLI.stdout))

    #expect(served.terminate() == 0)
    #expect(served.stderr.contains("stopping"))
  }
}
