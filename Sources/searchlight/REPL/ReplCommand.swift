#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import QueryEngine
import SearchIndex

/// `searchlight repl`: explore an index interactively, the way sqlite3, psql or the DuckDB shell
/// explore a database. At a terminal it edits lines with libedit, keeps a history and completes
/// with Tab; with standard input from a file or pipe it runs the script and exits 65 when any
/// command failed.
enum ReplCommand: Command {
  static let name = "repl"
  static let abstract = "Explore an index interactively: queries, dot-commands, history and completion."
  static let usage = "repl --db FILE [--format table|json|csv] [--limit N] [--now ISO8601] [--protection C,...]"
  static let discussion = """
    Type queries at the prompt; a line that ends in '|' or leaves a string or bracket open
    continues on the next line. '.help' lists the dot-commands. Tab completes stages, attributes,
    $time functions and dot-commands; Ctrl-C cancels a running query; Ctrl-D leaves.
    The history is kept in ~/.searchlight_history (SEARCHLIGHT_HISTORY overrides it; empty
    disables it).

    Without a terminal on standard input the REPL runs it as a script, prints the replies and
    exits 65 if any command failed:
      searchlight repl --db items.db < explore.sl
    """
  static let options: [OptionSpec] = QuerySetup.options + [
    OptionSpec(name: "format", kind: .value, valueName: "FORMAT", help: "table (default), json (JSON Lines replies) or csv."),
    OptionSpec(name: "limit", kind: .value, valueName: "N", help: "At most N items or rows per reply."),
  ]

  /// The prompts: the first line of an input and its continuation lines (the same width, so a
  /// caret lines up under either).
  static let prompt = "searchlight> "
  static let continuationPrompt = "        ...> "

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    let format = try Common.format(arguments, allowed: ["table", "json", "csv"], default: "table", command: name)
    var limit: Int?
    if let text = arguments.value("limit") {
      guard let n = Int(text), n >= 0 else { throw UsageError(message: "--limit needs a whole number, got '\(text)'", command: name) }
      limit = n
    }
    if !arguments.positionals.isEmpty {
      throw UsageError(message: "unexpected argument '\(arguments.positionals[0])'; give queries on standard input", command: name)
    }
    let setup = try QuerySetup(arguments, command: name)
    let interactive = isatty(0) == 1
    let session = ReplSession(
      setup: setup, arguments: arguments, interactive: interactive, format: ReplyRenderer.Format(rawValue: format)!, limit: limit)
    let fixed = arguments.value("now") ?? ProcessInfo.processInfo.environment["SEARCHLIGHT_NOW"]
    if let fixed, !fixed.isEmpty { session.fixClock(setup.options.clock.now) }

    if interactive {
      runInteractive(session, setup: setup)
      return .success
    }
    session.runScript(name: "stdin") { readLine(strippingNewline: true) }
    return session.failures > 0 ? .dataError : .success
  }

  /// The history file: SEARCHLIGHT_HISTORY, else $HOME/.searchlight_history (the account's
  /// home folder when HOME is unset); nil when SEARCHLIGHT_HISTORY is empty.
  static var historyPath: String? {
    if let path = ProcessInfo.processInfo.environment["SEARCHLIGHT_HISTORY"] { return path.isEmpty ? nil : path }
    return (Config.homeDirectory as NSString).appendingPathComponent(".searchlight_history")
  }

  private static func runInteractive(_ session: ReplSession, setup: QuerySetup) {
    var completion = Completion(setup: setup)
    let reader = EditLineReader(historyPath: historyPath, completer: completion.completer)
    let interrupts = InterruptMonitor.shared
    interrupts.install()
    let items = (try? setup.index.statistics(scope: setup.options.scope).items).map { " (\($0) items)" } ?? ""
    Terminal.out("Searchlight \(CommandList.version): \(setup.index.path)\(items). '.help' lists the commands, Ctrl-D leaves.\n")
    var assembler = LineAssembler()
    while !session.finished {
      if completion.refresh() { reader.update(completion.completer) }
      let prompt = assembler.isEmpty ? Self.prompt : Self.continuationPrompt
      let before = interrupts.count
      guard let line = reader.readLine(prompt: prompt, pendingText: assembler.pendingText) else {
        if interrupts.count != before {
          // Ctrl-C at the prompt: drop the line (and any continued input), prompt again.
          assembler.reset()
          Terminal.out("\n")
          continue
        }
        Terminal.out("\n")  // Ctrl-D
        break
      }
      guard let input = assembler.add(line) else { continue }
      if !ReplInput.isBlank(input) { reader.addHistory(LineAssembler.historyEntry(input)) }
      session.run(input, origin: InputOrigin(name: "query", line: 1, promptWidth: prompt.count))
    }
  }

  /// The completer, with the index's attribute names reloaded when the index changes.
  private struct Completion {
    let setup: QuerySetup
    var completer: ReplCompleter
    var generation: Int64?

    init(setup: QuerySetup) {
      self.setup = setup
      generation = try? setup.index.generation()
      completer = ReplCompleter(index: setup.index, registry: setup.registry, scope: setup.options.scope)
    }

    /// Reloads the attribute names when the index generation moved; true when it did.
    mutating func refresh() -> Bool {
      guard let current = try? setup.index.generation(), current != generation else { return false }
      generation = current
      completer = ReplCompleter(index: setup.index, registry: setup.registry, scope: setup.options.scope)
      return true
    }
  }
}
