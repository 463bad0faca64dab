import Foundation
import Synchronization

/// Wall time of the phases of one command, for `--timing`: from the start of the process
/// (before `main`, where the platform tells) through opening the index, reading its
/// catalogue and vocabulary, planning, executing and rendering.
///
/// Phases nest: time spent in an inner phase (rendering a reply while the query runs) counts
/// for it and not for the phase around it, so the phases add up to the whole.
final class PhaseTiming: Sendable {
  enum Phase: String, CaseIterable, Sendable {
    /// Process start to the first phase: loading the binary, parsing arguments.
    case start
    case open
    case catalogue
    case vocabulary
    case plan
    case execute
    case render
  }

  /// The process-wide timer the commands record into.
  static let shared = PhaseTiming()

  private struct State {
    var totals: [Phase: Duration] = [:]
    /// Phases open now, innermost last, with the time their inner phases took.
    var open: [(phase: Phase, started: ContinuousClock.Instant, inner: Duration)] = []
  }

  private let state = Mutex(State())
  /// When the process started, on the continuous clock.
  let processStart: ContinuousClock.Instant

  init() {
    let now = ContinuousClock.now
    processStart = now - (Self.processAge() ?? .zero)
    state.withLock { $0.totals[.start] = now - processStart }
  }

  /// Runs `body` as `phase`.
  @discardableResult
  func measure<T>(_ phase: Phase, _ body: () throws -> T) rethrows -> T {
    state.withLock { $0.open.append((phase, ContinuousClock.now, .zero)) }
    defer {
      state.withLock { state in
        guard let last = state.open.popLast() else { return }
        let elapsed = ContinuousClock.now - last.started
        state.totals[last.phase, default: .zero] += elapsed - last.inner
        if !state.open.isEmpty { state.open[state.open.count - 1].inner += elapsed }
      }
    }
    return try body()
  }

  /// One line: each phase that took place, then the total since the process started.
  var summary: String {
    let totals = state.withLock { $0.totals }
    var parts = Phase.allCases.compactMap { phase in totals[phase].map { "\(phase.rawValue) \(Self.milliseconds($0))" } }
    parts.append("total \(Self.milliseconds(ContinuousClock.now - processStart))")
    return "phases: " + parts.joined(separator: ", ")
  }

  static func milliseconds(_ duration: Duration) -> String {
    String(format: "%.1f ms", Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15)
  }

  /// How long ago the process started, from the kernel's record of it; nil where unknown.
  private static func processAge() -> Duration? {
    #if os(Linux)
    // Field 22 of /proc/self/stat: start time in clock ticks after boot
    // (https://man7.org/linux/man-pages/man5/proc_pid_stat.5.html); the process name (field
    // 2) may hold spaces, so fields are counted after its closing parenthesis.
    guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")"),
      let uptimeText = try? String(contentsOfFile: "/proc/uptime", encoding: .utf8),
      let uptime = uptimeText.split(separator: " ").first.flatMap({ Double($0) })
    else { return nil }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
    guard fields.count > 19, let ticks = Double(fields[19]), ticksPerSecond > 0 else { return nil }
    let age = uptime - ticks / ticksPerSecond
    return age >= 0 && age < 3600 ? .milliseconds(Int64(age * 1000)) : nil
    #else
    return nil
    #endif
  }
}
