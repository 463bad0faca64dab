import Foundation
import Synchronization

/// A private, local index of searchable items in one SQLite file (CSSearchableIndex).
///
/// Several named indexes can share a file. Writes are transactions: every call (and every
/// batch) commits all of its changes or none. Readers use their own connections, so in WAL
/// mode queries never wait for a writer and always see a committed state.
///
/// ```swift
/// let index = try SearchIndex(path: "items.db")
/// try index.indexSearchableItems([SearchableItem(uniqueIdentifier: "n1", domainIdentifier: "notes",
///   attributeSet: AttributeSet([("title", .string("Groceries"))]))])
/// ```
public final class SearchIndex: Sendable {
  /// The index file.
  public let path: String
  /// The named index within the file.
  public let name: String
  /// The row of this named index in `indexes`.
  package let indexID: Int64
  let pool: ConnectionPool
  /// Ranked-index data queries have loaded, valid for one generation of the file.
  let rankedCache = RankedCache()
  /// The vectors of this named index as one matrix, with the generation they were read at;
  /// reloaded when the generation moves (see `VectorStore`).
  let vectorCache = Mutex<(generation: Int64, matrix: VectorMatrix)?>(nil)
  /// Summaries read by `summary(scope:)`, by scope, valid for one generation.
  let summaryCache = SummaryCache()
  /// What queries read before their first statement, per generation (`QueryStateCache`).
  let queryStateCache = QueryStateCache()

  /// Opens the named index `name` in the file at `path`.
  ///
  /// - Parameters:
  ///   - create: create the file and the named index when missing; when false, a missing
  ///     file is `SearchIndexError.missingIndex`.
  ///   - readOnly: open for reading only (`SQLITE_OPEN_READONLY`): nothing is created or
  ///     written, and a missing or empty file is an error. On read-only media (the folder is
  ///     not writable) the file is opened `immutable`, since SQLite cannot make the `-shm`
  ///     file WAL readers share. A file of an older schema is still migrated when it is
  ///     writable, so the first command after an upgrade may be a query.
  public init(path: String, name: String = "default", create: Bool = true, readOnly: Bool = false) throws(SearchIndexError) {
    let exists = FileManager.default.fileExists(atPath: path)
    if !exists && (!create || readOnly) { throw .missingIndex(path: path) }
    self.path = path
    self.name = name
    do {
      let opened = try Self.open(path: path, name: name, create: create, readOnly: readOnly)
      self.indexID = opened.indexID
      let openPath = opened.readerPath
      self.pool = ConnectionPool(writer: opened.writer) { () throws(DatabaseError) -> Connection in
        let reader = try Connection(path: openPath, readOnly: true, create: false)
        try reader.execute(Self.readerSettings)
        return reader
      }
    } catch {
      // A create that failed leaves no empty file behind.
      if !exists { Self.removeIfEmpty(path) }
      throw error
    }
  }

  /// Opens the file's writer connection (read-only for readers), prepares the schema and finds
  /// the named index; returns the path readers open.
  private static func open(path: String, name: String, create: Bool, readOnly requested: Bool) throws(SearchIndexError)
    -> (writer: Connection, indexID: Int64, readerPath: String)
  {
    // Whether it exists first, then (if it does) whether it is writable: asked the other way
    // round, a file another creator makes between the two questions looks like an existing
    // file that cannot be written, and this open would go read-only.
    let exists = FileManager.default.fileExists(atPath: path)
    let fileIsWritable = exists && FileManager.default.isWritableFile(atPath: path)
    let readOnly = requested || (exists && !fileIsWritable)
    let openPath = readOnly && !folderIsWritable(path) ? immutableURI(path) : path
    do {
      var writer = try Connection(path: openPath, readOnly: readOnly, create: create && !readOnly)
      var writable = !readOnly
      if readOnly, exists, fileIsWritable, openPath == path, try needsMigration(writer) {
        writer = try Connection(path: path, readOnly: false, create: false)
        writable = true
      }
      try prepareSchema(writer, path: path, readOnly: !writable)
      // A larger page cache keeps the value indexes in memory during ingest (the default 2 MB
      // rereads and rewrites pages); 32 MB ingests 1M sample items, 1M Zipf documents and
      // Debian's packages as fast as 64 MB did, 30-40 MB lower. Sorts larger than the cache
      // spill to temporary files, not to memory: the value indexes a bulk load builds at its end
      // sort every value of the write (11 million keys for a million notes and mails took
      // `index` to 725 MB in memory).
      try writer.execute("PRAGMA cache_size = -32768; PRAGMA temp_store = FILE")
      let indexID = try namedIndexID(writer, name: name, create: create && writable, path: path)
      if writable { prepareRankedIndex(writer, indexID: indexID) }
      return (writer, indexID, openPath)
    } catch let error as DatabaseError {
      if error.code == .notADatabase || error.code == .corrupt {
        throw .notAnIndex(path: path, reason: "the file is not an SQLite database or is corrupt (\(error.message))")
      }
      throw .database(error)
    } catch let error as SearchIndexError {
      throw error
    } catch {
      throw .database(DatabaseError(code: .error, message: "\(error)"))
    }
  }

