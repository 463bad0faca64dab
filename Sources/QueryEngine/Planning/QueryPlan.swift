/// How SQLite runs one statement: the rows of `EXPLAIN QUERY PLAN`
/// (https://www.sqlite.org/eqp.html), a tree of loops and subqueries.
///
/// `explain` prints it under each statement so a user can see the access path, and tests
/// use it to check that an access-path rule holds (a text search drives its statement).
public struct QueryPlan: Sendable, Hashable {
  /// One row of the plan.
  public struct Step: Sendable, Hashable {
    public var id: Int
    /// The step this one is nested in; 0 at the top.
    public var parent: Int
    /// SQLite's description: `SCAN fts VIRTUAL TABLE INDEX 0:M5`, `SEARCH i USING ...`.
    public var detail: String
  }

  public var steps: [Step]

  /// The steps in tree order with their depth (0 at the top), as the `sqlite3` shell shows
  /// them.
  public var tree: [(depth: Int, detail: String)] {
    var result: [(depth: Int, detail: String)] = []
    func visit(_ parent: Int, _ depth: Int) {
      for step in steps where step.parent == parent && step.id != parent {
        result.append((depth, step.detail))
        visit(step.id, depth + 1)
      }
    }
    visit(0, 0)
    return result
  }

  /// The plan as indented lines (two spaces a level).
  public var lines: [String] {
    tree.map { String(repeating: "  ", count: $0.depth) + $0.detail }
  }

  /// The loops (`SCAN` and `SEARCH` steps) in the order SQLite opens them: the first is the
  /// one that drives the statement.
  public var loops: [String] {
    tree.map(\.detail).filter { $0.hasPrefix("SCAN ") || $0.hasPrefix("SEARCH ") }
  }
}
