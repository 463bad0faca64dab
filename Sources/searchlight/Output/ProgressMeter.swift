import Foundation
import SearchIndex

/// Progress of a long job on standard error: done/total, percent, rate and time left.
///
/// - On a terminal (`.bar`): one line rewritten in place, at most ten times a second, shown
///   once the job has run for a second (short jobs print nothing).
/// The rate counts from the first item done, and shows (with the time left) once it is known.
/// - With `--progress` (`.lines`): the same facts as plain lines, at most one a second (the
///   first as soon as the first item is done, the last when the job ends), for scripts and logs.
/// - Otherwise (`.off`): nothing but warnings.
///
/// The total is an estimate from a cheap pre-count (`IndexPreCount`); when it is unknown
/// (standard input) the meter shows the count and the rate only.
final class ProgressMeter {
  enum Mode { case off, bar, lines }

  let mode: Mode
  private let label: String
  /// What the meter counts ("items"); nil for a step that has no count, which shows as
  /// its label alone.
  private let unit: String?
  /// The expected number of items, nil when unknown.
  var total: Int?
  private let start: Date
  /// When the first item was done: the rate counts from there, so reading and checking a
  /// file before its first item is written does not drag it down.
  private var firstItem: Date?
  private var lastDraw = Date.distantPast
  /// Seconds a job runs before the bar shows (short jobs print nothing):
  /// SEARCHLIGHT_PROGRESS_AFTER, else 1 (tests set 0 to see the bar at the first item).
  private let showAfter = ProcessInfo.processInfo.environment["SEARCHLIGHT_PROGRESS_AFTER"].flatMap(Double.init) ?? 1
  private var drawn = false
  private var done = 0
  private var lastPrintedCount = -1

  /// `since` is when the job began: a later phase's meter of the same job shows at once
  /// once the job has run for a second.
  init(_ label: String, mode: Mode, unit: String? = "items", since start: Date = Date()) {
    self.label = label
    self.mode = mode
    self.unit = unit
    self.start = start
  }

  /// `.lines` with `--progress`, `.bar` when standard error is a terminal, else `.off`.
  static func mode(lines: Bool) -> Mode { lines ? .lines : Terminal.stderrIsTTY ? .bar : .off }

  func update(count: Int) {
    done = count
    guard mode != .off else { return }
    let now = Date()
    if firstItem == nil { firstItem = now }
    switch mode {
    case .off: return
    case .bar:
      guard now.timeIntervalSince(start) >= showAfter, now.timeIntervalSince(lastDraw) >= 0.1 else { return }
      lastDraw = now
      drawn = true
      Terminal.err("\r\u{1B}[K" + barLine(now: now))
    case .lines:
      guard now.timeIntervalSince(lastDraw) >= 1 else { return }
      lastDraw = now
      printLine(now: now)
    }
  }

  /// Prints `warning: TEXT` on its own line, clearing the bar first (the next update draws
  /// it again).
  func warn(_ text: String) {
    clear()
    Terminal.err("warning: \(text)\n")
  }

  /// Clears the bar for a line of other output (the next update draws it again).
  func clear() {
    if drawn { Terminal.err("\r\u{1B}[K") }
    drawn = false
  }

  /// Clears the bar, or prints the last line (`.lines`) when it was not printed yet.
  func finish() {
    clear()
    if mode == .lines, lastPrintedCount != done { printLine(now: Date()) }
  }

  private func printLine(now: Date) {
    lastPrintedCount = done
    Terminal.err(facts(now: now).joined(separator: ", ") + "\n")
  }

  /// `indexing [#####·····] 14,000/200,000 7% 811 items/s ETA 3m 49s`, cut to the terminal.
  private func barLine(now: Date) -> String {
    var parts = facts(now: now)
    if unit != nil, let fraction = fraction {
      let width = 24
      let filled = min(width, Int(fraction * Double(width)))
      parts[0] = "\(label) [" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
        + DigitGrouping.grouped(done) + "/" + DigitGrouping.grouped(effectiveTotal ?? done)
    }
    let line = parts.joined(separator: "  ")
    let columns = max(20, Terminal.errWidth - 1)
    return line.count > columns ? String(line.prefix(columns)) : line
  }

  private var effectiveTotal: Int? { total.map { max($0, done) } }
  private var fraction: Double? { effectiveTotal.map { $0 == 0 ? 1 : Double(done) / Double($0) } }

  /// The facts every form shows: `indexing 14,000/200,000 items`, `7%`, `811 items/s`,
  /// `ETA 3m 49s` (the last three only when known); the label alone without a unit.
  private func facts(now: Date) -> [String] {
    guard let unit else { return [label] }
    // Items per second since the first one; unknown until a quarter second has passed.
    let elapsed = firstItem.map { now.timeIntervalSince($0) } ?? 0
    let rate: Double? = elapsed >= 0.25 ? Double(max(0, done - 1)) / elapsed : nil
    var parts: [String] = []
    if let total = effectiveTotal {
      parts.append("\(label) \(DigitGrouping.grouped(done))/\(DigitGrouping.grouped(total)) \(unit)")
      parts.append("\(Int(((fraction ?? 0) * 100).rounded(.down)))%")
    } else {
      parts.append("\(label) \(DigitGrouping.grouped(done)) \(unit)")
    }
    if let rate {
      parts.append("\(DigitGrouping.grouped(Int(rate))) \(unit)/s")
      if let total = effectiveTotal, rate > 0 { parts.append("ETA " + Self.duration(Double(total - done) / rate)) }
    }
    return parts
  }

  /// `42s`, `3m 49s`, `2h 05m`.
  static func duration(_ seconds: Double) -> String {
    let total = Int(seconds.rounded(.up))
    if total < 60 { return "\(total)s" }
    if total < 3600 { return "\(total / 60)m \(String(format: "%02d", total % 60))s" }
    return "\(total / 3600)h \(String(format: "%02d", total % 3600 / 60))m"
  }
}