  /// True when files can be made in the folder of `path` (SQLite's `-wal` and `-shm`).
  private static func folderIsWritable(_ path: String) -> Bool {
    let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
    return access(folder, W_OK) == 0
  }

  /// `path` as a URI that opens it immutable: no locks, no `-shm`, no `-wal`
  /// (https://www.sqlite.org/uri.html#uriimmutable).
  static func immutableURI(_ path: String) -> String {
    let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
    var allowed = CharacterSet.urlPathAllowed
    allowed.remove(charactersIn: "?#%")
    return "file:" + (absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute) + "?immutable=1"
  }

  /// Removes the file at `path` (and SQLite's files beside it) when it is empty: what a
  /// failed create leaves.
  private static func removeIfEmpty(_ path: String) {
    func isRegularFile(_ path: String, empty: Bool) -> Bool {
      guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
        attributes[.type] as? FileAttributeType == .typeRegular
      else { return false }
      return !empty || (attributes[.size] as? Int) == 0
    }
    guard isRegularFile(path, empty: true) else { return }
    for suffix in ["", "-wal", "-shm", "-journal"] where isRegularFile(path + suffix, empty: false) {
      try? FileManager.default.removeItem(atPath: path + suffix)
    }
  }

  /// True when the file is an index of an older schema, or lacks a table or an index the
  /// current one has.
  private static func needsMigration(_ db: Connection) throws -> Bool {
    let tables = try db.rows("SELECT name FROM sqlite_master WHERE type = 'table'") { $0.string(0) ?? "" }
    guard tables.contains("meta"), try db.scalar("SELECT value FROM meta WHERE key = 'format'")?.stringValue == Schema.formatMarker else {
      return false
    }
    let version = try Schema.storedVersion(db) ?? 0
    return try version < Schema.version || lacksCurrentTables(db, tables: tables)
  }

  /// True when the file lacks one of `Schema.requiredTables` or `Schema.requiredIndexes`
  /// (all additive: a writable open creates them without a version step).
  private static func lacksCurrentTables(_ db: Connection, tables: [String]) throws -> Bool {
    if Schema.requiredTables.contains(where: { !tables.contains($0) }) { return true }
    return try !missingRequiredIndexes(db).isEmpty
  }

  /// The `Schema.requiredIndexes` the file lacks, in their order.
  static func missingRequiredIndexes(_ db: Connection) throws -> [String] {
    let indexes = try db.rows("SELECT name FROM sqlite_master WHERE type = 'index'") { $0.string(0) ?? "" }
    return Schema.requiredIndexes.filter { !indexes.contains($0) }
  }

