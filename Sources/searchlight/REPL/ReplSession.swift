import Foundation
import QueryEngine
import SearchIndex

/// Where an input came from, so errors point at it.
struct InputOrigin {
  /// Shown after ` --> `: `query` at the prompt, `stdin` for a script, or a `.read` file.
  var name: String
  /// The line of the script the input starts on (1 at the prompt).
  var line = 1
  /// At the prompt: the width of the prompt, so a caret lines up under what was typed.
  var promptWidth: Int?
}

/// The state of one REPL session and what each input does: queries run against the index, and
/// dot-commands change settings or inspect queries. Output goes to standard output, errors to
/// standard error; the line editor and the script reader both feed `run(_:origin:)`.
final class ReplSession {
  private let setup: QuerySetup
  private let assistant: any ReplAssistant
  /// True at a terminal: errors point under the prompt line, colours when allowed.
  let interactive: Bool
  private let color: Bool

  var format: ReplyRenderer.Format
  var limit: Int?
  var timer = false
  /// The clock `$time` values use; nil follows the system clock.
  var fixedNow: Date?
  var timeZone: TimeZone
  /// The scored replies of the last query that ran, for `.why` (only those: a reply of a
  /// million items printed as JSON is not kept), and whether any query ran yet.
  private var lastScoredReplies: [Reply] = []
  private var hasRunAQuery = false
  /// Commands that failed so far (a script exits 65 when any did).
  private(set) var failures = 0
  /// Set by `.quit`.
  private(set) var finished = false
  private var readDepth = 0

  /// How deeply `.read` files may read other files.
  static let maximumReadDepth = 16

  /// `--stages` and `--index` as given, so `.help STAGE` finds the same custom stages.
  private let stageArguments: ParsedArguments

  init(setup: QuerySetup, arguments: ParsedArguments, interactive: Bool, format: ReplyRenderer.Format = .table,
       limit: Int? = nil, assistant: any ReplAssistant = ReplAssistantProvider.make()) {
    self.setup = setup
    var stageArguments = ParsedArguments()
    stageArguments.values["stages"] = arguments.values["stages"]
    stageArguments.values["index"] = arguments.values["index"]
    stageArguments.values["db"] = [setup.index.path]
    self.stageArguments = stageArguments
    self.interactive = interactive
    self.color = interactive && Terminal.useColor
    self.format = format
    self.limit = limit
    self.assistant = assistant
    self.timeZone = setup.options.clock.timeZone
  }

  /// Fixes the clock (from `--now` or SEARCHLIGHT_NOW); without it the clock follows the system.
  func fixClock(_ now: Date?) { fixedNow = now }

  // MARK: Inputs

  /// Runs every input in a script or `.read` file: lines are joined into inputs by the
  /// continuation rules, and an unfinished input at the end runs as it is.
  func runScript(name: String, nextLine: () -> String?) {
    var assembler = LineAssembler()
    var lineNumber = 0
    var firstLine = 1
    // At the prompt, Ctrl-C during `.read FILE` also stops the rest of the file.
    let interrupts = InterruptMonitor.shared.count
    while !finished, InterruptMonitor.shared.count == interrupts, let line = nextLine() {
      lineNumber += 1
      if assembler.isEmpty { firstLine = lineNumber }
      if let input = assembler.add(line) { run(input, origin: InputOrigin(name: name, line: firstLine)) }
    }
    if !finished, InterruptMonitor.shared.count == interrupts, let rest = assembler.flush() {
      run(rest, origin: InputOrigin(name: name, line: firstLine))
    }
  }

  /// Runs one complete input; false when it failed (the error has been printed).
  @discardableResult
  func run(_ input: String, origin: InputOrigin) -> Bool {
    do {
      switch ReplInput(input) {
      case .empty: return true
      case .query(let text): try runQuery(text, column: 0, origin: origin)
      case .command(let command, let argument, let column): try runCommand(command, argument, column: column, origin: origin)
      case .unknownCommand(let name):
        var message = "unknown command '.\(name)'"
        if let suggestion = closestMatch(to: "." + name, in: DotCommand.allNames) { message += "; did you mean '\(suggestion)'?" }
        var failure = CommandFailure(.usage, message)
        failure.hints = ["help: '.help' lists the commands"]
        throw failure
      }
      return true
    } catch {
      failures += 1
      report(error, input: input, origin: origin)
      return false
    }
  }

  // MARK: Queries

  /// The options for one command: the session's clock and zone, and a fresh cancellation flag.
  private func currentOptions() -> QueryOptions {
    var options = setup.options
    let now = fixedNow ?? Date()
    options.clock = QueryClock(now: now, timeZone: timeZone)
    options.cancellation = CancellationFlag()
    return options
  }

