import SearchIndex

/// How one command-line option is written.
struct OptionSpec {
  enum Kind {
    /// `--flag`
    case flag
    /// `--name VALUE` or `--name=VALUE`
    case value
    /// `--name V1 V2 ...` (values up to the next option) or repeated
    case values
  }

  var name: String
  var kind: Kind
  var valueName: String = "VALUE"
  var help: String
}

/// The parsed command line of one command: options by name and positional arguments.
struct ParsedArguments {
  var values: [String: [String]] = [:]
  var flags: Set<String> = []
  var positionals: [String] = []

  func value(_ name: String) -> String? { values[name]?.last }
  func all(_ name: String) -> [String] { values[name] ?? [] }
  func has(_ name: String) -> Bool { flags.contains(name) || values[name] != nil }
}

/// A usage error, reported the way swift-argument-parser does and exiting 64.
struct UsageError: Error {
  var message: String
  var command: String
}

enum ArgumentParser {
  /// Parses `arguments` against `options`; `--` ends option parsing, so a query may start
  /// with `-`.
  static func parse(_ arguments: [String], options: [OptionSpec], command: String) throws(UsageError) -> ParsedArguments {
    var parsed = ParsedArguments()
    var index = 0
    var optionsEnded = false
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if optionsEnded || !argument.hasPrefix("--") || argument == "-" {
        if !optionsEnded, argument.hasPrefix("-"), argument.count > 1, argument != "-", !(argument.dropFirst().first?.isNumber ?? false) {
          throw UsageError(message: "unknown option '\(argument)'", command: command)
        }
        parsed.positionals.append(argument)
        continue
      }
      if argument == "--" { optionsEnded = true; continue }
      var name = String(argument.dropFirst(2))
      var inlineValue: String?
      if let equals = name.firstIndex(of: "=") {
        inlineValue = String(name[name.index(after: equals)...])
        name = String(name[..<equals])
      }
      guard let spec = options.first(where: { $0.name == name }) else {
        var message = "unknown option '--\(name)'"
        if let suggestion = closestOption(name, options) { message += "; did you mean '--\(suggestion)'?" }
        throw UsageError(message: message, command: command)
      }
      switch spec.kind {
      case .flag:
        if inlineValue != nil { throw UsageError(message: "option '--\(name)' takes no value", command: command) }
        parsed.flags.insert(name)
      case .value:
        if let inlineValue {
          parsed.values[name, default: []].append(inlineValue)
        } else {
          guard index < arguments.count else {
            throw UsageError(message: "missing value for '--\(name) <\(spec.valueName)>'", command: command)
          }
          parsed.values[name, default: []].append(arguments[index])
          index += 1
        }
      case .values:
        var taken = 0
        if let inlineValue {
          parsed.values[name, default: []].append(contentsOf: inlineValue.split(separator: ",").map(String.init))
          taken = 1
        }
        while index < arguments.count, !arguments[index].hasPrefix("--") {
          parsed.values[name, default: []].append(arguments[index])
          index += 1
          taken += 1
        }
        if taken == 0 { throw UsageError(message: "missing value for '--\(name) <\(spec.valueName)>'", command: command) }
      }
    }
    return parsed
  }

  private static func closestOption(_ name: String, _ options: [OptionSpec]) -> String? {
    closestMatch(to: name, in: options.map(\.name))
  }
}
