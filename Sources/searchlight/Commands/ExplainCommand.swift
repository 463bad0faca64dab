import Assistant
import QueryEngine
import SearchIndex

/// `searchlight explain`: how a query will run.
enum ExplainCommand: Command {
  static let name = "explain"
  static let abstract = "Show the typed graph of a query, the resolved dates, where each stage runs and the SQL."
  static let usage = "explain --db FILE [--json] [--now ISO8601] [--protection C,...] [--] QUERY"
  static let discussion = """
    With --json, prints the query as a tool call in Apple's FullArguments shape (what a model
    would send); decoding it gives the same graph. Queries without an exact structured
    equivalent print as {"query":{"type":"dsl",...}} with the reason on stderr.
    """
  static let options: [OptionSpec] = QuerySetup.options + [
    OptionSpec(name: "json", kind: .flag, help: "Print the query as a tool call (planner JSON)."),
  ]

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    let text = try QuerySetup.queryText(arguments, command: name)
    let setup = try QuerySetup(arguments, command: name)
    do {
      let graph = try setup.executor.prepare(text, options: setup.options)
      if arguments.has("json") {
        let encoded = try ToolCallEncoder().encode(text, verifyingWith: setup.executor, options: setup.options)
        if let reason = encoded.reason { Terminal.err("note: printed as a dsl query: \(reason)\n") }
        Terminal.out(encoded.json.compactText + "\n")
        return .success
      }
      Terminal.out(try Explainer(executor: setup.executor).explain(graph, options: setup.options) + "\n")
    } catch {
      throw queryFailure(error)
    }
    return .success
  }
}
