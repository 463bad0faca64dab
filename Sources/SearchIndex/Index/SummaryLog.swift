import Foundation

/// The items a write rewrote or deleted, as they were before it, so that the planner's
/// summary of a later generation can take them out of the tally it grew from
/// (`SummaryState`) instead of reading the whole value table again (3 s at a million items
/// after one edited note).
///
/// Two tables, created by the first write that removes something: `summary_removed` holds
/// the item columns a scope's visibility and the summary's counts read, `summary_removed_vals`
/// the item's value rows. Each item is logged once per generation, as the last committed
/// generation had it. Rows only some stored tally still needs are kept: every write and
/// every stored summary drops the rest, and a write that would log more than `limit` items
/// logs none (the next summary reads the whole table, which is then the cheaper way). What
/// the log cannot vouch for is recorded in meta: `summaryLogged` is the last generation
/// committed by a writer that logs, `summaryUnlogged` the last one a tally must not grow
/// across (an unlogged write, a migration, rows dropped from the log).
enum SummaryLog {
  static let loggedKey = "summaryLogged"
  static let unloggedKey = "summaryUnlogged"

  static let tables = """
    CREATE TABLE IF NOT EXISTS summary_removed(
      generation INTEGER NOT NULL,
      item INTEGER NOT NULL,
      indexId INTEGER NOT NULL,
      domain TEXT,
      contentType TEXT,
      expiration REAL,
      protection TEXT,
      PRIMARY KEY(generation, item)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS summary_removed_vals(
      generation INTEGER NOT NULL,
      item INTEGER NOT NULL,
      attr INTEGER NOT NULL,
      ord INTEGER NOT NULL,
      fold TEXT,
      str TEXT,
      PRIMARY KEY(generation, item, attr, ord)) WITHOUT ROWID;
    """

  /// The most items the log holds for a file whose largest rowid is `lastRowid`: about 2%
  /// of the items, where taking them out and putting them back costs about what the whole
  /// pass does.
  static func limit(lastRowid: Int64) -> Int { Int(min(max(lastRowid / 50, 200), 20_000)) }

  /// Records, inside one write transaction, the items it rewrites or deletes.
  struct Recorder {
    /// The generation the transaction will commit as.
    private let generation: Int64
    /// Items above this rowid were added by this transaction: no tally holds them.
    private let lastRowidBefore: Int64
    private let limit: Int
    private var logged = 0
    private var tablesReady = false
    /// True once this transaction removed more than the log takes: it logs nothing.
    private(set) var gaveUp = false

    init(_ db: Connection) throws {
      generation = try SearchIndex.generation(in: db) + 1
      lastRowidBefore = try db.scalar("SELECT max(rowid) FROM items")?.int64Value ?? 0
      limit = SummaryLog.limit(lastRowid: lastRowidBefore)
    }

    /// Logs the item at `rowid` as stored, before it is rewritten or deleted.
    ///
    /// Row by row, through single-row inserts: an `INSERT … SELECT` needs a statement
    /// savepoint, and FTS5 writes out its pending terms at every savepoint (one rewrite of
    /// 1,000 items took 2.5 times as long that way).
    mutating func record(_ db: Connection, rowid: Int64) throws {
      guard !gaveUp, rowid <= lastRowidBefore, try makeRoom(db, for: 1) else { return }
      let item = try db.cachedStatement("SELECT indexId, domain, contentType, expiration, protection FROM items WHERE rowid = ?")
      try item.bind([.integer(rowid)])
      guard try item.step() else { return }
      let columns = (0..<5).map { item.value(at: $0) }
      item.reset()
      try db.cachedStatement(
        "INSERT OR IGNORE INTO summary_removed(generation, item, indexId, domain, contentType, expiration, protection) VALUES (?, ?, ?, ?, ?, ?, ?)"
      ).execute([.integer(generation), .integer(rowid)] + columns)
      // Logged already in this transaction: the first entry is the committed one.
      guard db.changes == 1 else { return }
      let values = try db.cachedStatement("SELECT attr, ord, fold, str FROM vals WHERE item = ?")
      var rows: [[SQLValue]] = []
      try values.bind([.integer(rowid)])
      while try values.step() { rows.append((0..<4).map { values.value(at: $0) }) }
      let insert = try db.cachedStatement(
        "INSERT INTO summary_removed_vals(generation, item, attr, ord, fold, str) VALUES (?, ?, ?, ?, ?, ?)")
      for row in rows { try insert.execute([.integer(generation), .integer(rowid)] + row) }
      logged += 1
    }