  /// The query as the engine sees it: placed at its line and column in the input's origin, so
  /// every diagnostic points where the query was written.
  private func source(_ query: String, column: Int, origin: InputOrigin) -> String {
    String(repeating: "\n", count: max(0, origin.line - 1)) + String(repeating: " ", count: column) + query
  }

  private func runQuery(_ query: String, column: Int, origin: InputOrigin) throws {
    let start = Date()
    let executor = setup.executor
    var renderer = makeRenderer()
    // Only the items shown are read (`.why` shows the same ones), as in `query`.
    let options = renderer.readingWhatItShows(currentOptions())
    var assembler = ReplyAssembler()
    var scored: [Reply] = []
    var empty = SpellingNotes.EmptyReplies()
    var searchedWords: [String] = []
    try InterruptMonitor.shared.running(options.cancellation) {
      let (graph, searched) = try executor.prepareTyped(source(query, column: column, origin: origin), options: options, sourceName: origin.name)
      if let searched { Terminal.noteBareWords(searched) }
      searchedWords = graph.searchedWords
      // As `query` shows them: a text search's tables get a snippet column.
      if renderer.format == .table { renderer.snippet = QueryCommand.snippet(for: searched ?? query) }
      try executor.execute(graph, options: options) { reply in
        empty.add(reply)
        // Scored replies come whole (only replies of items stream in batches).
        if case .scoredItems = reply.content { scored.append(reply) }
        if renderer.format == .json {
          Terminal.out(renderer.render(reply))
        } else if let whole = assembler.add(reply) {
          Terminal.out(renderer.render(whole))
        }
      }
    }
    lastScoredReplies = scored
    hasRunAQuery = true
    if empty.foundNothing {
      for note in SpellingNotes.notes(for: searchedWords, index: executor.index, scope: options.scope) { Terminal.note(note) }
    }
    if timer { Terminal.out(String(format: "Run time: %.1f ms\n", Date().timeIntervalSince(start) * 1000)) }
  }

  private func makeRenderer(why: Bool = false) -> ReplyRenderer {
    var renderer = ReplyRenderer(format: format)
    // Tables show a screenful by default, with "… N more" under them.
    renderer.limit = limit ?? (format == .table ? ReplyRenderer.defaultTableLimit : nil)
    renderer.color = color && format == .table
    renderer.why = why
    // Identical documents appear once, as in `query`'s tables and JSON.
    renderer.collapsesIdentical = true
    return renderer
  }

  // MARK: Dot-commands

  private func runCommand(_ command: DotCommand, _ argument: String, column: Int, origin: InputOrigin) throws {
    switch command.argument {
    case .none:
      guard argument.isEmpty else { throw usage(command, "'.\(command.rawValue)' takes no argument") }
    case .query, .question:
      guard !argument.isEmpty else { throw usage(command, "missing \(command.argument == .query ? "QUERY" : "QUESTION")") }
    case .word:
      guard !argument.contains(where: \.isWhitespace) || command == .read else {
        throw usage(command, "'.\(command.rawValue)' takes one word")
      }
    }
    switch command {
    case .help: try help(argument)
    case .stages: stages()
    case .attributes: try attributes()
    case .explain:
      let options = currentOptions()
      let executor = setup.executor
      try InterruptMonitor.shared.running(options.cancellation) {
        let graph = try executor.prepare(source(argument, column: column, origin: origin), options: options, sourceName: origin.name)
        Terminal.out(try Explainer(executor: executor).explain(graph, options: options) + "\n")
      }
    case .json:
      // Checked where it was typed first, so errors point into the input.
      let context = context()
      _ = try context.executor.prepare(source(argument, column: column, origin: origin), options: context.options, sourceName: origin.name)
      let (json, note) = try assistant.plannerJSON(for: argument, context: context)
      if let note { Terminal.err("note: \(note)\n") }
      Terminal.out(json + "\n")
    case .parse:
      let syntax = try Parser.parse(SourceText(source(argument, column: column, origin: origin), name: origin.name))
      Terminal.out((format == .json ? SyntaxPrinter.json(syntax).compactText : SyntaxPrinter.tree(syntax)) + "\n")
    case .why: try why()
    case .format:
      guard !argument.isEmpty else { Terminal.out("format: \(format.rawValue)\n"); return }
      guard let chosen = ReplyRenderer.Format(rawValue: argument) else {
        throw usage(command, "unknown format '\(argument)'; use one of table, json, csv")
      }
      format = chosen
    case .timer:
      switch argument {
      case "": Terminal.out("timer: \(timer ? "on" : "off")\n")
      case "on": timer = true
      case "off": timer = false
      default: throw usage(command, "'.timer' takes on or off, got '\(argument)'")
      }
    case .now: try now(argument)
    case .tz: try tz(argument)
    case .limit:
      switch argument {
      case "": Terminal.out("limit: \(limit.map(String.init) ?? "off")\n")
      case "off": limit = nil
      default:
        guard let n = Int(argument), n >= 0 else { throw usage(command, "'.limit' needs a whole number or off, got '\(argument)'") }
        limit = n
      }
    case .plan:
      Terminal.out(try assistant.plan(argument, context: context()) + "\n")
    case .ask:
      let context = context()
      try InterruptMonitor.shared.running(context.options.cancellation) {
        try assistant.ask(argument, context: context) { Terminal.out(VisibleText.visible($0)) }
      }
    case .read: try read(argument)
    case .quit: finished = true
    }
  }

