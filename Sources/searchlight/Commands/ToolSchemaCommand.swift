import Assistant
import QueryEngine
import SearchIndex

/// `searchlight tool-schema`: the tool definition handed to a model.
enum ToolSchemaCommand: Command {
  static let name = "tool-schema"
  static let abstract = "Print the search tool's description and JSON schema for a model (OpenAI function-calling form, strict)."
  static let usage = "tool-schema --db FILE [--guide focused|complete|profile:FEATURE,...] [--stages DIR] [--tokens]"
  static let discussion = """
    Guidance levels: focused (text, dates, page size; fits a 4K-token context), complete
    (everything), or a profile of features: textMatch, similarityMatch, numericMatch, dates,
    people, contentType, pipeline, ranking, attributes=A|B|..., stages=S|T|... (custom stages).

    EXAMPLE:
      searchlight tool-schema --db items.db --guide profile:textMatch,dates,people,stages=nearby
    """
  static let options: [OptionSpec] = QuerySetup.options + [
    OptionSpec(name: "guide", kind: .value, valueName: "LEVEL", help: "focused (default), complete or profile:..."),
    OptionSpec(name: "tokens", kind: .flag, help: "Print the estimated size in tokens (compact characters / 4) on stderr."),
  ]

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    let guidance: ToolGuidance
    do { guidance = try ToolGuidance(parsing: arguments.value("guide") ?? "focused") } catch {
      throw UsageError(message: error.message, command: name)
    }
    let setup = try QuerySetup(arguments, command: name)
    let tool = try ToolSchemaGenerator(index: setup.index, registry: setup.registry, scope: setup.options.scope).tool(guidance)
    Terminal.out(tool.compactText + "\n")
    if arguments.has("tokens") { Terminal.err("about \(ToolSchemaGenerator.estimatedTokens(tool)) tokens\n") }
    return .success
  }
}
