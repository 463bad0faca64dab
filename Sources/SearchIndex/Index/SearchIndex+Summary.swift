import Foundation
import Synchronization

/// Summaries already read, by access scope, each with the generation and the span of clock
/// times it holds for (see `SearchIndex.summary(scope:)`).
final class SummaryCache: Sendable {
  /// A summary and the clock times for which the scope's expiry hides the same items: from
  /// the latest expiration at or before the time it was read (`validFrom`) to the earliest
  /// one after it (`validUntil`, exclusive); nil is unbounded.
  struct Entry: Sendable {
    var summary: IndexSummary
    var validFrom: Double?
    var validUntil: Double?

    func covers(_ now: Double) -> Bool { SummaryCache.window(from: validFrom, until: validUntil, covers: now) }
  }

  /// Whether the clock time `now` lies in `from ..< until` (nil is unbounded).
  static func window(from: Double?, until: Double?, covers now: Double) -> Bool {
    (from.map { $0 <= now } ?? true) && (until.map { now < $0 } ?? true)
  }

  private let entries = Mutex<[String: Entry]>([:])
  /// How many summaries were computed from the tables (not found in a cache), for tests.
  let computations = Mutex(0)
  /// How many of those grew from an earlier generation's tally (`SummaryState`), for tests.
  let additions = Mutex(0)

  func entry(_ key: String, generation: Int64, now: Double) -> Entry? {
    entries.withLock { entries in
      guard let entry = entries[key], entry.summary.generation == generation, entry.covers(now) else { return nil }
      return entry
    }
  }

  func store(_ entry: Entry, key: String) { entries.withLock { $0[key] = entry } }
}

extension SearchIndex {
  /// The table that keeps summaries inside the index file, one row per named index and
  /// access scope, so a new process reads a summary instead of scanning the value table.
  /// Created by the first reader that stores one; never part of a generation.
  static let summaryCacheTable = """
    CREATE TABLE IF NOT EXISTS summary_cache(
      indexId INTEGER NOT NULL,
      scope TEXT NOT NULL,
      generation INTEGER NOT NULL,
      validFrom REAL,
      validUntil REAL,
      summary TEXT NOT NULL,
      PRIMARY KEY(indexId, scope)) WITHOUT ROWID
    """

  /// What `scope` sees of this index (domains, content types, attributes in use, values of
  /// low-cardinality text attributes), read once per index generation and scope.
  ///
  /// The first call after a write computes it from the tables and stores it in the file's
  /// `summary_cache` table in a short write transaction of its own (that changes no item and
  /// leaves the generation alone), so later processes read one row. A read-only file, or one
  /// whose writer is busy, keeps the summary in memory only. A summary holds for its
  /// generation and for clock times at which no item expires or stops being expired, so an
  /// item that expires later is hidden from the summary at once.
  public func summary(scope: AccessScope) throws(SearchIndexError) -> IndexSummary {
    let lookup = try read { db in try summaryLookup(db, scope: scope) }
    keep(lookup)
    return lookup.entry.summary
  }

  /// The summary of `scope` as the read transaction open on `db` sees it: from memory, from
  /// the file, or computed (then `keep` stores it, once the read has ended).
  struct SummaryLookup {
    var entry: SummaryCache.Entry
    var state: SummaryState?
    var key: String
    var computed: Bool
  }

  func summaryLookup(_ db: Connection, scope: AccessScope) throws -> SummaryLookup {
    let key = Self.summaryKey(scope)
    let now = scope.now.timeIntervalSince1970
    let generation = try Self.generation(in: db)
    if let entry = summaryCache.entry(key, generation: generation, now: now) { return SummaryLookup(entry: entry, key: key, computed: false) }
    if let entry = Self.storedSummary(db, indexID: indexID, key: key, generation: generation, now: now) {
      return SummaryLookup(entry: entry, key: key, computed: false)
    }
    summaryCache.computations.withLock { $0 += 1 }
    let (entry, state) = try computeSummary(db, scope: scope, generation: generation)
    return SummaryLookup(entry: entry, state: state, key: key, computed: true)
  }

