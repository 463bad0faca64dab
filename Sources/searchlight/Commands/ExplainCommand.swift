import QueryEngine
import SearchIndex

/// `searchlight explain`: how a query will run.
enum ExplainCommand: Command {
  static let name = "explain"
  static let abstract = "Show the typed graph of a query, the resolved dates, where each stage runs and the SQL."
  static let usage = "explain --db FILE [--now ISO8601] [--protection C,...] [--] QUERY"
  static let options: [OptionSpec] = QuerySetup.options

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    let text = try QuerySetup.queryText(arguments, command: name)
    let setup = try QuerySetup(arguments, command: name)
    do {
      let graph = try setup.executor.prepare(text, options: setup.options)
      Terminal.out(try Explainer(executor: setup.executor).explain(graph, options: setup.options) + "\n")
    } catch {
      throw queryFailure(error)
    }
    return .success
  }
}
