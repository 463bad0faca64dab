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

  /// `compute()` read once per index generation and access scope (under `key`), for the
  /// clock times at which the scope's expiry hides the same items as at `scope.now`.
  package func cachedForScope<T: Sendable>(
    _ key: String, scope: AccessScope, generation: Int64, in db: Connection, _ compute: () throws -> T
  ) throws -> T {
    let fullKey = key + "|" + Self.summaryKey(scope)
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
    try cachedForScope("visible-catalog", scope: scope, generation: generation, in: db) { try visibleCatalog(db, scope: scope) }
  }

  /// The catalogue as `scope` sees it (`catalog(scope:)`), kept per generation and scope:
  /// what queries bind names against.
  public func queryCatalog(scope: AccessScope) throws(SearchIndexError) -> AttributeCatalog {
    try read { db in try queryVisibleCatalog(db, scope: scope, generation: Self.generation(in: db)) }
  }

  /// The rowids `scope` hides in this named index (`AccessScope.hiddenRowsSQL`), ascending,
  /// read once per generation and scope.
  package func queryHiddenRows(for scope: AccessScope, in db: Connection, generation: Int64) throws -> [Int64] {
    try cachedForScope("hidden-rows", scope: scope, generation: generation, in: db) {
      let hidden = scope.hiddenRowsSQL(indexID: indexID)
      return try db.rows(hidden.sql, hidden.arguments) { $0.int64(0) }.sorted()
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
      return HiddenFullTextRows(rowids: Set(rowids), rows: totals.rows, tokens: totals.tokens)
    }
  }
}