  /// Keeps a looked-up summary in memory, and in the file when it was computed.
  func keep(_ lookup: SummaryLookup) {
    summaryCache.store(lookup.entry, key: lookup.key)
    if lookup.computed { storeSummary(lookup.entry, state: lookup.state, key: lookup.key) }
  }

  /// The cache key of a scope: its granted classes (the clock is checked against the
  /// entry's validity instead).
  static func summaryKey(_ scope: AccessScope) -> String {
    // Most queries grant nothing: the key every query looks up, spelt without the encoder.
    guard !scope.protectionClasses.isEmpty else { return "[]" }
    return JSONValue.array(scope.protectionClasses.sorted().map(JSONValue.string)).compactText
  }

  private static func storedSummary(_ db: Connection, indexID: Int64, key: String, generation: Int64, now: Double) -> SummaryCache.Entry? {
    // No table yet (or a file from before it): nothing stored.
    guard let rows = try? db.rows(
      "SELECT summary, validFrom, validUntil FROM summary_cache WHERE indexId = ? AND scope = ? AND generation = ?",
      [.integer(indexID), .text(key), .integer(generation)],
      { ($0.string(0) ?? "", $0.isNull(1) ? nil : $0.double(1), $0.isNull(2) ? nil : $0.double(2)) }),
      let (text, validFrom, validUntil) = rows.first,
      let json = try? JSONParser.parse(text), let summary = IndexSummary(json: json), summary.generation == generation
    else { return nil }
    let entry = SummaryCache.Entry(summary: summary, validFrom: validFrom, validUntil: validUntil)
    return entry.covers(now) ? entry : nil
  }

  /// The text `summary_cache` holds under `key` for `generation`, if it holds for the clock
  /// time `now`; nil when there is none (or no table).
  static func storedCacheRow(_ db: Connection, indexID: Int64, key: String, generation: Int64, now: Double) -> String? {
    storedCacheValue(db, indexID: indexID, key: key, generation: generation, now: now) { $0.string(0) }
  }

  /// The bytes `summary_cache` holds under `key` (see `storedCacheRow`).
  static func storedCacheBlob(_ db: Connection, indexID: Int64, key: String, generation: Int64, now: Double) -> [UInt8]? {
    storedCacheValue(db, indexID: indexID, key: key, generation: generation, now: now) { $0.blob(0) }
  }

  private static func storedCacheValue<T>(
    _ db: Connection, indexID: Int64, key: String, generation: Int64, now: Double, _ read: (Statement) -> T?
  ) -> T? {
    guard let rows = try? db.rows(
      "SELECT summary, validFrom, validUntil FROM summary_cache WHERE indexId = ? AND scope = ? AND generation = ?",
      [.integer(indexID), .text(key), .integer(generation)],
      { (read($0), $0.isNull(1) ? nil : $0.double(1), $0.isNull(2) ? nil : $0.double(2)) }),
      let (value, validFrom, validUntil) = rows.first,
      SummaryCache.window(from: validFrom, until: validUntil, covers: now)
    else { return nil }
    return value
  }

  /// Stores `value` (text, or bytes in the same column) in `summary_cache` under `key`,
  /// through a short-lived connection of its own (the caller may be inside a read
  /// transaction, or hold the writer); a read-only file, read-only media or a busy writer
  /// skip it: it is only a cache.
  func storeCacheRow(key: String, generation: Int64, validFrom: Double?, validUntil: Double?, value: SQLValue) {
    guard FileManager.default.isWritableFile(atPath: path), let db = try? Connection(path: path, readOnly: false, create: false) else {
      return
    }
    db.setBusyTimeout(milliseconds: 0)
    try? db.transaction(.immediate) {
      try db.execute(Self.summaryCacheTable)
      try writeCacheRow(db, key: key, generation: generation, validFrom: validFrom, validUntil: validUntil, value: value)
    }
  }