    /// Logs the `count` items of the temporary table `doomed`, before they are deleted.
    mutating func recordDoomed(_ db: Connection, count: Int) throws {
      guard !gaveUp, try makeRoom(db, for: count) else { return }
      let fresh = "SELECT rowid FROM doomed WHERE rowid <= ? AND rowid NOT IN (SELECT item FROM summary_removed WHERE generation = ?)"
      try db.run(
        "INSERT INTO summary_removed_vals(generation, item, attr, ord, fold, str) SELECT ?, item, attr, ord, fold, str FROM vals WHERE item IN (\(fresh))",
        [.integer(generation), .integer(lastRowidBefore), .integer(generation)])
      try db.run(
        """
        INSERT INTO summary_removed(generation, item, indexId, domain, contentType, expiration, protection)
        SELECT ?, rowid, indexId, domain, contentType, expiration, protection FROM items WHERE rowid IN (\(fresh))
        """, [.integer(generation), .integer(lastRowidBefore), .integer(generation)])
      logged += db.changes
    }

    /// Logs nothing more in this transaction, and drops what it logged when it commits.
    mutating func giveUp() { gaveUp = true }

    /// Whether `count` more items fit; when not, this transaction gives up logging.
    private mutating func makeRoom(_ db: Connection, for count: Int) throws -> Bool {
      if logged + count > limit {
        gaveUp = true
        return false
      }
      if !tablesReady {
        try db.execute(SummaryLog.tables)
        tablesReady = true
      }
      return true
    }

    /// Records in meta what this transaction did, before it commits (`IndexWriter.finish`):
    /// a transaction that gave up logging drops what it logged and no tally grows across it;
    /// a generation committed by a writer that does not log (`summaryLogged` behind) stops
    /// every tally before it too. Then drops the rows no stored tally needs.
    func finish(_ db: Connection) throws {
      let committed = generation - 1
      let loggedBefore = try SummaryLog.meta(db, SummaryLog.loggedKey)
      if gaveUp {
        try SummaryLog.forget(db, generation: generation)
        try SummaryLog.raiseUnlogged(db, to: generation)
      } else if loggedBefore != committed {
        try SummaryLog.raiseUnlogged(db, to: committed)
      }
      try db.cachedStatement("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)")
        .execute([.text(SummaryLog.loggedKey), .integer(generation)])
      try SummaryLog.prune(db, keeping: generation)
    }
  }

  // MARK: Keeping it small

  /// Drops the rows of generations no stored tally needs (a tally of generation g needs
  /// those after g), all of them when the log holds more than its limit; `keeping` is a
  /// generation whose rows stay (the one a writer is about to commit). A tally stored later
  /// from before what was dropped (a reader that raced the writer) cannot grow: the dropped
  /// generations become unlogged.
  static func prune(_ db: Connection, keeping: Int64? = nil) throws {
    guard try SearchIndex.hasTable(db, "summary_removed"),
      try db.scalar("SELECT EXISTS (SELECT 1 FROM summary_removed)")?.int64Value == 1
    else { return }
    let current = try SearchIndex.generation(in: db)
    var through = current
    if try SearchIndex.hasTable(db, "summary_cache"),
      let oldest = try db.scalar(
        "SELECT min(generation) FROM summary_cache WHERE scope >= ? AND scope < ?",
        [.text(SummaryState.keyPrefix), .text(SummaryState.keyPrefixEnd)])?.int64Value
    {
      through = min(oldest, current)
    }
    let items = try db.scalar("SELECT count(*) FROM summary_removed")?.int64Value ?? 0
    let lastRowid = try db.scalar("SELECT max(rowid) FROM items")?.int64Value ?? 0
    if items > Int64(limit(lastRowid: lastRowid)) { through = current }
    let drop = keeping.map { min(through, $0 - 1) } ?? through
    guard try db.scalar("SELECT EXISTS (SELECT 1 FROM summary_removed WHERE generation <= ?)", [.integer(drop)])?.int64Value == 1
    else { return }
    try db.run("DELETE FROM summary_removed WHERE generation <= ?", [.integer(drop)])
    try db.run("DELETE FROM summary_removed_vals WHERE generation <= ?", [.integer(drop)])
    try raiseUnlogged(db, to: drop)
  }

