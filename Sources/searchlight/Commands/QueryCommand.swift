import Foundation
import QueryEngine
import SearchIndex
import Stages

/// `searchlight query`: runs a query (a predicate or a pipeline) and prints its replies.
enum QueryCommand: Command {
  static let name = "query"
  static let abstract = "Run a query: a Spotlight predicate or a pipeline of stages."
  static let usage = "query --db FILE [--format table|json|csv] [--fetch A,...] [--limit N] [--now ISO8601] [--protection C,...] [--why] [--] QUERY"
  static let discussion = """
    QUERY is an Apple query string (title == "june*"cd && rating > 3) or a pipeline
    (search "budget" | top 5 | table title, contentModificationDate). See Grammar/ and the README.
    JSON output is one reply per line: {"queryToken","label","content"}; item replies stream
    in batches.

    A table shows the first 25 items or rows of each reply (or --limit N) and how many
    more there are; only those are read, so a search that matches half the index prints at
    once. --limit cuts JSON and CSV replies too; without it they hold every item.

    A text search shown as a table gets a snippet column: the item's text around the
    searched words, marked [like this] ('| table title, snippet' asks for it anywhere).
    Identical documents (same title and text) appear once: 'ID (+N identical)' in tables,
    "identical": N on the item in JSON; CSV keeps every row.

    EXAMPLES:
      searchlight query --db items.db 'keywords == "waterfall"c && rating >= 4.5'
      searchlight query --db items.db 'search domainIdentifier == "trails" | group by stateOrProvince | count'
      searchlight query --db items.db --format json -- '-3 < rating'
    """
  static let options: [OptionSpec] = QuerySetup.options + [
    OptionSpec(name: "format", kind: .value, valueName: "FORMAT", help: "table (default), json (JSON Lines replies) or csv."),
    OptionSpec(name: "fetch", kind: .value, valueName: "A,...", help: "Attributes to show or include for items (comma-separated)."),
    OptionSpec(name: "limit", kind: .value, valueName: "N", help: "At most N items or rows per reply."),
    OptionSpec(name: "why", kind: .flag, help: "Show the terms of each score."),
    OptionSpec(name: "timing", kind: .flag, help: "Print the time to the first reply and in total, and the time of each phase of the process, on stderr."),
  ]

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    let format = try Common.format(arguments, allowed: ["table", "json", "csv"], default: "table", command: name)
    let text = try QuerySetup.queryText(arguments, command: name)
    var renderer = ReplyRenderer(format: ReplyRenderer.Format(rawValue: format)!)
    renderer.color = format == "table" && Terminal.useColor
    renderer.why = arguments.has("why")
    renderer.collapsesIdentical = true
    if arguments.has("fetch") {
      renderer.fetch = arguments.all("fetch").flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
    }
    if let limit = arguments.value("limit") {
      guard let n = Int(limit), n >= 0 else { throw UsageError(message: "--limit needs a whole number, got '\(limit)'", command: name) }
      renderer.limit = n
    }
    var setup: QuerySetup
    do { setup = try QuerySetup(arguments, command: name) } catch let error as UsageError { throw error }
    setup.options = renderer.readingWhatItShows(setup.options)
    let start = Date()
    var first: Date?
    var assembler = ReplyAssembler()
    var empty = SpellingNotes.EmptyReplies()
    var searchedWords: [String] = []
    let timing = PhaseTiming.shared
    do {
      let executor = setup.executor
      let (graph, searched) = try timing.measure(.plan) { try executor.prepareTyped(text, options: setup.options) }
      if let searched { Terminal.noteBareWords(searched) }
      searchedWords = graph.searchedWords
      if format == "table" { renderer.snippet = Self.snippet(for: searched ?? text) }
      try timing.measure(.execute) {
        try executor.execute(graph, options: setup.options) { reply in
          if first == nil { first = Date() }
          empty.add(reply)
          timing.measure(.render) {
            // In tables, batches of one reply print as one; JSON streams every batch.
            if format == "json" {
              Terminal.out(renderer.render(reply))
            } else if let whole = assembler.add(reply) {
              Terminal.out(renderer.render(whole))
            }
          }
        }
      }
    } catch {
      throw queryFailure(error)
    }
    if empty.foundNothing {
      for note in SpellingNotes.notes(for: searchedWords, index: setup.executor.index, scope: setup.options.scope) { Terminal.note(note) }
    }
    if arguments.has("timing") {
      let total = Date().timeIntervalSince(start) * 1000
      let firstReply = (first ?? Date()).timeIntervalSince(start) * 1000
      Terminal.err(String(format: "time to first reply: %.1f ms, total: %.1f ms\n", firstReply, total))
      Terminal.err(timing.summary + "\n")
    }
    return .success
  }

  /// The snippet of a text search's words (`search "tmux"`, bare words, `* == "tmux*"`), nil
  /// for a query that searches no text: tables of its items show a snippet column by default.
  /// Comparisons with one attribute (`title == "Mist Trail"`) are filters, not text searches.
  static func snippet(for text: String) -> Snippet? {
    let terms = Snippet.terms(in: SourceText(text), before: text.utf8.count) { _ in false }
    return terms.isEmpty ? nil : Snippet(terms: terms)
  }
}
