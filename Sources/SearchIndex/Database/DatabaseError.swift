/// A failure reported by SQLite, with the result code, SQLite's message and the statement
/// that failed.
///
/// Match it by code the way GRDB does: `catch let error as DatabaseError where error.code == .full`.
public struct DatabaseError: Error, Sendable, Hashable, CustomStringConvertible {
  /// SQLite's primary and extended result code.
  public struct Code: Sendable, Hashable, RawRepresentable {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The primary code (the low byte of an extended code).
    public var primary: Code { Code(rawValue: rawValue & 0xff) }

    public static let error = Code(rawValue: 1)
    public static let permission = Code(rawValue: 3)
    public static let abort = Code(rawValue: 4)
    public static let busy = Code(rawValue: 5)
    public static let locked = Code(rawValue: 6)
    public static let noMemory = Code(rawValue: 7)
    public static let readOnly = Code(rawValue: 8)
    public static let interrupt = Code(rawValue: 9)
    public static let ioError = Code(rawValue: 10)
    public static let corrupt = Code(rawValue: 11)
    public static let full = Code(rawValue: 13)
    public static let cantOpen = Code(rawValue: 14)
    public static let constraint = Code(rawValue: 19)
    public static let notADatabase = Code(rawValue: 26)

    static func ~= (pattern: Code, code: Code) -> Bool { pattern.primary == code.primary }
  }

  /// The result code.
  public var code: Code
  /// SQLite's own message (`sqlite3_errmsg`).
  public var message: String
  /// The SQL that failed, when there is one.
  public var sql: String?

  public init(code: Code, message: String, sql: String? = nil) {
    self.code = code
    self.message = message
    self.sql = sql
  }

  public var description: String {
    var text = "sqlite error \(code.rawValue): \(message)"
    if let sql { text += " (while running: \(sql.prefix(200)))" }
    return text
  }
}
