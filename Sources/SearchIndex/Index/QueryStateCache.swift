import Foundation
import Synchronization

/// What every query reads before its first statement (the attribute catalogue, the catalogue
/// a scope sees, the attribute ids, the full-text rows a scope hides), kept for one index
/// generation so a query reads one row of `meta` instead of the catalogue tables each time.
///
/// An entry belongs to the generation it was read at: any committed write bumps the
/// generation, so the next query reads again. Entries that depend on an access scope also
/// record the clock times for which the scope's expiry hides the same items (as
/// `SummaryCache` does), so an item that expires is hidden at once.
final class QueryStateCache: Sendable {
  struct Entry: Sendable {
    var generation: Int64
    var validFrom: Double?
    var validUntil: Double?
    var value: any Sendable

    func holds(generation: Int64, now: Double?) -> Bool {
      guard self.generation == generation else { return false }
      guard let now else { return true }
      return (validFrom.map { $0 <= now } ?? true) && (validUntil.map { now < $0 } ?? true)
    }
  }

  /// A value of any type, so that a stored nil reads back as a hit.
  struct Boxed<T: Sendable>: Sendable { let value: T }

  private let entries = Mutex<[String: Entry]>([:])

  func entry(_ key: String, generation: Int64, now: Double?) -> (any Sendable)? {
    entries.withLock { entries in
      guard let entry = entries[key], entry.holds(generation: generation, now: now) else { return nil }
      return entry.value
    }
  }

  /// The entry under `key` whatever its generation, if it holds at `now`: what the last read
  /// found, for a caller that checks the generation later.
  func latest(_ key: String, now: Double) -> Entry? {
    entries.withLock { entries in
      guard let entry = entries[key], entry.holds(generation: entry.generation, now: now) else { return nil }
      return entry
    }
  }

  func store(_ entry: Entry, key: String) {
    entries.withLock { entries in
      // Keys are few (a handful of kinds per scope); a process that sees many scopes starts over.
      if entries.count >= 256 { entries.removeAll() }
      entries[key] = entry
    }
  }
}

extension SearchIndex {
  /// The generation as the read transaction open on `db` sees it.
  package static func generation(in db: Connection) throws -> Int64 {
    try db.scalar("SELECT value FROM meta WHERE key = 'generation'")?.int64Value ?? 0
  }

  /// `compute()` read once per index generation (under `key`), in the read transaction open
  /// on `db` whose generation is `generation`.
  package func cachedForGeneration<T: Sendable>(
    _ key: String, generation: Int64, _ compute: () throws -> T
  ) throws -> T {
    if let boxed = queryStateCache.entry(key, generation: generation, now: nil) as? QueryStateCache.Boxed<T> { return boxed.value }
    let value = try compute()
    queryStateCache.store(.init(generation: generation, value: QueryStateCache.Boxed(value: value)), key: key)
    return value
  }

  /// The cache key of `key` read for `scope` (`cachedForScope`).
  private static func scopedKey(_ key: String, scope: AccessScope) -> String { key + "|" + summaryKey(scope) }

  /// The key of the catalogue a scope sees (`queryVisibleCatalog`, `lastQueryCatalog`).
  private static let visibleCatalogKey = "visible-catalog"

  /// `compute()` read once per index generation and access scope (under `key`), for the
  /// clock times at which the scope's expiry hides the same items as at `scope.now`.
  package func cachedForScope<T: Sendable>(
    _ key: String, scope: AccessScope, generation: Int64, in db: Connection, _ compute: () throws -> T
  ) throws -> T {
    let fullKey = Self.scopedKey(key, scope: scope)
    let now = scope.now.timeIntervalSince1970
    if let boxed = queryStateCache.entry(fullKey, generation: generation, now: now) as? QueryStateCache.Boxed<T> { return boxed.value }
    let value = try compute()
    let window = try db.rows(
      """
      SELECT (SELECT max(expiration) FROM items WHERE expiration IS NOT NULL AND expiration <= ?),
             (SELECT min(expiration) FROM items WHERE expiration IS NOT NULL AND expiration > ?)
      """, [.real(now), .real(now)]
    ) { ($0.isNull(0) ? nil : $0.double(0), $0.isNull(1) ? nil : $0.double(1)) }.first
    queryStateCache.store(
      .init(generation: generation, validFrom: window?.0 ?? nil, validUntil: window?.1 ?? nil, value: QueryStateCache.Boxed(value: value)),
      key: fullKey)
    return value
  }

  /// The attribute catalogue (standard and custom attributes) in the read transaction open
  /// on `db`, read once per generation.
  package func queryCatalog(_ db: Connection, generation: Int64) throws -> AttributeCatalog {
    try cachedForGeneration("catalog", generation: generation) { try Self.loadCatalog(db) }
  }

  /// `visibleCatalog(_:scope:)`, read once per generation and scope.
  package func queryVisibleCatalog(_ db: Connection, scope: AccessScope, generation: Int64) throws -> AttributeCatalog {
    try cachedForScope(Self.visibleCatalogKey, scope: scope, generation: generation, in: db) { try visibleCatalog(db, scope: scope) }
  }

  /// The catalogue as `scope` sees it (`catalog(scope:)`), kept per generation and scope:
  /// what queries bind names against.
  public func queryCatalog(scope: AccessScope) throws(SearchIndexError) -> AttributeCatalog {
    try queryCatalogAndGeneration(scope: scope).catalog
  }

