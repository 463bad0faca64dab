/// Bad input found while reading items, with where it is: `FILE:LINE: message`.
public struct IngestError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What kind of failure, for exit codes.
  public enum Kind: Sendable, Hashable {
    /// The data is malformed or does not fit the catalogue (exit 65).
    case badData
    /// The file does not exist or cannot be read (exit 66).
    case missingInput
  }

  public var kind: Kind
  public var file: String
  /// 1-based line, nil when the error concerns the whole file.
  public var line: Int?
  public var message: String

  public init(_ kind: Kind = .badData, file: String, line: Int?, message: String) {
    self.kind = kind
    self.file = file
    self.line = line
    self.message = message
  }

  public var description: String {
    line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)"
  }
}
