/// How far a long piece of maintenance has come (a delete, a rebuild), for its progress
/// display: the step it is in, and how much of that step is done.
///
/// A delete of many items removes them (`removingItems`), compacts the ranked index when a
/// quarter or more of its documents are gone (`compactingRankedIndex`: every posting list
/// that held one is rewritten), then commits (`committing`). A rebuild derives the full-text
/// index, the value rows and the ranked index again from the stored records, one step each,
/// then commits. A small delete may skip the compaction; every delete that removes an item
/// reports its first step and the commit.
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
  }

  public let phase: Phase
  public let done: Int
  public let total: Int
}