  /// Writes one `summary_cache` row with `db`, inside the caller's transaction.
  private func writeCacheRow(
    _ db: Connection, key: String, generation: Int64, validFrom: Double?, validUntil: Double?, value: SQLValue
  ) throws {
    try db.run(
      "INSERT OR REPLACE INTO summary_cache(indexId, scope, generation, validFrom, validUntil, summary) VALUES (?, ?, ?, ?, ?, ?)",
      [.integer(indexID), .text(key), .integer(generation), validFrom.map(SQLValue.real) ?? .null,
       validUntil.map(SQLValue.real) ?? .null, value])
  }

  /// The clock times around `now` at which the same items are expired: from the latest
  /// expiration at or before it to the earliest one after it (exclusive); nil is unbounded.
  static func expiryWindow(_ db: Connection, now: Double) throws -> (from: Double?, until: Double?) {
    let window = try db.rows(
      """
      SELECT (SELECT max(expiration) FROM items WHERE expiration IS NOT NULL AND expiration <= ?),
             (SELECT min(expiration) FROM items WHERE expiration IS NOT NULL AND expiration > ?)
      """, [.real(now), .real(now)]
    ) { ($0.isNull(0) ? nil : $0.double(0), $0.isNull(1) ? nil : $0.double(1)) }.first
    return (window?.0 ?? nil, window?.1 ?? nil)
  }

  /// Stores a computed summary in the file; a read-only file or a busy writer skips it. An
  /// index opened read-only (`SearchIndex(readOnly:)`) whose file is writable stores it through
  /// a short-lived connection of its own, so read commands keep the cache warm for the next
  /// process; on read-only media, or with a read-only file, nothing is written.
  private func storeSummary(_ entry: SummaryCache.Entry, state: SummaryState?, key: String) {
    pool.withWriter { writer in
      if !store(entry, state: state, key: key, on: writer), FileManager.default.isWritableFile(atPath: path),
        let db = try? Connection(path: path, readOnly: false, create: false)
      {
        _ = store(entry, state: state, key: key, on: db)
      }
    }
  }

  /// Computes the summary of `scope` with the writer connection `db` (after its write
  /// committed) and stores it in the file and in memory. The writer reads without a memory
  /// map, so a scan of the value table at a million items does not show as 256 MB of
  /// resident file pages in `index`'s peak. A failure leaves it to the first reader.
  func storeSummary(of scope: AccessScope, on db: Connection) {
    let key = Self.summaryKey(scope)
    guard let (entry, state) = try? db.transaction(.deferred, { () throws -> (SummaryCache.Entry, SummaryState?) in
      try computeSummary(db, scope: scope, generation: try Self.generation(in: db))
    }) else { return }
    summaryCache.computations.withLock { $0 += 1 }
    summaryCache.store(entry, key: key)
    _ = store(entry, state: state, key: key, on: db)
  }

  /// Stores a summary (and the tally it came from) with `db`; false when it could not
  /// (read-only, busy).
  private func store(_ entry: SummaryCache.Entry, state: SummaryState?, key: String, on db: Connection) -> Bool {
    // Never wait for another process's write: the summary is only a cache.
    db.setBusyTimeout(milliseconds: 0)
    defer { db.setBusyTimeout(milliseconds: Connection.defaultBusyTimeout) }
    do {
      try db.transaction(.immediate) {
        try db.execute(Self.summaryCacheTable)
        try writeCacheRow(
          db, key: key, generation: entry.summary.generation, validFrom: entry.validFrom, validUntil: entry.validUntil,
          value: .text(entry.summary.jsonValue.compactText))
        if let state {
          try writeCacheRow(
            db, key: SummaryState.key(key), generation: state.generation, validFrom: state.validFrom, validUntil: state.validUntil,
            value: .text(state.jsonValue.compactText))
          // What this tally no longer needs of the removed items' log may go now.
          try SummaryLog.prune(db)
        }
      }
      return true
    } catch {
      return false
    }
  }

