import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a program to its end and reports the CPU time the kernel charged to it, beside the
/// wall time it took: the measure of a client that should sleep while a server works.
///
/// The child is spawned and reaped here with `wait4`, which returns the child's own resource
/// usage, so tests running in parallel in the test process cannot blur the figure.
package struct MeasuredProcess: Sendable, CustomStringConvertible {
  package var status: Int32
  package var stdout: String
  package var stderr: String
  /// User plus system time of the child (all its threads).
  package var cpu: Duration
  package var userTime: Duration
  package var systemTime: Duration
  package var wall: Duration

  /// CPU time as a share of wall time (0.05 = 5 %).
  package var cpuShare: Double { cpu.seconds / max(wall.seconds, 1e-9) }

  package var description: String {
    String(
      format: "status %d, wall %.2f s, cpu %.3f s (user %.3f s, system %.3f s, %.1f%%)\nstdout: %@\nstderr: %@",
      status, wall.seconds, cpu.seconds, userTime.seconds, systemTime.seconds, cpuShare * 100, stdout, stderr)
  }

  /// The `searchlight` binary built beside the tests: `SEARCHLIGHT_BINARY` when set, else the
  /// one in the folder of the test bundle (`.build/<config>/`).
  package static var searchlight: URL {
    if let override = ProcessInfo.processInfo.environment["SEARCHLIGHT_BINARY"], !override.isEmpty {
      return URL(fileURLWithPath: override)
    }
    var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    // macOS runs tests from inside `….xctest/Contents/MacOS`.
    while folder.path.contains(".xctest") { folder.deleteLastPathComponent() }
    return folder.appendingPathComponent("searchlight")
  }

  /// Runs `executable arguments…` with stdin from /dev/null, the current environment plus
  /// `environment`, and blocks until it exits.
  package static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws -> MeasuredProcess {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("searchlight-measured-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let outPath = folder.appendingPathComponent("stdout").path
    let errPath = folder.appendingPathComponent("stderr").path

    let started = ContinuousClock.now
    let pid = try spawn(executable, arguments, environment: environment, stdout: outPath, stderr: errPath)
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 {
      guard errno == EINTR else { throw SpawnFailure(code: errno, path: executable.path) }
    }
    let wall = ContinuousClock.now - started
    let user = Duration.seconds(usage.ru_utime.tv_sec) + .microseconds(Int64(usage.ru_utime.tv_usec))
    let system = Duration.seconds(usage.ru_stime.tv_sec) + .microseconds(Int64(usage.ru_stime.tv_usec))
    // Exit status, or 128 + the signal for a child that was killed (as shells report it).
    let exited = status & 0x7f == 0
    return MeasuredProcess(
      status: exited ? (status >> 8) & 0xff : 128 + (status & 0x7f),
      stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
      stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "",
      cpu: user + system, userTime: user, systemTime: system, wall: wall)
  }

  /// Starts `executable arguments…` with stdin from /dev/null and stdout and stderr to the
  /// given files, and returns its process id; the caller reaps it.
  ///
  /// The child starts with no signals blocked and default handlers: a test process's worker
  /// threads block most signals, and a child spawned from one would inherit that mask and
  /// never see the SIGTERM that should stop it.
  package static func spawn(
    _ executable: URL, _ arguments: [String], environment: [String: String] = [:], stdout outPath: String, stderr errPath: String
  ) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    var all = sigset_t()
    sigfillset(&all)
    sigdelset(&all, SIGKILL)
    sigdelset(&all, SIGSTOP)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

    var merged = ProcessInfo.processInfo.environment
    merged.merge(environment) { $1 }
    let argv = ([executable.path] + arguments).map { strdup($0) }
    let envp = merged.map { strdup("\($0.key)=\($0.value)") }
    defer {
      argv.forEach { free($0) }
      envp.forEach { free($0) }
    }
    var pid: pid_t = 0
    let spawned = (argv + [nil]).withUnsafeBufferPointer { argvBuffer in
      (envp + [nil]).withUnsafeBufferPointer { envBuffer in
        posix_spawn(&pid, executable.path, &actions, &attributes, argvBuffer.baseAddress!, envBuffer.baseAddress!)
      }
    }
    guard spawned == 0 else { throw SpawnFailure(code: spawned, path: executable.path) }
    return pid
  }

  /// posix_spawn or wait4 failed.
  package struct SpawnFailure: Error, CustomStringConvertible {
    let code: Int32
    let path: String
    package var description: String { "cannot run \(path): \(String(cString: strerror(code)))" }
  }
}

extension Duration {
  /// Fractional seconds.
  package var seconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
