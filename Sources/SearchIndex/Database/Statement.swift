internal import CSQLite

/// A value bound to, or read from, an SQL statement.
package enum SQLValue: Sendable, Hashable {
  case null
  case integer(Int64)
  case real(Double)
  case text(String)
  case blob([UInt8])

  /// The value as a Double, when it is numeric.
  package var doubleValue: Double? {
    switch self {
    case .integer(let i): Double(i)
    case .real(let d): d
    default: nil
    }
  }

  /// The value as an Int64, when it is numeric.
  package var int64Value: Int64? {
    switch self {
    case .integer(let i): i
    case .real(let d): Int64(exactly: d.rounded()) ?? nil
    default: nil
    }
  }

  /// The value as text, when it is text.
  package var stringValue: String? {
    if case .text(let s) = self { return s }
    return nil
  }
}

/// A prepared statement, owned by its `Connection` and finalized with it.
package final class Statement {
  let handle: OpaquePointer
  unowned let connection: Connection
  /// The SQL text the statement was prepared from.
  package let sql: String

  init(connection: Connection, sql: String) throws(DatabaseError) {
    var statement: OpaquePointer?
    let rc = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
    guard rc == SQLITE_OK, let statement else {
      throw connection.lastError(rc, sql: sql)
    }
    self.handle = statement
    self.connection = connection
    self.sql = sql
  }

  deinit { sqlite3_finalize(handle) }

  /// Resets the statement so it can run again, and clears its bindings.
  package func reset() {
    sqlite3_reset(handle)
    sqlite3_clear_bindings(handle)
  }

  /// Binds `values` to parameters 1...n.
  package func bind(_ values: [SQLValue]) throws(DatabaseError) {
    for (offset, value) in values.enumerated() {
      try bind(value, at: Int32(offset + 1))
    }
  }

  /// Binds one value to the 1-based parameter `index`.
  package func bind(_ value: SQLValue, at index: Int32) throws(DatabaseError) {
    let rc: Int32
    switch value {
    case .null: rc = sqlite3_bind_null(handle, index)
    case .integer(let i): rc = sqlite3_bind_int64(handle, index, i)
    case .real(let d): rc = sqlite3_bind_double(handle, index, d)
    case .text(let s): rc = bindText(s, at: index)
    case .blob(let bytes):
      rc = bytes.withUnsafeBytes { raw in
        sqlite3_bind_blob(handle, index, raw.baseAddress, Int32(raw.count), searchlight_sqlite_transient())
      }
    }
    if rc != SQLITE_OK { throw connection.lastError(rc, sql: sql) }
  }

  /// Binds text without wrapping it in an `SQLValue` first (the ingest hot path).
  package func bind(text: String?, at index: Int32) throws(DatabaseError) {
    let rc: Int32
    if let text {
      rc = bindText(text, at: index)
    } else {
      rc = sqlite3_bind_null(handle, index)
    }
    if rc != SQLITE_OK { throw connection.lastError(rc, sql: sql) }
  }

  /// Binds `text` from its own UTF-8 storage. Swift's implicit conversion of a `String`
  /// argument to `char *` copies the whole text first (`utf8CString`), and SQLite copies it
  /// again (`SQLITE_TRANSIENT`): for a document of megabytes, fresh pages for each copy. The
  /// byte length, not -1: a NUL inside the text must not end it early. An empty text keeps
  /// the conversion, since an empty buffer may have no address and a null pointer binds NULL.
  private func bindText(_ text: String, at index: Int32) -> Int32 {
    if !text.isEmpty,
      let rc = text.utf8.withContiguousStorageIfAvailable({ bytes in
        UnsafeRawBufferPointer(bytes).withMemoryRebound(to: CChar.self) { chars in
          sqlite3_bind_text(handle, index, chars.baseAddress, Int32(chars.count), searchlight_sqlite_transient())
        }
      })
    {
      return rc
    }
    return sqlite3_bind_text(handle, index, text, Int32(text.utf8.count), searchlight_sqlite_transient())
  }

  /// Binds a double or NULL.
  package func bind(double: Double?, at index: Int32) throws(DatabaseError) {
    let rc = double.map { sqlite3_bind_double(handle, index, $0) } ?? sqlite3_bind_null(handle, index)
    if rc != SQLITE_OK { throw connection.lastError(rc, sql: sql) }
  }

  /// Binds an integer.
  package func bind(int: Int64, at index: Int32) throws(DatabaseError) {
    let rc = sqlite3_bind_int64(handle, index, int)
    if rc != SQLITE_OK { throw connection.lastError(rc, sql: sql) }
  }

  /// Advances to the next row: true when a row is available, false when done.
  @discardableResult
  package func step() throws(DatabaseError) -> Bool {
    let rc = sqlite3_step(handle)
    switch rc {
    case SQLITE_ROW: return true
    case SQLITE_DONE:
      sqlite3_reset(handle)
      return false
    default:
      let error = connection.lastError(rc, sql: sql)
      sqlite3_reset(handle)
      throw error
    }
  }

  /// Runs the statement to completion with `values` bound.
  package func execute(_ values: [SQLValue] = []) throws(DatabaseError) {
    try bind(values)
    while try step() {}
  }

  /// Number of result columns.
  package var columnCount: Int { Int(sqlite3_column_count(handle)) }

  /// The name of result column `index`.
  package func columnName(_ index: Int) -> String {
    String(cString: sqlite3_column_name(handle, Int32(index)))
  }

  /// True when column `index` of the current row is NULL.
  package func isNull(_ index: Int) -> Bool {
    sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL
  }

  /// Column `index` as an integer (0 for NULL).
  package func int64(_ index: Int) -> Int64 { sqlite3_column_int64(handle, Int32(index)) }

  /// Column `index` as a double (0 for NULL).
  package func double(_ index: Int) -> Double { sqlite3_column_double(handle, Int32(index)) }

  /// Column `index` as text, nil for NULL.
  package func string(_ index: Int) -> String? {
    guard let text = sqlite3_column_text(handle, Int32(index)) else { return nil }
    let count = Int(sqlite3_column_bytes(handle, Int32(index)))
    return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
  }

  /// Column `index` as bytes, empty for NULL.
  package func blob(_ index: Int) -> [UInt8] {
    let count = Int(sqlite3_column_bytes(handle, Int32(index)))
    guard count > 0, let pointer = sqlite3_column_blob(handle, Int32(index)) else { return [] }
    return Array(UnsafeRawBufferPointer(start: pointer, count: count))
  }

  /// Calls `body` with column `index`'s bytes in place (no copy); empty for NULL. The bytes
  /// are valid only inside `body` (https://www.sqlite.org/c3ref/column_blob.html).
  package func withBlob<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
    try body(columnBytes(index))
  }

  /// Column `index`'s bytes in place, valid until the statement steps or resets; empty for
  /// NULL (https://www.sqlite.org/c3ref/column_blob.html).
  func columnBytes(_ index: Int) -> UnsafeRawBufferPointer {
    let pointer = sqlite3_column_blob(handle, Int32(index))
    let count = Int(sqlite3_column_bytes(handle, Int32(index)))
    return UnsafeRawBufferPointer(start: count > 0 ? pointer : nil, count: count)
  }

  /// Column `index` as a typed value.
  package func value(at index: Int) -> SQLValue {
    switch sqlite3_column_type(handle, Int32(index)) {
    case SQLITE_INTEGER: .integer(int64(index))
    case SQLITE_FLOAT: .real(double(index))
    case SQLITE_TEXT: .text(string(index) ?? "")
    case SQLITE_BLOB: .blob(blob(index))
    default: .null
    }
  }
}

@available(*, unavailable)
extension Statement: Sendable {}
