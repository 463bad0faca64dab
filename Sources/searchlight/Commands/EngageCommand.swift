import SearchIndex

/// `searchlight engage`: records that the user engaged with items (opened, played, replied),
/// as Core Spotlight's `userEngaged`; ranking reads it as popularity.
enum EngageCommand: Command {
  static let name = "engage"
  static let abstract = "Record that the user engaged with items; ranking reads it as popularity."
  static let usage = "engage --db FILE [--index NAME] [--count N] [--protection C,..] ID..."
  static let discussion = """
    Each call adds N (default 1) to the items' engagement count. Queries use it as `engagement`
    in scores (`score relevance + log(engagement) / 5`), and tool calls through the
    `popularity` ranking model. If any identifier is unknown, nothing is recorded. Items with a
    protection class count only with `--protection CLASS`, and expired ones never: an item the
    call may not see is reported exactly like one that does not exist.

    EXAMPLES:
      searchlight engage --db items.db note-52
      searchlight engage --db items.db --count 3 trail-1 trail-14
    """
  static let options: [OptionSpec] = [
    Common.db, Common.indexName, Common.protection,
    OptionSpec(name: "count", kind: .value, valueName: "N", help: "How many engagements to add (default 1; negative to undo)."),
  ]

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    let identifiers = arguments.positionals
    guard !identifiers.isEmpty else {
      throw UsageError(message: "name the items to engage with, e.g. engage --db items.db note-52", command: name)
    }
    var count = 1
    if let text = arguments.value("count") {
      guard let n = Int(text), n != 0, abs(n) <= 1_000_000 else {
        throw UsageError(message: "--count needs a whole number from -1000000 to 1000000 other than 0, got '\(text)'", command: name)
      }
      count = n
    }
    let scope = try Common.scope(arguments, command: name)
    let index = try Common.openIndex(arguments, command: name, create: false)
    let unknown: [String]
    do {
      unknown = try index.recordEngagement(withIdentifiers: identifiers, count: count, scope: scope)
    } catch {
      throw CommandFailure(error)
    }
    if !unknown.isEmpty {
      let listed = unknown.prefix(5).map { "'\($0)'" }.joined(separator: ", ") + (unknown.count > 5 ? " and \(unknown.count - 5) more" : "")
      throw CommandFailure(.noInput, "no item \(listed) in the index; nothing was recorded")
    }
    let items = Set(identifiers).count
    Terminal.out("recorded \(count) engagement\(abs(count) == 1 ? "" : "s") for \(items) item\(items == 1 ? "" : "s")\n")
    return .success
  }
}
