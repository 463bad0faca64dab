/// How far a long piece of maintenance has come (a delete, a rebuild), for its progress
/// display: the step it is in, and how much of that step is done.
///
/// A delete of many items removes them (`removingItems`), compacts the ranked index when a
/// quarter or more of its documents are gone (`compactingRankedIndex`: every posting list
/// that held one is rewritten), then commits (`committing`). A rebuild derives the full-text
/// index, the value rows and the ranked index again from the stored records, one step each,
/// then commits. A small delete may skip the compaction; every delete that removes an item
/// reports its first step and the commit. A check (`checkIntegrity`) runs SQLite's and FTS5's
/// own checks, derives every record's texts and compares them with the full-text index, then
/// its values with the value rows, then checks the ranked index.
public struct MaintenanceProgress: Sendable, Hashable {
  public enum Phase: Sendable, Hashable {
    /// `done` of `total` items removed.
    case removingItems
    /// `done` of `total` postings of the ranked index's lists gone through.
    case compactingRankedIndex
    /// `done` of `total` items' texts put in the full-text index again.
    case rebuildingFullText
    /// `done` of `total` items' value rows written again.
    case rebuildingValues
    /// `done` of `total` items' texts put in the ranked index again.
    case rebuildingRankedIndex
    /// The commit and the planner's statistics: no counts (`done` and `total` are 0).
    case committing
    /// SQLite's integrity check and FTS5's: no counts.
    case checkingFile
    /// `done` of `total` items' texts derived again from their records for the comparison.
    case checkingFullText
    /// The derived texts' vocabulary compared with the full-text index's: no counts.
    case comparingFullText
    /// `done` of `total` items' values derived again and compared with the value rows.
    case checkingValues
    /// The ranked index's pages, lexicon and document frequencies: no counts.
    case checkingRankedIndex
  }

  public let phase: Phase
  public let done: Int
  public let total: Int
}

extension MaintenanceProgress {
  /// Reports the start of `phase` (of `total` things; 0 for a step without counts) to
  /// `progress`, and returns the closure that reports how many are done; nil without one.
  static func start(_ phase: Phase, of total: Int = 0, to progress: ((MaintenanceProgress) -> Void)?) -> ((Int) -> Void)? {
    guard let progress else { return nil }
    progress(MaintenanceProgress(phase: phase, done: 0, total: total))
    return { progress(MaintenanceProgress(phase: phase, done: $0, total: total)) }
  }
}
