internal import CSQLite

/// A Swift closure installed as an SQL function; released by SQLite's destructor callback.
private final class FunctionBox {
  let body: ([SQLValue]) throws -> SQLValue
  init(_ body: @escaping ([SQLValue]) throws -> SQLValue) { self.body = body }
}

extension Connection {
  /// Installs (or replaces) the SQL function `name` on this connection.
  ///
  /// The closure runs on the thread that runs the statement; errors it throws become SQL
  /// errors. See https://www.sqlite.org/c3ref/create_function.html
  package func installFunction(
    _ name: String, argumentCount: Int32, deterministic: Bool = true,
    _ body: @escaping ([SQLValue]) throws -> SQLValue
  ) throws(DatabaseError) {
    let box = Unmanaged.passRetained(FunctionBox(body)).toOpaque()
    var flags = SQLITE_UTF8
    if deterministic { flags |= SQLITE_DETERMINISTIC }
    let rc = sqlite3_create_function_v2(
      handle, name, argumentCount, flags, box,
      { context, count, arguments in
        let box = Unmanaged<FunctionBox>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
        var values: [SQLValue] = []
        values.reserveCapacity(Int(count))
        for index in 0..<Int(count) {
          let argument = arguments![index]
          switch sqlite3_value_type(argument) {
          case SQLITE_INTEGER: values.append(.integer(sqlite3_value_int64(argument)))
          case SQLITE_FLOAT: values.append(.real(sqlite3_value_double(argument)))
          case SQLITE_TEXT:
            let text = sqlite3_value_text(argument)
            let bytes = Int(sqlite3_value_bytes(argument))
            values.append(.text(text.map { UTF8Validation.repairing(UnsafeBufferPointer(start: $0, count: bytes)) } ?? ""))
          case SQLITE_BLOB:
            let bytes = Int(sqlite3_value_bytes(argument))
            let pointer = sqlite3_value_blob(argument)
            values.append(.blob(pointer.map { Array(UnsafeRawBufferPointer(start: $0, count: bytes)) } ?? []))
          default: values.append(.null)
          }
        }
        do {
          switch try box.body(values) {
          case .null: sqlite3_result_null(context)
          case .integer(let i): sqlite3_result_int64(context, i)
          case .real(let d): sqlite3_result_double(context, d)
          case .text(let s): sqlite3_result_text(context, s, -1, searchlight_sqlite_transient())
          case .blob(let b):
            b.withUnsafeBytes { sqlite3_result_blob(context, $0.baseAddress, Int32($0.count), searchlight_sqlite_transient()) }
          }
        } catch {
          sqlite3_result_error(context, "\(error)", -1)
        }
      },
      nil, nil,
      { pointer in
        if let pointer { Unmanaged<FunctionBox>.fromOpaque(pointer).release() }
      })
    if rc != SQLITE_OK { throw lastError(rc, sql: nil) }
  }

  /// Installs a progress handler that SQLite calls every `instructions` virtual-machine steps;
  /// returning true interrupts the running statement (query cancellation).
  package func setProgressHandler(every instructions: Int32, _ shouldInterrupt: (@Sendable () -> Bool)?) {
    guard let shouldInterrupt else {
      sqlite3_progress_handler(handle, 0, nil, nil)
      progressBox = nil
      return
    }
    let box = ProgressBox(shouldInterrupt)
    progressBox = box
    sqlite3_progress_handler(handle, instructions, { pointer in
      guard let pointer else { return 0 }
      return Unmanaged<ProgressBox>.fromOpaque(pointer).takeUnretainedValue().check() ? 1 : 0
    }, Unmanaged.passUnretained(box).toOpaque())
  }
}

/// Holds the cancellation check of a progress handler for as long as it is installed.
final class ProgressBox {
  let check: @Sendable () -> Bool
  init(_ check: @escaping @Sendable () -> Bool) { self.check = check }
}
