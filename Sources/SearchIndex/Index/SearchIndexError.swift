/// Why an index operation failed.
public enum SearchIndexError: Error, Sendable, CustomStringConvertible {
  /// SQLite failed (I/O, disk full, read-only file, corruption...).
  case database(DatabaseError)
  /// The file exists but is not a Searchlight index.
  case notAnIndex(path: String, reason: String)
  /// The file does not exist and the caller did not ask to create it.
  case missingIndex(path: String)
  /// The index was written by a newer, incompatible Searchlight.
  case unsupportedVersion(path: String, version: Int)
  /// `endBatch(expectedClientState:)` found a different client state; nothing was written.
  case clientStateMismatch(expected: [UInt8]?, actual: [UInt8]?)
  /// An item or a value was rejected.
  case invalidItem(id: String?, message: String)

  public var description: String {
    switch self {
    case .database(let error):
      switch error.code {
      case .full: "the disk is full (or the index reached its size limit): \(error.message)"
      case .readOnly: "the index is read-only: \(error.message)"
      case .corrupt, .notADatabase: "the index is corrupt or not a database: \(error.message)"
      default: error.description
      }
    case .notAnIndex(let path, let reason): "'\(path)' is not a Searchlight index: \(reason)"
    case .missingIndex(let path): "no index at '\(path)'; create one with `searchlight index --db \(path) FILE`"
    case .unsupportedVersion(let path, let version):
      "'\(path)' was written by a newer Searchlight (schema \(version)); upgrade to read it"
    case .clientStateMismatch(let expected, let actual):
      "client state mismatch: expected \(Self.describe(expected)), found \(Self.describe(actual)); nothing was written"
    case .invalidItem(let id, let message):
      id.map { "item '\($0)': \(message)" } ?? message
    }
  }

  private static func describe(_ state: [UInt8]?) -> String {
    guard let state else { return "none" }
    if let text = String(validating: state, as: UTF8.self), text.allSatisfy({ !$0.isNewline }) { return "\"\(text)\"" }
    return "\(state.count) bytes"
  }
}
