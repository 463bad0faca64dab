/// The REPL's dot-commands: what `.help` lists, what completion offers after a `.`, and what
/// `ReplInput` recognises.
enum DotCommand: String, CaseIterable, Sendable {
  case help, stages, attributes, explain, json, parse, why, format, timer, now, tz, limit, plan, ask, read, quit

  /// What follows the command name.
  enum Argument: Equatable, Sendable {
    /// Nothing.
    case none
    /// An optional or required word (a stage name, a format, a zone, a file).
    case word
    /// A query, which may continue over several lines like a query at the prompt.
    case query
    /// A plain-language question (the rest of the line).
    case question
  }

  /// `.exit` is `.quit`, as in sqlite3.
  static let aliases: [String: DotCommand] = ["exit": .quit]

  /// The command for a name written after the dot.
  static func named(_ name: String) -> DotCommand? {
    DotCommand(rawValue: name) ?? aliases[name]
  }

  /// Every name completion and suggestions know, with the dot.
  static var allNames: [String] {
    (allCases.map(\.rawValue) + aliases.keys.sorted()).map { "." + $0 }
  }

  var argument: Argument {
    switch self {
    case .stages, .attributes, .why, .quit: .none
    case .help, .format, .timer, .now, .tz, .limit, .read: .word
    case .explain, .json, .parse: .query
    case .plan, .ask: .question
    }
  }

  /// The command as `.help` shows it.
  var usage: String {
    switch self {
    case .help: ".help [STAGE]"
    case .stages: ".stages"
    case .attributes: ".attributes"
    case .explain: ".explain QUERY"
    case .json: ".json QUERY"
    case .parse: ".parse QUERY"
    case .why: ".why"
    case .format: ".format table|json|csv"
    case .timer: ".timer on|off"
    case .now: ".now [ISO8601|system]"
    case .tz: ".tz [ZONE]"
    case .limit: ".limit [N|off]"
    case .plan: ".plan QUESTION"
    case .ask: ".ask QUESTION"
    case .read: ".read FILE"
    case .quit: ".quit"
    }
  }

  /// One line for `.help`.
  var summary: String {
    switch self {
    case .help: "List the commands, or describe a stage"
    case .stages: "List the stages with their signatures"
    case .attributes: "The index's attributes with their types and item counts"
    case .explain: "Show the typed graph, the resolved dates, where each stage runs and the SQL"
    case .json: "Show a query as a tool call, in the planner's JSON form"
    case .parse: "Show the syntax tree of a query"
    case .why: "Show the score terms of the last result"
    case .format: "Print replies as aligned tables, JSON Lines or CSV"
    case .timer: "Print how long each query took"
    case .now: "Show or fix the clock that $time values use"
    case .tz: "Show or set the time zone where days begin"
    case .limit: "Show at most N items or rows per reply"
    case .plan: "Show the graph the built-in planner makes of a question"
    case .ask: "Answer a question from the index, with sources"
    case .read: "Run the queries and commands in a file"
    case .quit: "Leave the REPL (also Ctrl-D)"
    }
  }

  /// The words completion offers for the argument.
  var argumentChoices: [String] {
    switch self {
    case .format: ["csv", "json", "table"]
    case .timer: ["off", "on"]
    case .now: ["system"]
    case .limit: ["off"]
    default: []
    }
  }
}