  private static func prepareSchema(_ db: Connection, path: String, readOnly: Bool) throws {
    let tables = try db.rows("SELECT name FROM sqlite_master WHERE type = 'table'") { $0.string(0) ?? "" }
    if tables.isEmpty {
      guard !readOnly else { throw SearchIndexError.notAnIndex(path: path, reason: "the file is empty") }
      // Under the write lock, and idempotent: another process may be creating the same file,
      // and the one that waited for the lock finds the tables made and the facts recorded.
      try db.transaction(.immediate) {
        try db.execute(Schema.createStatements)
        try db.run("INSERT OR IGNORE INTO meta(key, value) VALUES ('format', ?), ('schemaVersion', ?), ('generation', 0)",
                   [.text(Schema.formatMarker), .integer(Int64(Schema.version))])
      }
      // The journal mode cannot change inside the transaction above, so set it here.
      try setWAL(db)
      return
    }
    guard tables.contains("meta"),
      try db.scalar("SELECT value FROM meta WHERE key = 'format'")?.stringValue == Schema.formatMarker
    else {
      throw SearchIndexError.notAnIndex(path: path, reason: "it is an SQLite database without Searchlight's tables")
    }
    let version = try Schema.storedVersion(db) ?? 0
    guard version <= Schema.version else { throw SearchIndexError.unsupportedVersion(path: path, version: version) }
    if !readOnly {
      // Files written by an earlier version are migrated in one transaction; current ones
      // gain any table or index they lack (all additive).
      if try version < Schema.version || lacksCurrentTables(db, tables: tables) {
        try db.transaction {
          // Read again under the write lock: another process may have migrated meanwhile.
          let current = try Schema.storedVersion(db) ?? 0
          try SchemaMigration.migrate(db, from: current)
        }
      }
      try setWAL(db)
    }
  }

  /// Switches the file to WAL. The switch needs a moment alone with the file; a process that
  /// is creating or opening it at the same time can hold it, so a busy answer is retried
  /// (for up to the busy timeout).
  private static func setWAL(_ db: Connection) throws(DatabaseError) {
    var waited = 0
    while true {
      do {
        try db.execute("PRAGMA journal_mode = WAL")
        return
      } catch {
        let busy = error.code.primary == .busy || error.code.primary == .locked
        guard busy, waited < Connection.defaultBusyTimeout else { throw error }
        usleep(20_000)
        waited += 20
      }
    }
  }


  private static func namedIndexID(_ db: Connection, name: String, create: Bool, path: String) throws -> Int64 {
    if let id = try db.scalar("SELECT id FROM indexes WHERE name = ?", [.text(name)])?.int64Value { return id }
    guard create else {
      // A read-only or query-only open of a file without this named index: it is simply empty.
      return -1
    }
    // Another process may add the same name at the same moment: whichever insert lands, both
    // read back the one row.
    try db.run("INSERT OR IGNORE INTO indexes(name) VALUES (?)", [.text(name)])
    return try db.scalar("SELECT id FROM indexes WHERE name = ?", [.text(name)])?.int64Value ?? db.lastInsertRowID
  }

  /// Names of the indexes stored in this file.
  public func indexNames() throws(SearchIndexError) -> [String] {
    try read { db in try db.rows("SELECT name FROM indexes ORDER BY name") { $0.string(0) ?? "" } }
  }

  // MARK: Reading

  /// Runs `body` in a read transaction on a reader connection: every statement in it sees the
  /// same committed state, never a write in progress.
  package func read<T>(_ body: (Connection) throws -> T) throws(SearchIndexError) -> T {
    do {
      return try readPassingErrors(body)
    } catch {
      throw Self.wrap(error)
    }
  }

  /// Like `read`, but errors other than SQLite's reach the caller unchanged (query
  /// diagnostics, cancellation).
  package func readPassingErrors<T>(_ body: (Connection) throws -> T) throws -> T {
    do {
      return try pool.withReader { db in
        // Prepared once per connection: every query opens and ends a read transaction.
        try db.run("BEGIN DEFERRED")
        defer { try? db.run("COMMIT") }
        return try body(db)
      }
    } catch let error as DatabaseError {
      throw SearchIndexError.database(error)
    }
  }

  static func wrap(_ error: any Error) -> SearchIndexError {
    switch error {
    case let error as SearchIndexError: error
    case let error as DatabaseError: .database(error)
    case let error as ItemDecodingError: .invalidItem(id: nil, message: error.message)
    default: .database(DatabaseError(code: .error, message: "\(error)"))
    }
  }

  /// The attribute catalogue of the file: standard attributes plus the custom ones in use.
  public func catalog() throws(SearchIndexError) -> AttributeCatalog {
    try read { db in try Self.loadCatalog(db) }
  }

