import QueryEngine
import SearchIndex
import Stages

/// `searchlight stages`: every stage with its signature, parameters and description.
enum StagesCommand: Command {
  static let name = "stages"
  static let abstract = "List every stage, built-in and custom, with its signature, parameters and description."
  static let usage = "stages [--stages DIR] [--db FILE] [--format table|json] [NAME]"
  static let options: [OptionSpec] = [
    OptionSpec(name: "format", kind: .value, valueName: "FORMAT", help: "table (default) or json."),
    QuerySetup.stagesOption,
    OptionSpec(name: "db", kind: .value, valueName: "FILE", help: "Check .stage files against this index's attributes."),
  ]

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    let format = try Common.format(arguments, allowed: ["table", "json"], default: "table", command: name)
    var catalog: AttributeCatalog?
    if arguments.has("db") {
      do { catalog = try Common.openIndex(arguments, command: name, create: false, readOnly: true).catalog() } catch let error as SearchIndexError {
        throw CommandFailure(error)
      }
    }
    let registry = try QuerySetup.registry(arguments, catalog: catalog, command: name)
    var definitions = registry.all
    if let wanted = arguments.positionals.first {
      guard let definition = registry.definition(named: wanted) else {
        var message = "unknown stage '\(wanted)'"
        if let suggestion = closestMatch(to: wanted, in: registry.names) { message += "; did you mean '\(suggestion)'?" }
        throw CommandFailure(.dataError, message)
      }
      definitions = [definition]
    }
    if format == "json" {
      Terminal.out(JSONValue.array(definitions.map { $0.descriptor.jsonValue }).compactText + "\n")
      return .success
    }
    var text = ""
    for definition in definitions {
      let d = definition.descriptor
      text += "\(d.name)\(d.isCustom ? " (custom)" : "")    \(d.signatureText)\n  \(d.abstract)\n  usage: \(d.usage)\n"
      for parameter in d.parameters {
        text += "    \(parameter.name): \(parameter.kind.rawValue)"
        if let value = parameter.defaultValue { text += " = \(value.displayText)" }
        if let range = parameter.range { text += " in \(StageBindingContext.format(range.lowerBound))...\(StageBindingContext.format(range.upperBound))" }
        text += "  \(parameter.description)\n"
      }
      for example in d.examples.prefix(2) { text += "  e.g. \(example)\n" }
      text += "\n"
    }
    Terminal.out(text)
    return .success
  }
}

extension StageDescriptor {
  /// The stage as JSON for `stages --format json` and schemas.
  var jsonValue: JSONValue {
    .object(JSONObject([
      ("name", .string(name)), ("description", .string(abstract)), ("usage", .string(usage)),
      ("custom", .bool(isCustom)),
      ("signatures", .array(signatures.map { .object(JSONObject([("input", .string($0.input.rawValue)), ("output", .string($0.output.rawValue))])) })),
      ("parameters", .array(parameters.map { parameter in
        var object = JSONObject([("name", .string(parameter.name)), ("type", .string(parameter.kind.rawValue)),
                                 ("description", .string(parameter.description)), ("required", .bool(parameter.isRequired))])
        if let value = parameter.defaultValue { object["default"] = value.jsonValue }
        if let range = parameter.range { object["minimum"] = .number(range.lowerBound); object["maximum"] = .number(range.upperBound) }
        if let choices = parameter.choices { object["choices"] = .array(choices.map(JSONValue.string)) }
        return .object(object)
      })),
      ("examples", .array(examples.map(JSONValue.string))),
    ]))
  }
}