  /// Reads the summary from the tables, in the caller's read transaction, with the tally it
  /// came from (nil for a file without `items_type_domain_scope`). When every change since the
  /// tally stored for the scope is known (items added, or rewritten and deleted ones in
  /// `SummaryLog`), the tally advances by those items (`SummaryState`); otherwise the whole
  /// value table is read.
  private func computeSummary(_ db: Connection, scope: AccessScope, generation: Int64) throws -> (SummaryCache.Entry, SummaryState?) {
    let visible = scope.sqlCondition(alias: "i", indexID: indexID)
    let now = scope.now.timeIntervalSince1970
    let catalog = try Self.loadCatalog(db)
    let names = try db.rows("SELECT name FROM attributes ORDER BY id", []) { $0.string(0) ?? "" }
    guard try Self.hasIndex(db, "items_type_domain_scope") else {
      return (try selectSummary(db, scope: scope, generation: generation, catalog: catalog, names: names), nil)
    }
    let attributes = try tallyAttributes(db, catalog: catalog)
    var state: SummaryState
    if let stored = Self.storedState(db, indexID: indexID, key: SummaryState.key(Self.summaryKey(scope))),
      SummaryCache.window(from: stored.validFrom, until: stored.validUntil, covers: now),
      try stored.canAdvance(db, to: generation),
      let grown = try stored.advanced(db, generation: generation, visible: visible, attributes: attributes)
    {
      summaryCache.additions.withLock { $0 += 1 }
      state = grown
    } else {
      let lastRowid = try db.scalar("SELECT max(rowid) FROM items")?.int64Value ?? 0
      state = SummaryState(
        generation: generation, lastRowid: lastRowid, validFrom: nil, validUntil: nil,
        items: Int(try db.scalar("SELECT count(*) FROM items i WHERE \(visible.sql)", visible.arguments)?.int64Value ?? 0),
        domains: try Self.counts(db, "domain", visible: visible), contentTypes: try Self.counts(db, "contentType", visible: visible),
        tally: try SummaryTally.scan(db, attributes: attributes, visibleSQL: visible))
    }
    let window = try Self.expiryWindow(db, now: now)
    (state.validFrom, state.validUntil) = (window.from, window.until)
    let summary = IndexSummary(
      generation: generation, items: state.items, domains: SummaryState.sortedCounts(state.domains),
      contentTypes: SummaryState.sortedCounts(state.contentTypes), attributeNames: names, attributes: state.tally.attributeCounts,
      knownValues: state.tally.knownValues, exampleValues: state.tally.exampleValues)
    return (SummaryCache.Entry(summary: summary, validFrom: window.from, validUntil: window.until), state)
  }

  /// Visible items per value of an `items` column, by value (nil first).
  private static func counts(_ db: Connection, _ column: String, visible: (sql: String, arguments: [SQLValue])) throws -> [IndexSummary.Count] {
    try db.rows("SELECT i.\(column), count(*) FROM items i WHERE \(visible.sql) GROUP BY 1 ORDER BY 1", visible.arguments) {
      IndexSummary.Count(name: $0.isNull(0) ? nil : $0.string(0), count: Int($0.int64(1)))
    }
  }

  /// The tally stored for a scope (`SummaryState.key`), of whatever generation.
  private static func storedState(_ db: Connection, indexID: Int64, key: String) -> SummaryState? {
    guard let text = try? db.scalar("SELECT summary FROM summary_cache WHERE indexId = ? AND scope = ?", [.integer(indexID), .text(key)])?
      .stringValue,
      let json = try? JSONParser.parse(text)
    else { return nil }
    return SummaryState(json: json)
  }