  /// The catalogue as seen by a read transaction already open on `db`.
  package static func loadCatalogForQuery(_ db: Connection) throws -> AttributeCatalog { try loadCatalog(db) }

  /// The schema version of the index file at `path` when a writable open would migrate it
  /// (an earlier version than this code's, and a file this process may write), nil otherwise
  /// or when it is not a readable index. Commands say so before opening: a million items
  /// take half a minute.
  package static func pendingMigration(path: String) -> Int? {
    guard let db = upgradable(path), let version = (try? Schema.storedVersion(db)) ?? nil, version < Schema.version else { return nil }
    return version
  }

  /// The item indexes (`Schema.requiredIndexes`) that a writable open of the current-version
  /// file at `path` would build, in order; empty otherwise. A million items take ten seconds.
  package static func pendingIndexes(path: String) -> [String] {
    guard let db = upgradable(path), (try? Schema.storedVersion(db)) ?? nil == Schema.version else { return [] }
    return (try? missingRequiredIndexes(db)) ?? []
  }

  /// A read-only connection to the file at `path` when `open` may upgrade it: the file and
  /// its folder writable.
  private static func upgradable(_ path: String) -> Connection? {
    guard FileManager.default.isWritableFile(atPath: path), folderIsWritable(path) else { return nil }
    return try? Connection(path: path, readOnly: true, create: false)
  }

  static func loadCatalog(_ db: Connection) throws -> AttributeCatalog {
    var custom: [String: AttributeType] = [:]
    for (name, type) in try db.rows("SELECT name, type FROM attributes WHERE custom = 1", [], { ($0.string(0) ?? "", $0.string(1) ?? "") }) {
      if let parsed = AttributeType(parsing: type) { custom[name] = parsed }
    }
    return AttributeCatalog(customTypes: custom)
  }

  /// The generation: a counter bumped by every committed write, recorded in query tokens so a
  /// reply names the state of the index it came from.
  public func generation() throws(SearchIndexError) -> Int64 {
    try read { db in try db.scalar("SELECT value FROM meta WHERE key = 'generation'")?.int64Value ?? 0 }
  }

  /// The client state stored by the last `endBatch(clientState:)`, nil when none.
  public func fetchLastClientState() throws(SearchIndexError) -> Data? {
    try read { db in
      guard case .blob(let bytes) = try db.scalar("SELECT clientState FROM indexes WHERE id = ?", [.integer(indexID)]) ?? .null
      else { return nil }
      return Data(bytes)
    }
  }

  /// The stored item with `identifier`, whatever its visibility (for the owning app).
  public func item(withIdentifier identifier: String) throws(SearchIndexError) -> SearchableItem? {
    try read { db in
      let catalog = try Self.loadCatalog(db)
      return try db.rows(
        "SELECT id, domain, contentType, expiration, protection, attributes FROM items WHERE indexId = ? AND id = ?",
        [.integer(indexID), .text(identifier)]
      ) { try StoredItem.decode(row: $0, offset: 0, catalog: catalog) }.first
    }
  }

  /// Every stored item in identifier order, whatever its visibility (export, tests, sync).
  public func allItems() throws(SearchIndexError) -> [SearchableItem] {
    try read { db in
      let catalog = try Self.loadCatalog(db)
      return try db.rows(
        "SELECT id, domain, contentType, expiration, protection, attributes FROM items WHERE indexId = ? ORDER BY id",
        [.integer(indexID)]
      ) { try StoredItem.decode(row: $0, offset: 0, catalog: catalog) }
    }
  }

  // MARK: Writing