  private func context() -> ReplQueryContext {
    ReplQueryContext(executor: setup.executor, options: currentOptions())
  }

  private func usage(_ command: DotCommand, _ message: String) -> CommandFailure {
    var failure = CommandFailure(.usage, message)
    failure.hints = ["help: \(command.usage)"]
    return failure
  }

  private func help(_ argument: String) throws {
    if argument.isEmpty {
      let width = DotCommand.allCases.map(\.usage.count).max() ?? 0
      var text = """
        Type a query (a predicate or a pipeline) and press Return. A line that ends in '|', or
        leaves a string or bracket open, continues on the next line. Tab completes stages,
        attributes, $time functions and commands; Ctrl-C cancels a running query; Ctrl-D leaves.

        """
      for command in DotCommand.allCases {
        text += "  " + command.usage.padding(toLength: width + 2, withPad: " ", startingAt: 0) + command.summary + "\n"
      }
      text += "\nSee '.help STAGE' for a stage, and '.stages' for all of them.\n"
      Terminal.out(text)
      return
    }
    if argument.hasPrefix("."), let command = DotCommand.named(String(argument.dropFirst())) {
      Terminal.out("\(command.usage)\n  \(command.summary)\n")
      return
    }
    // The same description as `searchlight stages NAME`, custom stages included.
    var arguments = stageArguments
    arguments.positionals = [argument]
    _ = try StagesCommand.run(arguments)
  }

  private func stages() {
    let definitions = setup.registry.all
    let width = definitions.map(\.descriptor.name.count).max() ?? 0
    let pad = String(repeating: " ", count: width + 4)
    var text = ""
    for definition in definitions {
      let d = definition.descriptor
      text += "  " + d.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + d.abstract + (d.isCustom ? " (custom)" : "") + "\n"
      text += pad + d.signatureText + "\n"
    }
    text += "\nSee '.help STAGE' for a stage's parameters and examples.\n"
    Terminal.out(text)
  }

  private func attributes() throws {
    let statistics: IndexStatistics
    do { statistics = try setup.index.statistics(scope: currentOptions().scope) } catch { throw CommandFailure(error) }
    let nameWidth = max(4, statistics.attributes.map(\.name.count).max() ?? 0)
    let typeWidth = max(4, statistics.attributes.map(\.type.description.count).max() ?? 0)
    var text = "  " + "name".padding(toLength: nameWidth + 2, withPad: " ", startingAt: 0)
      + "type".padding(toLength: typeWidth + 2, withPad: " ", startingAt: 0) + "items\n"
    text += "  " + String(repeating: "-", count: nameWidth) + "  " + String(repeating: "-", count: typeWidth) + "  -----\n"
    for attribute in statistics.attributes {
      text += "  " + attribute.name.padding(toLength: nameWidth + 2, withPad: " ", startingAt: 0)
        + attribute.type.description.padding(toLength: typeWidth + 2, withPad: " ", startingAt: 0)
        + String(attribute.count) + (attribute.isCustom ? "  (custom)" : "") + "\n"
    }
    text += "\(statistics.attributes.count) attributes over \(statistics.items) items\n"
    Terminal.out(text)
  }

