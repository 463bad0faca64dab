/// How far a delete has come, for a long one's progress display. A delete of many items
/// removes them (`removingItems`), compacts the ranked index when a quarter or more of its
/// documents are gone (`compactingRankedIndex`: every posting list that held one is
/// rewritten), then commits and refreshes the query planner's statistics (`committing`).
/// A small delete may skip the second phase; every delete that removes an item reports
/// the first and the last.
public struct DeletionProgress: Sendable, Hashable {
  public enum Phase: Sendable, Hashable {
    /// `done` of `total` items removed.
    case removingItems
    /// `done` of `total` postings of the ranked index's lists gone through.
    case compactingRankedIndex
    /// The commit and the planner's statistics: no counts (`done` and `total` are 0).
    case committing
  }

  public let phase: Phase
  public let done: Int
  public let total: Int

  public init(phase: Phase, done: Int, total: Int) {
    self.phase = phase
    self.done = done
    self.total = total
  }
}