  /// Runs `body` as one write transaction: everything it writes commits together, or nothing
  /// does when it throws. SQLite errors arrive as `SearchIndexError.database`; errors `body`
  /// throws itself (bad input with its file and line) arrive unchanged.
  /// `committing` is called once the body and the writer's own finishing work (the ranked
  /// index's flush and compaction) are done, before the commit and the statistics a large
  /// write refreshes after it (a long delete's progress).
  package func write<T>(committing: (() -> Void)? = nil, _ body: (inout IndexWriter) throws -> T) throws -> T {
    guard indexID >= 0 else {
      throw SearchIndexError.database(DatabaseError(code: .readOnly, message: "the index '\(name)' does not exist and the file is read-only"))
    }
    var rowsWritten = 0
    let result: T
    do {
      result = try pool.withWriter { db in
        let result = try db.transaction(.immediate) {
          var writer = try IndexWriter(connection: db, indexID: indexID)
          let result = try body(&writer)
          try writer.finish()
          rowsWritten = writer.rowsWritten
          if writer.changed { committing?() }
          return result
        }
        if rowsWritten >= Self.analyzeAfterRows,
          let items = try? db.scalar("SELECT count(*) FROM items")?.int64Value,
          Self.statisticsAreStale(items: items, analyzed: Self.analyzedItems(db), rowsWritten: rowsWritten)
        {
          // Fresh statistics for the query planner (0.3 s at 100k items, 22 s at 1M). Not
          // sampled: `analysis_limit` estimates led the planner to scan a whole index range
          // instead of an equality. A failure only leaves the old statistics.
          try? db.execute("ANALYZE")
        }
        if rowsWritten >= Self.analyzeAfterRows {
          // The first `plan`, `ask` or `mcp` after a large write would compute the planner's
          // summary of the default scope (3 s at 1M items); the writer pays it instead.
          storeSummary(of: AccessScope(), on: db)
        }
        return result
      }
    } catch let error as DatabaseError {
      throw SearchIndexError.database(error)
    }
    return result
  }

  /// Items written or deleted by one transaction after which `write` refreshes the query
  /// planner's statistics (`ANALYZE`) if they are stale (`statisticsAreStale`), and stores
  /// the default scope's summary. A task-local so that tests can reach it with a few items.
  @TaskLocal static var analyzeAfterRows = 5_000

  /// Whether the planner's statistics no longer describe the items: none were gathered, this
  /// write changed a tenth of the items or more, or the number of items moved by a quarter
  /// since they were gathered. The last catches a file grown by many writes each under a
  /// tenth: a million-item file whose statistics still said 100,000 items counted them
  /// through the wrong index (7.7 s instead of 0.1 s).
  static func statisticsAreStale(items: Int64, analyzed: Int64?, rowsWritten: Int) -> Bool {
    guard let analyzed else { return true }
    return Int64(rowsWritten) * 10 >= items || abs(items - analyzed) * 4 >= analyzed
  }

  /// The number of items when the statistics were gathered: the first figure of the
  /// primary key's row in `sqlite_stat1`; nil without statistics.
  static func analyzedItems(_ db: Connection) -> Int64? {
    guard let stat = try? db.scalar(
      "SELECT stat FROM sqlite_stat1 WHERE tbl = 'items' AND idx = 'sqlite_autoindex_items_1'")?.stringValue
    else { return nil }
    return stat.split(separator: " ").first.flatMap { Int64($0) }
  }

  /// The settings of every reader connection: a 32 MB page cache, temporary tables in
  /// memory, and reads of the file's first 2 GB through a memory map, so a page the OS has
  /// cached costs no read() and no copy (the items of a large result are on hundreds of
  /// pages; aggregates over 100k items ran 1.5-2.7x faster). The touched file pages show as
  /// the process's resident memory (shared with the OS cache, not allocated): a one-shot
  /// command on a 3 GB file that reads scattered pages shows hundreds of MB. A 256 MB map
  /// showed less but read a ranked query's length pages 40% slower at 1M items
  /// (BENCHMARKS, session 19). `bench` gives its hand-written SQL the same settings.
  package static let readerSettings = "PRAGMA cache_size = -32768; PRAGMA temp_store = MEMORY; PRAGMA mmap_size = \(1 << 31)"

  /// `write` for the public API, where every failure is a `SearchIndexError`.
  func writeTyped<T>(committing: (() -> Void)? = nil, _ body: (inout IndexWriter) throws -> T) throws(SearchIndexError) -> T {
    do { return try write(committing: committing, body) } catch { throw Self.wrap(error) }
  }

  /// Adds items, replacing any stored item with the same identifier.
  public func indexSearchableItems(_ items: [SearchableItem]) throws(SearchIndexError) {
    try writeTyped { writer in
      for item in items { try writer.upsert(item) }
    }
  }

