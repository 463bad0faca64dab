import Assistant
import Foundation
import QueryEngine
import SearchIndex

/// `searchlight tool-call`: runs one tool call as a model would make it.
enum ToolCallCommand: Command {
  static let name = "tool-call"
  static let abstract = "Run a tool call (Apple's FullArguments JSON, or a dsl query) and print its replies or the model's text."
  static let usage = "tool-call --db FILE [--for-model] [--now ISO8601] [--protection C,...] [--] JSON"
  static let discussion = """
    JSON is the tool call's arguments, or '-' to read them from standard input. Replies print as
    JSON Lines (the reply format of `query --format json`); with --for-model, the exact text the
    model would receive. An invalid call prints {"error":{"path","message","expected","example"}}
    (or the in-band error text with --for-model) and exits 65.

    EXAMPLE:
      searchlight tool-call --db items.db '{"query":{"type":"search","value":{"root":{"type":"allText","value":{"terms":["budget"]}},"pageSize":3}}}'
    """
  static let options: [OptionSpec] = QuerySetup.options + [
    OptionSpec(name: "for-model", kind: .flag, help: "Print the text the model reads instead of JSON replies."),
    OptionSpec(name: "show-query", kind: .flag, help: "Print the query the call became on stderr."),
  ]

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    var text = try QuerySetup.queryText(arguments, command: name)
    if text == "-" { text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) }
    let setup = try QuerySetup(arguments, command: name)
    let tool = SearchTool(executor: setup.executor, options: setup.options)
    let result: SearchTool.Result
    do { result = try tool.call(text) } catch { throw queryFailure(error) }
    if arguments.has("show-query"), let query = result.query { Terminal.err("query: \(query)\n") }
    if arguments.has("for-model") {
      Terminal.out(result.text + "\n")
      return result.isError ? .dataError : .success
    }
    if let error = result.error {
      Terminal.out(error.jsonValue.compactText + "\n")
      return .dataError
    }
    if result.replies.isEmpty {
      // schema and help answers are text.
      Terminal.out(JSONValue.object(JSONObject([("text", .string(result.text))])).compactText + "\n")
      return .success
    }
    for reply in result.replies { Terminal.out(reply.jsonValue().compactText + "\n") }
    return .success
  }
}