  /// The summary by SQL alone (`selectValues`), for a file without `items_type_domain_scope`.
  private func selectSummary(
    _ db: Connection, scope: AccessScope, generation: Int64, catalog: AttributeCatalog, names: [String]
  ) throws -> SummaryCache.Entry {
    let visible = scope.sqlCondition(alias: "i", indexID: indexID)
    let now = scope.now.timeIntervalSince1970
    let items = Int(try db.scalar("SELECT count(*) FROM items i WHERE \(visible.sql)", visible.arguments)?.int64Value ?? 0)
    let domains = try Self.counts(db, "domain", visible: visible)
    let contentTypes = try Self.counts(db, "contentType", visible: visible)
    let values = try selectValues(db, scope: scope, visible: visible, catalog: catalog, untyped: contentTypes.allSatisfy { $0.name == nil })
    let window = try Self.expiryWindow(db, now: now)
    let summary = IndexSummary(
      generation: generation, items: items, domains: domains, contentTypes: contentTypes, attributeNames: names,
      attributes: values.attributes, knownValues: values.known, exampleValues: values.examples)
    return SummaryCache.Entry(summary: summary, validFrom: window.from, validUntil: window.until)
  }

  /// The value-table part of a summary: the attributes visible items have, the known values
  /// of string attributes and the example values of text attributes.
  typealias ValueSummary = (
    attributes: [IndexStatistics.Attribute], known: [String: [IndexSummary.KnownValue]],
    examples: [String: [IndexSummary.ExampleValue]]
  )

  /// `ValueSummary` in one pass over the value table (`SummaryTally`).
  func tallyValues(_ db: Connection, visible: (sql: String, arguments: [SQLValue]), catalog: AttributeCatalog) throws -> ValueSummary {
    let tally = try SummaryTally.scan(db, attributes: try tallyAttributes(db, catalog: catalog), visibleSQL: visible)
    return (tally.attributeCounts, tally.knownValues, tally.exampleValues)
  }

  /// The attributes of the file's catalogue as a tally holds them, by id.
  func tallyAttributes(_ db: Connection, catalog: AttributeCatalog) throws -> [Int64: SummaryTally.Attribute] {
    var attributes: [Int64: SummaryTally.Attribute] = [:]
    for (name, id, type, custom) in try db.rows("SELECT name, id, type, custom FROM attributes", [], {
      ($0.string(0) ?? "", $0.int64(1), $0.string(2) ?? "", $0.int64(3) == 1)
    }) {
      attributes[id] = SummaryTally.Attribute(
        name: name, type: catalog.type(of: name) ?? AttributeType(parsing: type) ?? .string, listing: catalog.type(of: name),
        isCustom: custom)
    }
    return attributes
  }

