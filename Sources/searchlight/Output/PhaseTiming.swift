import Foundation
import Synchronization

/// Wall time of the phases of one command, for `--timing`: from the start of `main` through
/// reading the arguments, opening the index, reading its catalogue and vocabulary, planning,
/// executing and rendering. (Loading the binary before `main` is not seen from inside; the
/// benchmarks measure it as process wall time.)
///
/// Phases nest: time spent in an inner phase (rendering a reply while the query runs) counts
/// for it and not for the phase around it, so the phases add up to the whole.
final class PhaseTiming: Sendable {
  enum Phase: String, CaseIterable, Sendable {
    /// The start of `main` to the first phase: reading the arguments, the setup of the command.
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
  /// When `main` started (the first use of `shared`).
  let processStart = ContinuousClock.now

  /// Runs `body` as `phase`.
  @discardableResult
  func measure<T>(_ phase: Phase, _ body: () throws -> T) rethrows -> T {
    let now = ContinuousClock.now
    state.withLock { state in
      // Until the first phase, the process was starting.
      if state.totals.isEmpty && state.open.isEmpty { state.totals[.start] = now - processStart }
      state.open.append((phase, now, .zero))
    }
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

  /// One line: each phase that took place, then the total since `main` started.
  var summary: String {
    let totals = state.withLock { $0.totals }
    var parts = Phase.allCases.compactMap { phase in totals[phase].map { "\(phase.rawValue) \(Self.milliseconds($0))" } }
    parts.append("total \(Self.milliseconds(ContinuousClock.now - processStart))")
    return "phases: " + parts.joined(separator: ", ")
  }

  static func milliseconds(_ duration: Duration) -> String {
    String(format: "%.1f ms", Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15)
  }
}
