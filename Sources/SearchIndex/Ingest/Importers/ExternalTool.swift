import Foundation

/// Runs a helper program an importer needs (`pdftotext`), bounded in time and output.
enum ExternalTool {
  /// What a run gave.
  struct Output {
    var status: Int32
    /// Standard output, at most the limit given.
    var bytes: [UInt8]
    /// True when standard output went past the limit (the program was stopped there).
    var truncated: Bool
    /// The first line of standard error, nil when it was empty.
    var errorLine: String?
  }

  /// A run that did not finish.
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// The path of the executable `name` in a `PATH` folder, nil when there is none.
  static func find(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for folder in path.split(separator: ":") where !folder.isEmpty {
      let candidate = (String(folder) as NSString).appendingPathComponent(name)
      var isFolder: ObjCBool = false
      if FileManager.default.fileExists(atPath: candidate, isDirectory: &isFolder), !isFolder.boolValue,
        FileManager.default.isExecutableFile(atPath: candidate)
      {
        return candidate
      }
    }
    return nil
  }

  /// Runs `executable` with `arguments`, standard input empty and output going to temporary
  /// files (so a chatty program never blocks on a pipe). The program is stopped when it runs
  /// longer than `timeout` seconds (an error) or writes more than `outputLimit` bytes (the
  /// output is cut there).
  static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval, outputLimit: Int) throws -> Output {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("searchlight-tool-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let outURL = folder.appendingPathComponent("stdout")
    let errURL = folder.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let out = try FileHandle(forWritingTo: outURL)
    let err = try FileHandle(forWritingTo: errURL)
    defer {
      try? out.close()
      try? err.close()
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let deadline = Date().addingTimeInterval(timeout)
    var truncated = false
    var pause: useconds_t = 1000
    while process.isRunning {
      if Date() > deadline {
        stop(process)
        process.waitUntilExit()
        throw Failure(description: "still running after \(Int(timeout)) s; stopped")
      }
      let written = (try? FileManager.default.attributesOfItem(atPath: outURL.path)[.size] as? NSNumber)?.intValue ?? 0
      if written > outputLimit {
        truncated = true
        stop(process)
        break
      }
      usleep(pause)
      pause = min(pause * 2, 50_000)
    }
    process.waitUntilExit()
    var bytes = try prefix(of: outURL, count: outputLimit + 1)
    if bytes.count > outputLimit {
      truncated = true
      bytes.removeLast(bytes.count - outputLimit)
    }
    let errorText = TextDecoding.utf8OrWindows1252((try? prefix(of: errURL, count: 4096)) ?? [])
    let errorLine = errorText.split(separator: "\n").first.map { $0.trimming(" \t\r") }
    return Output(status: truncated ? 0 : process.terminationStatus, bytes: bytes, truncated: truncated, errorLine: errorLine)
  }

  /// Stops `process` with SIGKILL: SIGTERM can be ignored, and a child inherits ignored
  /// signals from its parent (test runners ignore SIGTERM).
  private static func stop(_ process: Process) {
    kill(process.processIdentifier, SIGKILL)
  }

  /// The first `count` bytes of the file at `url`.
  private static func prefix(of url: URL, count: Int) throws -> [UInt8] {
    let handle = try FileHandle(forReadingFrom: url)
    defer { try? handle.close() }
    return [UInt8](try handle.read(upToCount: count) ?? Data())
  }
}
