import Foundation
import Testing

/// What one run of the `searchlight` binary did.
struct CLIResult: CustomStringConvertible {
  var status: Int32
  var stdout: String
  var stderr: String
  /// False when the process died from a signal (a crash) instead of calling exit.
  var exitedNormally: Bool

  var description: String { "status \(status)\nstdout: \(stdout)\nstderr: \(stderr)" }
}

/// Runs the `searchlight` binary built next to the test bundle.
enum CLI {
  private final class BundleToken {}

  /// The binary: `SEARCHLIGHT_BINARY` when set, else `searchlight` in the build folder that holds
  /// the test bundle (`.build/<config>/`).
  static let executable: URL = {
    if let override = ProcessInfo.processInfo.environment["SEARCHLIGHT_BINARY"], !override.isEmpty {
      return URL(fileURLWithPath: override)
    }
    let argv0 = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let testBundle = Bundle(for: BundleToken.self).bundleURL
    let candidates = [
      argv0.appendingPathComponent("searchlight"),
      Bundle.main.bundleURL.appendingPathComponent("searchlight"),
      testBundle.appendingPathComponent("searchlight"),
      testBundle.deletingLastPathComponent().appendingPathComponent("searchlight"),
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
  }()

  /// Runs `searchlight arguments...` in `directory`, feeding `stdin` (or nothing) to it.
  ///
  /// Output goes to files rather than pipes, so a chatty process can never block on a full pipe.
  /// `SEARCHLIGHT_DB` and `SEARCHLIGHT_NOW` are removed from the environment so the caller's
  /// shell cannot change what a test sees.
  static func run(
    _ arguments: [String], stdin: String? = nil, in directory: URL, environment: [String: String] = [:]
  ) throws -> CLIResult {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.currentDirectoryURL = directory
    var env = ProcessInfo.processInfo.environment
    env["SEARCHLIGHT_DB"] = nil
    env["SEARCHLIGHT_NOW"] = nil
    env["NO_COLOR"] = "1"
    // The configuration file is the workspace's own (none unless a test writes one).
    env["XDG_CONFIG_HOME"] = directory.appendingPathComponent(".config").path
    env.merge(environment) { $1 }
    process.environment = env

    let outputs = FileManager.default.temporaryDirectory.appendingPathComponent("searchlight-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: outputs) }
    let outURL = outputs.appendingPathComponent("stdout")
    let errURL = outputs.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let out = try FileHandle(forWritingTo: outURL)
    let err = try FileHandle(forWritingTo: errURL)
    defer {
      try? out.close()
      try? err.close()
    }
    process.standardOutput = out
    process.standardError = err

    let input = Pipe()
    process.standardInput = stdin == nil ? FileHandle.nullDevice : input
    try process.run()
    if let stdin {
      input.fileHandleForWriting.write(Data(stdin.utf8))
      try input.fileHandleForWriting.close()
    }
    process.waitUntilExit()
    return CLIResult(
      status: process.terminationStatus,
      stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
      stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self),
      exitedNormally: process.terminationReason == .exit)
  }
}

/// A temporary working directory for one test: files are written into it, the binary runs in
/// it (so paths in messages are the short relative ones the test passed), and it is removed at
/// the end.
struct Workspace {
  let directory: URL

  /// Runs `body` with a fresh workspace.
  static func with<T>(_ body: (Workspace) throws -> T) throws -> T {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("searchlight-cli-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(Workspace(directory: url))
  }

  /// The absolute path of `name` in the workspace.
  func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

  /// Writes `text` to `name` (creating folders).
  func write(_ name: String, _ text: String) throws {
    let url = directory.appendingPathComponent(name)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
  }

  /// Writes raw bytes to `name`.
  func write(_ name: String, bytes: [UInt8]) throws {
    try Data(bytes).write(to: directory.appendingPathComponent(name))
  }

  /// The bytes of `name`, nil when it does not exist.
  func contents(_ name: String) -> Data? { FileManager.default.contents(atPath: path(name)) }

  /// True when `name` exists.
  func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path(name)) }

  /// Runs `searchlight arguments...` in the workspace.
  @discardableResult
  func run(_ arguments: String..., stdin: String? = nil) throws -> CLIResult {
    try CLI.run(arguments, stdin: stdin, in: directory)
  }

  /// Runs `searchlight arguments` in the workspace.
  @discardableResult
  func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> CLIResult {
    try CLI.run(arguments, stdin: stdin, in: directory, environment: environment)
  }
}

/// The checked-in fixtures folder.
let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .appendingPathComponent("Fixtures")

/// The two items of `Tests/Fixtures/mini.jsonl`, as stored.
let miniIdentifiers = ["n1", "trail-17"]

/// A workspace whose `index.db` holds the items of `mini.jsonl` (generation 1).
func withMiniIndex<T>(_ body: (Workspace) throws -> T) throws -> T {
  try Workspace.with { workspace in
    let result = try workspace.run("index", "--db", "index.db", fixtures.appendingPathComponent("mini.jsonl").path)
    #expect(result.status == 0, "\(result)")
    return try body(workspace)
  }
}