  private func why() throws {
    let scored = lastScoredReplies
    guard !scored.isEmpty else {
      var failure = CommandFailure(.usage, hasRunAQuery ? "the last result has no scores" : "no result yet: run a query first")
      failure.hints = ["help: rank with a 'score' stage, e.g. search \"launch\" | score 0.7 * relevance + 0.3 * recency(contentModificationDate, 30d)"]
      throw failure
    }
    if format == .json {
      let renderer = makeRenderer(why: true)
      for reply in scored { Terminal.out(renderer.render(reply)) }
      return
    }
    // Each item's score, then one line per term of the score expression.
    let (bold, dim, reset) = color ? ("\u{1B}[1m", "\u{1B}[2m", "\u{1B}[0m") : ("", "", "")
    let width = Terminal.width
    func cut(_ line: String) -> String { line.count <= width ? line : String(line.prefix(max(1, width - 1))) + "…" }
    var text = ""
    for reply in scored {
      text += "\(bold)\(reply.label)\(reset) \(dim)[why · \(reply.queryToken)]\(reset)\n"
      let items = reply.content.resultItems
      let shown = items.prefix(limit ?? ReplyRenderer.defaultTableLimit)
      for item in shown {
        text += cut("  \(String(format: "%.3f", item.score ?? 0))  \(item.id)  \(item.item.attributeSet.title ?? "")") + "\n"
        for term in item.scoreTerms { text += cut("         \(term.name) = \(String(format: "%.3f", term.value))") + "\n" }
      }
      if items.count > shown.count { text += "  \(dim)… \(items.count - shown.count) more\(reset)\n" }
    }
    Terminal.out(text)
  }

  private func now(_ argument: String) throws {
    switch argument {
    case "":
      let now = fixedNow ?? Date()
      Terminal.out("now: \(ISO8601.format(now, in: timeZone)) (\(fixedNow == nil ? "system clock" : "fixed")), TZ \(timeZone.identifier)\n")
    case "system":
      fixedNow = nil
    default:
      guard let date = ISO8601.parse(argument, defaultZone: timeZone) else {
        throw usage(.now, "'\(argument)' is not an ISO-8601 date (e.g. 2026-11-29T12:00:00Z)")
      }
      fixedNow = date
    }
  }

  private func tz(_ argument: String) throws {
    guard !argument.isEmpty else { Terminal.out("TZ \(timeZone.identifier)\n"); return }
    guard let zone = TimeZone(identifier: argument) else {
      var message = "unknown time zone '\(argument)'"
      if let suggestion = closestMatch(to: argument, in: TimeZone.knownTimeZoneIdentifiers) { message += "; did you mean '\(suggestion)'?" }
      throw CommandFailure(.usage, message)
    }
    timeZone = zone
  }

  private func read(_ path: String) throws {
    guard readDepth < Self.maximumReadDepth else {
      throw CommandFailure(.usage, "'.read' is nested more than \(Self.maximumReadDepth) deep")
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw CommandFailure(.noInput, "\(path): no such file", location: path)
    }
    let text = String(decoding: data, as: UTF8.self)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
      $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
    }
    if lines.last == "" { lines.removeLast() }
    readDepth += 1
    defer { readDepth -= 1 }
    var iterator = lines.makeIterator()
    runScript(name: path) { iterator.next() }
  }

  // MARK: Errors

  /// Prints an error: at the prompt, a caret under the typed line when the mistake is on the
  /// last line typed; elsewhere the standard rendering with the script's line and column.
  private func report(_ error: any Error, input: String, origin: InputOrigin) {
    let failure: CommandFailure
    switch error {
    case let error as CommandFailure: failure = error
    case let error as UsageError: failure = CommandFailure(.usage, error.message)
    default: failure = (queryFailure(error) as? CommandFailure) ?? CommandFailure(.ioError, "\(error)")
    }
    if let promptWidth = origin.promptWidth, let diagnostics = (error as? QueryError)?.diagnostics ?? error as? DiagnosticsError,
      let caret = caretLine(diagnostics, input: input, promptWidth: promptWidth)
    {
      let (red, bold, reset) = color ? ("\u{1B}[31m", "\u{1B}[1m", "\u{1B}[0m") : ("", "", "")
      var text = "\(red)\(caret)\(reset)\n\(bold)\(red)error\(reset)\(bold): \(failure.message)\(reset)\n"
      for hint in failure.hints { text += hint + "\n" }
      for other in failure.others { text += "\n" + other }
      Terminal.err(text)
      return
    }
    ErrorReporter.report(failure, json: false)
  }

  /// `^~~~` placed under the primary span as it appears after the prompt, or nil when the span
  /// is not on the last line typed or the line wrapped on the terminal.
  private func caretLine(_ error: DiagnosticsError, input: String, promptWidth: Int) -> String? {
    let span = error.primary.span
    let (line, column) = error.source.location(of: span.start)
    let (endLine, endColumn) = error.source.location(of: max(span.start, span.end))
    let lines = input.split(separator: "\n", omittingEmptySubsequences: false)
    guard line == lines.count, let typed = lines.last, promptWidth + typed.count < Terminal.width else { return nil }
    var width = endLine == line ? max(1, endColumn - column) : max(1, typed.count - column + 1)
    width = min(width, max(1, typed.count - column + 1))
    return String(repeating: " ", count: promptWidth + column - 1) + "^" + String(repeating: "~", count: width - 1)
  }
}
