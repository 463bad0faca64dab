import Foundation
import SearchIndex

/// A long piece of maintenance's progress on standard error (`delete`, `rebuild`, `check`): one
/// `ProgressMeter` per step of `MaintenanceProgress`, each labelled with what it does.
final class MaintenanceDisplay {
  private let mode: ProgressMeter.Mode
  private let start = Date()
  private var phase: MaintenanceProgress.Phase?
  private var meter: ProgressMeter?

  init(mode: ProgressMeter.Mode) { self.mode = mode }

  /// The display a command's `--progress` asks for: lines with it, a bar on a terminal, else none.
  convenience init(_ arguments: ParsedArguments) {
    self.init(mode: ProgressMeter.mode(lines: arguments.has("progress")))
  }

  /// `--progress` of a maintenance command that runs in steps (`check`, `rebuild`).
  static let stepsOption = OptionSpec(
    name: "progress", kind: .flag, help: "Print progress lines for each step (done/total, percent, rate, ETA) at most once a second.")

  func report(_ progress: MaintenanceProgress) {
    guard mode != .off else { return }
    if progress.phase != phase {
      meter?.finish()
      phase = progress.phase
      let (label, unit) = Self.label(progress.phase)
      meter = ProgressMeter(label, mode: mode, unit: unit, since: start)
    }
    meter?.total = progress.total
    meter?.update(count: progress.done)
  }

  /// What a step's meter says, and what it counts (nil: no count).
  static func label(_ phase: MaintenanceProgress.Phase) -> (String, String?) {
    switch phase {
    case .removingItems: ("deleting", "items")
    case .compactingRankedIndex: ("compacting the ranked index", "postings")
    case .rebuildingFullText: ("rebuilding the full-text index", "items")
    case .rebuildingValues: ("rebuilding the values", "items")
    case .rebuildingRankedIndex: ("rebuilding the ranked index", "items")
    case .committing: ("committing", nil)
    case .checkingFile: ("checking the file (SQLite's and FTS5's checks)", nil)
    case .checkingFullText: ("deriving the records' full text", "items")
    case .comparingFullText: ("comparing the full text with the records", nil)
    case .checkingValues: ("comparing the values with the records", "items")
    case .checkingRankedIndex: ("checking the ranked index", nil)
    }
  }

  /// Clears the bar for a line of other output; the step goes on.
  func clear() { meter?.clear() }

  /// Ends the last step's meter (its final line, or the bar cleared); a second call does nothing.
  func finish() {
    meter?.finish()
    meter = nil
  }
}