  /// Merges items into stored ones: only the given attributes change (`isUpdate` in Core
  /// Spotlight); names in `removing` are deleted. An item not yet stored is added.
  public func updateSearchableItems(_ items: [SearchableItem], removing: [String: Set<String>] = [:]) throws(SearchIndexError) {
    try writeTyped { writer in
      for item in items { try writer.merge(item, removing: removing[item.uniqueIdentifier] ?? []) }
    }
  }

  /// Deletes the items with these identifiers; returns how many existed. `progress` hears
  /// how far a long delete has come (`MaintenanceProgress`).
  @discardableResult
  public func deleteSearchableItems(
    withIdentifiers identifiers: [String], progress: ((MaintenanceProgress) -> Void)? = nil
  ) throws(SearchIndexError) -> Int {
    try writeTyped(committing: Self.committing(progress)) { writer in try writer.delete(identifiers: identifiers, progress: progress) }
  }

  /// Deletes every item in these domains and their sub-domains (`mail` covers `mail.inbox`).
  @discardableResult
  public func deleteSearchableItems(
    withDomainIdentifiers domains: [String], progress: ((MaintenanceProgress) -> Void)? = nil
  ) throws(SearchIndexError) -> Int {
    try writeTyped(committing: Self.committing(progress)) { writer in try writer.delete(domains: domains, progress: progress) }
  }

  /// A delete's or a rebuild's `committing` report.
  static func committing(_ progress: ((MaintenanceProgress) -> Void)?) -> (() -> Void)? {
    progress.map { progress in { progress(MaintenanceProgress(phase: .committing, done: 0, total: 0)) } }
  }

  /// Records that the user engaged with these items `count` more times (opened, played,
  /// replied): the popularity signal of ranking (`log(engagement)` in a score, the
  /// `popularity` ranking model). Unknown identifiers change nothing; they are returned,
  /// and when any is unknown nothing is written, so a typo never half-applies a batch. With a
  /// `scope`, items it may not see (protected or expired) count as unknown, exactly like
  /// missing ones, so the answer reveals nothing about them.
  @discardableResult
  public func recordEngagement(
    withIdentifiers identifiers: [String], count: Int = 1, scope: AccessScope? = nil
  ) throws(SearchIndexError) -> [String] {
    /// Rolls the batch back when an identifier is unknown.
    struct Unknown: Error { let identifiers: [String] }
    do {
      try write { writer in
        let missing = try writer.engage(identifiers: identifiers, count: count, scope: scope)
        if !missing.isEmpty { throw Unknown(identifiers: missing) }
      }
      return []
    } catch let unknown as Unknown {
      return unknown.identifiers
    } catch {
      throw Self.wrap(error)
    }
  }

  /// Deletes every item of this named index.
  @discardableResult
  public func deleteAllSearchableItems(progress: ((MaintenanceProgress) -> Void)? = nil) throws(SearchIndexError) -> Int {
    try writeTyped(committing: Self.committing(progress)) { writer in try writer.deleteAll(progress: progress) }
  }

  /// Physically removes items that expired at or before `now` (they are already invisible);
  /// returns how many. `progress` as for the other deletes.
  @discardableResult
  public func purgeExpiredItems(now: Date = Date(), progress: ((MaintenanceProgress) -> Void)? = nil) throws(SearchIndexError) -> Int {
    try writeTyped(committing: Self.committing(progress)) { writer in try writer.purgeExpired(now: now, progress: progress) }
  }

  /// Caps the file at `pages` pages for this handle's writes (fault tests simulate a full
  /// disk with it); nil lifts the cap.
  package func limitFileSize(pages: Int?) throws(SearchIndexError) {
    do {
      try pool.withWriter { db in try db.setMaxPageCount(pages ?? 1_073_741_823) }
    } catch {
      throw Self.wrap(error)
    }
  }

  /// Pages the file uses now.
  package func pageCount() throws(SearchIndexError) -> Int {
    try read { db in Int(try db.scalar("PRAGMA page_count")?.int64Value ?? 0) }
  }

  /// Starts a batch: changes collected in it are written in one transaction by `endBatch`.
  public func beginBatch() -> IndexBatch { IndexBatch(index: self) }
}
