import SearchIndex

/// One `searchlight` subcommand: its name, help and options, and what it does.
protocol Command: Sendable {
  /// The word after `searchlight`.
  static var name: String { get }
  /// One line for the command list.
  static var abstract: String { get }
  /// The usage line(s) after `searchlight`.
  static var usage: String { get }
  /// Extra help text (examples, notes).
  static var discussion: String { get }
  /// Options the command accepts (`--help` is implicit).
  static var options: [OptionSpec] { get }
  /// Runs the command; returns the exit status.
  static func run(_ arguments: ParsedArguments) throws -> ExitCode
}

extension Command {
  static var discussion: String { "" }

  /// The help text in swift-argument-parser's shape.
  static var helpText: String {
    var text = "OVERVIEW: \(abstract)\n\nUSAGE: searchlight \(usage)\n"
    if !discussion.isEmpty { text += "\n\(discussion)\n" }
    if !options.isEmpty {
      text += "\nOPTIONS:\n"
      for option in options {
        let left: String = switch option.kind {
        case .flag: "--\(option.name)"
        case .value: "--\(option.name) <\(option.valueName)>"
        case .values: "--\(option.name) <\(option.valueName)> ..."
        }
        text += "  " + left.padding(toLength: max(left.count + 2, 28), withPad: " ", startingAt: 0) + option.help + "\n"
      }
    }
    text += "  --help                      Show help for this command.\n"
    return text
  }
}

/// A failure that ends a command with a specific exit status and message.
struct CommandFailure: Error {
  var code: ExitCode
  var message: String
  /// `FILE:LINE` or `query:LINE:COLUMN`, shown as ` --> location`.
  var location: String?
  /// Source line and caret lines, already rendered.
  var excerpt: [String] = []
  /// `help:` / `note:` lines.
  var hints: [String] = []
  /// For `--format json`: structured fields.
  var line: Int?
  var column: Int?
  var file: String?
  /// The diagnostic identifier (`name.unknown-attribute`) for query errors.
  var diagnosticID: String?
  /// Further diagnostics, already rendered, shown after the first.
  var others: [String] = []

  init(_ code: ExitCode, _ message: String, location: String? = nil) {
    self.code = code
    self.message = message
    self.location = location
  }
}

extension CommandFailure {
  /// Maps an index error to the exit status of DESIGN §6.
  init(_ error: SearchIndexError) {
    switch error {
    case .missingIndex: self.init(.noInput, error.description)
    case .invalidItem, .clientStateMismatch: self.init(.dataError, error.description)
    case .database, .notAnIndex, .unsupportedVersion: self.init(.ioError, error.description)
    }
  }

  /// Maps an ingest error: bad data exits 65, a missing input 66.
  init(_ error: IngestError) {
    self.init(error.kind == .missingInput ? .noInput : .dataError, error.description,
              location: error.line.map { "\(error.file):\($0)" } ?? error.file)
    self.file = error.file
    self.line = error.line
  }
}
