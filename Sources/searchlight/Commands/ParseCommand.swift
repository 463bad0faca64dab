import QueryEngine
import SearchIndex

/// `searchlight parse`: the syntax tree of a query, without a database.
enum ParseCommand: Command {
  static let name = "parse"
  static let abstract = "Print the syntax tree of a query (syntax only, no database)."
  static let usage = "parse [--format tree|json] [--] QUERY"
  static let discussion = """
    EXAMPLES:
      searchlight parse 'title == "june*"cdw && rating > 3'
      searchlight parse --format json 'search "launch" | top 5'
    """
  static let options: [OptionSpec] = [
    OptionSpec(name: "format", kind: .value, valueName: "FORMAT", help: "tree (default) or json (nodes with UTF-8 spans)."),
  ]

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    let format = try Common.format(arguments, allowed: ["tree", "json", "table"], default: "tree", command: name)
    let text = try QuerySetup.queryText(arguments, command: name)
    let query: QuerySyntax
    do { query = try Parser.parse(SourceText(text)) } catch { throw CommandFailure(error) }
    if format == "json" {
      Terminal.out(SyntaxPrinter.json(query).compactText + "\n")
    } else {
      Terminal.out(SyntaxPrinter.tree(query) + "\n")
    }
    return .success
  }
}