  /// `queryCatalog(scope:)` with the generation it belongs to.
  package func queryCatalogAndGeneration(scope: AccessScope) throws(SearchIndexError) -> (catalog: AttributeCatalog, generation: Int64) {
    try read { db in
      let generation = try Self.generation(in: db)
      return (try queryVisibleCatalog(db, scope: scope, generation: generation), generation)
    }
  }

  /// The catalogue `scope` saw at the last generation this process read, without opening a
  /// read transaction (a query's parse and bind need none); nil when none was read or the
  /// scope's expiry has changed what it hides since. Whoever binds with it must check the
  /// generation again in the transaction that runs the query.
  package func lastQueryCatalog(scope: AccessScope) -> (catalog: AttributeCatalog, generation: Int64)? {
    let key = Self.scopedKey(Self.visibleCatalogKey, scope: scope)
    guard let entry = queryStateCache.latest(key, now: scope.now.timeIntervalSince1970),
      let boxed = entry.value as? QueryStateCache.Boxed<AttributeCatalog>
    else { return nil }
    return (boxed.value, entry.generation)
  }

  /// The rowids `scope` hides in this named index (`AccessScope.hiddenRowsSQL`), ascending,
  /// read once per generation and scope.
  ///
  /// Many hidden items cost every process that searches: 30,000 protected items at 1M took
  /// 15–20 ms to read through the partial indexes (a row step each, and a temporary B-tree
  /// for the union). So the file keeps a set of `storedHiddenRowsMinimum` or more in
  /// `summary_cache` per generation and scope, delta-encoded (`hiddenRowsKey`), stored by the
  /// first reader that reads it, as summaries are; later processes decode one blob.
  package func queryHiddenRows(for scope: AccessScope, in db: Connection, generation: Int64) throws -> [Int64] {
    try cachedForScope("hidden-rows", scope: scope, generation: generation, in: db) {
      let key = Self.hiddenRowsKey(scope)
      let now = scope.now.timeIntervalSince1970
      if let stored = Self.storedCacheBlob(db, indexID: indexID, key: key, generation: generation, now: now),
        let rowids = Self.decodeRowids(stored)
      {
        return rowids
      }
      let hidden = scope.hiddenRowsSQL(indexID: indexID)
      let rowids = try db.rows(hidden.sql, hidden.arguments) { $0.int64(0) }.sorted()
      if rowids.count >= Self.storedHiddenRowsMinimum {
        let window = try Self.expiryWindow(db, now: now)
        storeCacheRow(
          key: key, generation: generation, validFrom: window.from, validUntil: window.until,
          value: .blob(Self.encodeRowids(rowids)))
      }
      return rowids
    }
  }

  /// Fewer hidden rows than this are read from their indexes each time (a write to keep
  /// them would cost more than reading them).
  static let storedHiddenRowsMinimum = 256

  /// The `summary_cache` key of a scope's hidden rowids.
  static func hiddenRowsKey(_ scope: AccessScope) -> String { "hidden-rows " + summaryKey(scope) }

  /// Ascending distinct rowids as varint gaps (the first from zero, after a zigzag step so a
  /// negative rowid fits).
  static func encodeRowids(_ rowids: [Int64]) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(rowids.count * 2)
    var previous: Int64?
    for rowid in rowids {
      if let previous {
        // Ascending, so the gap is positive even where it passes Int64.max (as an unsigned).
        Varint.append(UInt64(bitPattern: rowid &- previous), to: &bytes)
      } else {
        Varint.append(UInt64(bitPattern: (rowid << 1) ^ (rowid >> 63)), to: &bytes)
      }
      previous = rowid
    }
    return bytes
  }

  /// `encodeRowids`' rowids; nil for bytes it did not write (a damaged or foreign row reads
  /// the indexes instead).
  static func decodeRowids(_ bytes: [UInt8]) -> [Int64]? {
    bytes.withUnsafeBufferPointer { buffer -> [Int64]? in
      guard let base = buffer.baseAddress else { return [] }
      var rowids: [Int64] = []
      var position = 0
      while position < buffer.count {
        guard let value = Varint.readIfValid(base, &position, end: buffer.count) else { return nil }
        if let previous = rowids.last {
          let next = previous &+ Int64(bitPattern: value)
          // Each rowid above the one before, without wrapping past Int64.max.
          guard value > 0, next > previous else { return nil }
          rowids.append(next)
        } else {
          rowids.append(Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1))
        }
      }
      return rowids
    }
  }

  /// What `sl_bm25` leaves out for `scope`, read once per generation and scope: the hidden
  /// rowids (`queryHiddenRows`), and how many of them have a full-text row with how many
  /// tokens in all, which the file keeps per generation and scope (`hiddenFullTextTotals`).
  package func queryHiddenFullTextRows(for scope: AccessScope, in db: Connection, generation: Int64) throws -> HiddenFullTextRows? {
    try cachedForScope("hidden-fts", scope: scope, generation: generation, in: db) {
      let rowids = try queryHiddenRows(for: scope, in: db, generation: generation)
      guard !rowids.isEmpty else { return nil }
      let totals = try hiddenFullTextTotals(for: scope, in: db, generation: generation)
      guard totals.rows > 0 else { return nil }
      return HiddenFullTextRows(rowids: rowids, rows: totals.rows, tokens: totals.tokens)
    }
  }
}
