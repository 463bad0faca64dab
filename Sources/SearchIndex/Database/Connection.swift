internal import CSQLite

/// One SQLite connection: the only owner of an `sqlite3*` handle.
///
/// A `Connection` is used by one thread at a time; `SearchIndex` hands connections out from a
/// `Mutex`, so the handle is opened with `SQLITE_OPEN_NOMUTEX` (multi-thread mode: safe as long
/// as no two threads use the same connection at once). Prepared statements are cached by SQL
/// text and reused, so hot paths such as ingest prepare each statement once.
package final class Connection {
  let handle: OpaquePointer
  /// The path the connection was opened with.
  package let path: String
  private var statementCache: [String: Statement] = [:]
  /// Prepared statements of generated SQL (queries), by text, at most
  /// `maximumQueryStatements` (see `checkOutStatement`).
  private var queryStatements: [String: Statement] = [:]
  /// Keeps the progress handler's closure alive while SQLite may call it.
  var progressBox: ProgressBox?
  /// Receives the tokens the `searchlight` FTS5 tokenizer emits for armed texts (see
  /// `TokenCapture`); the tokenizer registered on this handle holds it as user data.
  let tokenCapture = TokenCapture()
  /// What `sl_bm25` leaves out of its statistics on this connection (`VisibleBM25`).
  let visibleScoring = VisibleScoringState()
  /// The rows `sl_visible` hides on this connection (`VisibleRowFilter`).
  let visibleRows = VisibleRowFilter.State()
  /// Compresses and decompresses stored records with the file's dictionary (`RecordCodec`).
  let records = RecordCodec()

  /// Opens (and, when `create` is true, creates) the database at `path`.
  package init(path: String, readOnly: Bool = false, create: Bool = true) throws(DatabaseError) {
    var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
    if readOnly {
      flags |= SQLITE_OPEN_READONLY
    } else {
      flags |= SQLITE_OPEN_READWRITE
      if create { flags |= SQLITE_OPEN_CREATE }
    }
    var db: OpaquePointer?
    let rc = sqlite3_open_v2(path, &db, flags, nil)
    guard rc == SQLITE_OK, let db else {
      let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      if let db { sqlite3_close_v2(db) }
      throw DatabaseError(code: .init(rawValue: rc), message: message)
    }
    self.handle = db
    self.path = path
    sqlite3_extended_result_codes(db, 1)
    // Writers wait for each other instead of failing at once; readers never wait in WAL mode.
    sqlite3_busy_timeout(db, Int32(Self.defaultBusyTimeout))
    try registerTokenizer()
    let registered = VisibleBM25.register(on: db, state: visibleScoring)
    if registered != SQLITE_OK { throw lastError(registered, sql: nil) }
    let filter = VisibleRowFilter.register(on: db, state: visibleRows)
    if filter != SQLITE_OK { throw lastError(filter, sql: nil) }
    // Folds long text read from records, as `vals.fold` holds it for short text.
    try installFunction("sl_fold", argumentCount: 1) { arguments in
      guard case .text(let text) = arguments[0] else { return .null }
      return .text(TextFolding.fold(text))
    }
    // The JSON of a stored record, for SQL that reads a member of it (`json_extract`). A
    // compressed record that does not decompress has no members (NULL), as a query reads it
    // (`StoredItem.decode`); `check` names it.
    try installFunction("sl_record", argumentCount: 1) { [unowned self] arguments in
      switch arguments[0] {
      case .blob(let bytes): (try? recordJSON(bytes)).map { json in .text(json.withUnsafeBufferPointer(UTF8Validation.repairing)) } ?? .null
      case .text: arguments[0]
      default: .null
      }
    }
    // One string of a stored record: `sl_member(attributes, name, ord)` is the member `name`
    // (its element `ord` when ord >= 0), what `json_extract(sl_record(attributes), path)`
    // gives for a string, without making the record's JSON a string or parsing its other
    // members' values (a long document is checked a pattern at a time: BENCHMARKS, session 28).
    try installFunction("sl_member", argumentCount: 3) { [unowned self] arguments in
      guard case .text(let name) = arguments[1], case .integer(let ord) = arguments[2] else { return .null }
      return recordMember(arguments[0], name: name, ord: ord).map(SQLValue.text) ?? .null
    }
  }

  /// The string `sl_member` reads from a record column: the member `name` of its JSON, or
  /// element `ord` of that member when `ord >= 0`; nil when there is no such string (or the
  /// record does not decompress or parse, as `json_extract` of `sl_record` gives NULL).
  package func recordMember(_ record: SQLValue, name: String, ord: Int64) -> String? {
    let json: [UInt8]
    switch record {
    case .blob(let bytes):
      guard let decoded = try? recordJSON(bytes) else { return nil }
      json = decoded
    case .text(let text): json = Array(text.utf8)
    default: return nil
    }
    /// Stops the walk once the member is read: the members after it are not looked at.
    struct Found: Error { let value: JSONValue }
    var member: JSONValue?
    do {
      try JSONParser.forEachMember(json, recognise: { _ in nil }, keeping: { candidate, _ in candidate == name }) { _, _, value in
        throw Found(value: value)
      }
    } catch let found as Found {
      member = found.value
    } catch {
      return nil
    }
    switch member {
    case .string(let text)?: return ord < 0 ? text : nil
    case .array(let elements)?:
      guard ord >= 0, ord < elements.count, case .string(let text) = elements[Int(ord)] else { return nil }
      return text
    default: return nil
    }
  }

  /// How long a statement waits for another connection's write lock, in milliseconds.
  package static let defaultBusyTimeout = 10_000

  /// Sets how long statements wait for another connection's write lock; 0 fails at once
  /// with `SQLITE_BUSY` (https://www.sqlite.org/c3ref/busy_timeout.html).
  package func setBusyTimeout(milliseconds: Int) {
    sqlite3_busy_timeout(handle, Int32(milliseconds))
  }

  deinit {
    statementCache.removeAll()
    queryStatements.removeAll()
    sqlite3_close_v2(handle)
  }

  /// The error SQLite reports for the last failed call on this connection.
  func lastError(_ rc: Int32, sql: String?) -> DatabaseError {
    DatabaseError(
      code: .init(rawValue: sqlite3_extended_errcode(handle) == 0 ? rc : sqlite3_extended_errcode(handle)),
      message: String(cString: sqlite3_errmsg(handle)), sql: sql)
  }

  /// Runs one or more statements that bind nothing and return nothing.
  package func execute(_ sql: String) throws(DatabaseError) {
    var errorMessage: UnsafeMutablePointer<CChar>?
    let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
    if rc != SQLITE_OK {
      let message = errorMessage.map { String(cString: $0) } ?? "unknown error"
      sqlite3_free(errorMessage)
      throw DatabaseError(code: .init(rawValue: sqlite3_extended_errcode(handle)), message: message, sql: sql)
    }
  }

  /// A prepared statement for `sql`, reused across calls; it is reset and its bindings cleared.
  package func cachedStatement(_ sql: String) throws(DatabaseError) -> Statement {
    if let statement = statementCache[sql] {
      statement.reset()
      return statement
    }
    let statement = try Statement(connection: self, sql: sql)
    statementCache[sql] = statement
    return statement
  }

  /// How many statements of generated SQL a connection keeps prepared.
  static let maximumQueryStatements = 64

  /// A prepared statement for generated SQL that may repeat (a query run again with other
  /// values): taken from the connection's cache when it has one, else prepared. The
  /// statement leaves the cache until `checkIn` returns it, so a nested use of the same SQL
  /// (a statement still stepping) gets a statement of its own.
  package func checkOutStatement(_ sql: String) throws(DatabaseError) -> Statement {
    if let statement = queryStatements.removeValue(forKey: sql) { return statement }
    return try Statement(connection: self, sql: sql)
  }

  /// Resets `statement` and keeps it for the next `checkOutStatement` of its SQL; the cache
  /// starts over when full.
  package func checkIn(_ statement: Statement) {
    statement.reset()
    if queryStatements.count >= Self.maximumQueryStatements { queryStatements.removeAll(keepingCapacity: true) }
    queryStatements[statement.sql] = statement
  }

  /// A statement prepared for one use (dynamic SQL that is unlikely to repeat).
  package func makeStatement(_ sql: String) throws(DatabaseError) -> Statement {
    try Statement(connection: self, sql: sql)
  }

  /// Runs `sql` with `arguments` bound, ignoring any rows.
  package func run(_ sql: String, _ arguments: [SQLValue] = []) throws(DatabaseError) {
    let statement = try cachedStatement(sql)
    try statement.bind(arguments)
    while try statement.step() {}
  }

  /// The rows of `sql`, each decoded by `row`.
  package func rows<T>(
    _ sql: String, _ arguments: [SQLValue] = [], _ row: (Statement) throws -> T
  ) throws -> [T] {
    let statement = try cachedStatement(sql)
    try statement.bind(arguments)
    var result: [T] = []
    while try statement.step() { result.append(try row(statement)) }
    return result
  }

  /// The first column of the first row of `sql`, or nil when there is no row.
  package func scalar(_ sql: String, _ arguments: [SQLValue] = []) throws(DatabaseError) -> SQLValue? {
    let statement = try cachedStatement(sql)
    try statement.bind(arguments)
    guard try statement.step() else { return nil }
    let value = statement.value(at: 0)
    statement.reset()
    return value
  }

  /// The rowid of the last successful insert.
  package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

  /// Rows changed by the last statement.
  package var changes: Int { Int(sqlite3_changes(handle)) }

  /// True while a transaction is open.
  package var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

  /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
  package func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
    try execute("BEGIN \(kind.rawValue)")
    do {
      let result = try body()
      try execute("COMMIT")
      return result
    } catch {
      try? execute("ROLLBACK")
      throw error
    }
  }

  /// Interrupts the statement running on this connection (from another thread).
  package func interrupt() { sqlite3_interrupt(handle) }

  /// Sets a limit on the file size in pages (used by fault tests to simulate a full disk).
  package func setMaxPageCount(_ pages: Int) throws(DatabaseError) {
    try execute("PRAGMA max_page_count = \(pages)")
  }
}

/// How a transaction takes its locks; see https://www.sqlite.org/lang_transaction.html
package enum TransactionKind: String, Sendable {
  /// Takes the write lock only at the first write (readers).
  case deferred = "DEFERRED"
  /// Takes the write lock at once, so the transaction never fails half-way with SQLITE_BUSY.
  case immediate = "IMMEDIATE"
}

@available(*, unavailable)
extension Connection: Sendable {}