  /// Drops what one generation logged.
  private static func forget(_ db: Connection, generation: Int64) throws {
    guard try SearchIndex.hasTable(db, "summary_removed") else { return }
    try db.run("DELETE FROM summary_removed WHERE generation = ?", [.integer(generation)])
    try db.run("DELETE FROM summary_removed_vals WHERE generation = ?", [.integer(generation)])
  }

  /// Moves `summaryUnlogged` up to `generation` (never down).
  static func raiseUnlogged(_ db: Connection, to generation: Int64) throws {
    try db.run(
      "INSERT OR REPLACE INTO meta(key, value) VALUES (?, max(coalesce((SELECT value FROM meta WHERE key = ?), 0), ?))",
      [.text(unloggedKey), .text(unloggedKey), .integer(generation)])
  }

  static func meta(_ db: Connection, _ key: String) throws -> Int64? {
    try db.scalar("SELECT value FROM meta WHERE key = ?", [.text(key)])?.int64Value
  }

  // MARK: Reading

  /// One removed item as the tally at `since` counted it.
  struct Removed {
    var item: Int64
    var generation: Int64
    var domain: String?
    var contentType: String?
    /// Whether the scope saw it.
    var visible: Bool
  }

  /// Whether every change after generation `since` up to `current` is an added item or one
  /// the log holds.
  static func covers(_ db: Connection, since: Int64, current: Int64) throws -> Bool {
    guard current > since, try meta(db, loggedKey) == current, let unlogged = try meta(db, unloggedKey) else { return false }
    return unlogged <= since
  }

  /// The items rewritten or deleted after generation `since` whose rowid is at most
  /// `lastRowid` (later ones were added since), each as the first generation after `since`
  /// logged it, with whether `visible` (over alias `i`) selects it.
  static func removed(
    _ db: Connection, since: Int64, lastRowid: Int64, visible: (sql: String, arguments: [SQLValue])
  ) throws -> [Removed] {
    guard try SearchIndex.hasTable(db, "summary_removed") else { return [] }
    var removed: [Removed] = []
    let rows = try db.makeStatement(
      """
      SELECT i.item, i.generation, i.domain, i.contentType, CASE WHEN \(visible.sql) THEN 1 ELSE 0 END
      FROM summary_removed i WHERE i.generation > ? AND i.item <= ? ORDER BY i.item, i.generation
      """)
    try rows.bind(visible.arguments + [.integer(since), .integer(lastRowid)])
    while try rows.step() {
      let item = rows.int64(0)
      if removed.last?.item == item { continue }
      removed.append(Removed(
        item: item, generation: rows.int64(1), domain: rows.isNull(2) ? nil : rows.string(2),
        contentType: rows.isNull(3) ? nil : rows.string(3), visible: rows.int64(4) == 1))
    }
    return removed
  }

  /// Calls `body` with each logged value row of `removed` (columns item, attr, fold, str,
  /// as `SummaryTally.add` reads them).
  static func forEachValue(_ db: Connection, of removed: Removed, _ body: (Statement) throws -> Void) throws {
    let values = try db.cachedStatement(
      "SELECT item, attr, fold, str FROM summary_removed_vals WHERE generation = ? AND item = ? ORDER BY attr, ord")
    try values.bind([.integer(removed.generation), .integer(removed.item)])
    while try values.step() { try body(values) }
  }
}