  /// `ValueSummary` by SQL, a statement or three per attribute, each value joined with its item:
  /// for files without the `items_type_domain_scope` index (read-only files from before it).
  func selectValues(
    _ db: Connection, scope: AccessScope, visible: (sql: String, arguments: [SQLValue]), catalog: AttributeCatalog, untyped: Bool
  ) throws -> ValueSummary {
    var ids: [String: Int64] = [:]
    for (name, id) in try db.rows("SELECT name, id FROM attributes", [], { ($0.string(0) ?? "", $0.int64(1)) }) { ids[name] = id }
    // When the file holds only this named index and the scope hides none of its items, every
    // value belongs to a visible item: the value table alone answers, without looking up
    // the item of each value.
    let hidden = scope.hiddenRowsSQL(indexID: indexID)
    let unrestricted = try db.scalar("SELECT count(*) FROM indexes WHERE id != ?", [.integer(indexID)])?.int64Value == 0
      && db.scalar("SELECT EXISTS (\(hidden.sql))", hidden.arguments)?.int64Value == 0
    // Each item has one `ord = 0` value of each attribute it has.
    let attributeCounts = unrestricted
      ? (sql: """
        SELECT a.name, a.type, a.custom, c.n FROM attributes a
        JOIN (SELECT attr, count(*) AS n FROM vals WHERE ord = 0 GROUP BY attr) c ON c.attr = a.id ORDER BY a.name
        """, arguments: [SQLValue]())
      : (sql: """
        SELECT a.name, a.type, a.custom, count(DISTINCT v.item) FROM attributes a
        JOIN vals v ON v.attr = a.id JOIN items i ON i.rowid = v.item
        WHERE \(visible.sql) GROUP BY a.id ORDER BY a.name
        """, arguments: visible.arguments)
    let attributes = try db.rows(attributeCounts.sql, attributeCounts.arguments) { row in
      IndexStatistics.Attribute(
        name: row.string(0) ?? "", type: catalog.type(of: row.string(0) ?? "") ?? AttributeType(parsing: row.string(1) ?? "") ?? .string,
        count: Int(row.int64(3)), isCustom: row.int64(2) == 1)
    }
    var known: [String: [IndexSummary.KnownValue]] = [:]
    var examples: [String: [IndexSummary.ExampleValue]] = [:]
    for (name, id) in ids.sorted(by: { $0.key < $1.key }) {
      guard let type = catalog.type(of: name), type.isTextual else { continue }
      // The values of visible items: the value table alone when nothing is hidden.
      let values = unrestricted
        ? (from: "vals v", condition: "v.attr = ? AND v.fold IS NOT NULL", arguments: [SQLValue.integer(id)])
        : (from: "vals v JOIN items i ON i.rowid = v.item", condition: "v.attr = ? AND v.fold IS NOT NULL AND " + visible.sql,
           arguments: [SQLValue.integer(id)] + visible.arguments)
      // Distinct values, counted up to one past the limit: the (attr, fold) index answers
      // this without reading every value of a high-cardinality attribute.
      func distinct(_ column: String, limit: Int) throws -> Int {
        Int(try db.scalar(
          "SELECT count(*) FROM (SELECT DISTINCT \(column) FROM \(values.from) WHERE \(values.condition) LIMIT ?)",
          values.arguments + [.integer(Int64(limit + 1))])?.int64Value ?? 0)
      }
      let exact = try distinct("coalesce(v.str, v.fold)", limit: IndexSummary.maximumExampleValues)
      if exact > 0, exact <= IndexSummary.maximumExampleValues {
        examples[name] = try db.rows(
          "SELECT coalesce(v.str, v.fold), count(DISTINCT v.item) FROM \(values.from) WHERE \(values.condition) GROUP BY 1 ORDER BY 2 DESC, 1",
          values.arguments
        ) { IndexSummary.ExampleValue(value: $0.string(0) ?? "", count: Int($0.int64(1))) }
      }
      guard type.scalar == .string else { continue }
      let folded = exact <= IndexSummary.maximumExampleValues ? exact : try distinct("v.fold", limit: IndexSummary.maximumKnownValues)
      guard folded > 0, folded <= IndexSummary.maximumKnownValues else { continue }
      // The content types of the items with each value come from the items, unless no item
      // has one.
      let withTypes = !(unrestricted && untyped)
      known[name] = try db.rows(
        """
        SELECT v.fold, min(coalesce(v.str, v.fold)), count(DISTINCT v.item), \(withTypes ? "group_concat(DISTINCT i.contentType)" : "NULL")
        FROM \(withTypes ? "vals v JOIN items i ON i.rowid = v.item" : "vals v")
        WHERE v.attr = ? AND v.fold IS NOT NULL AND length(coalesce(v.str, v.fold)) <= ?\(withTypes ? " AND " + visible.sql : "") GROUP BY v.fold
        """, [.integer(id), .integer(Int64(IndexSummary.maximumValueLength))] + (withTypes ? visible.arguments : [])
      ) { row in
        IndexSummary.KnownValue(
          attribute: name, fold: row.string(0) ?? "", value: row.string(1) ?? "", count: Int(row.int64(2)),
          contentTypes: (row.string(3) ?? "").split(separator: ",").map(String.init).sorted())
      }
    }
    return (attributes, known, examples)
  }

  /// Whether the file has the index `name`.
  package static func hasIndex(_ db: Connection, _ name: String) throws -> Bool {
    try db.scalar("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", [.text(name)]) != nil
  }

  /// Whether the file has the table `name`.
  package static func hasTable(_ db: Connection, _ name: String) throws -> Bool {
    try db.scalar("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(name)]) != nil
  }
}
