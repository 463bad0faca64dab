import Foundation
import SearchIndex

/// A long piece of maintenance's progress on standard error (`delete`, `rebuild`): one
/// `ProgressMeter` per step of `MaintenanceProgress`, each labelled with what it does.
final class MaintenanceDisplay {
  private let mode: ProgressMeter.Mode
  private let start = Date()
  private var phase: MaintenanceProgress.Phase?
  private var meter: ProgressMeter?

  init(mode: ProgressMeter.Mode) { self.mode = mode }

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
    }
  }

  /// Ends the last step's meter (its final line, or the bar cleared); a second call does nothing.
  func finish() {
    meter?.finish()
    meter = nil
  }
}
