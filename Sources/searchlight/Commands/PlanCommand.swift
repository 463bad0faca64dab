import Assistant
import Foundation
import QueryEngine
import SearchIndex
import Stages

/// `searchlight plan`: what the built-in planner makes of a question.
enum PlanCommand: Command {
  static let name = "plan"
  static let abstract = "Turn a plain-language question into a query with the built-in planner (no model needed)."
  static let usage = "plan --db FILE [--now ISO8601] [--format text|json] [--protection C,...] [--] QUESTION"
  static let discussion = """
    Prints the query the planner builds and what it understood: dates ("last week", "since
    June", "2025"), values the index knows ("in California", "by Sam Ortiz", "tagged
    waterfall"), numeric phrases ("rated 4 or more", "under 5 km", "larger than 500 MB"),
    missing attributes ("packages with no homepage"), flags ("pinned notes"), counting,
    grouping, superlatives, groups ranked ("which state has the most trails"), attributes
    asked for ("what is the homepage of tmux", "the latest version of git", "who maintains
    nginx", "who wrote the Q3 review", "what does curl depend on", "how long is the Mist
    Trail"), relations a verb names ("packages that depend on libssl3", "maintained by the
    Debian Python Team") and quoted phrases; the remaining words become a ranked text search.
    The first line of text output is the query, ready for 'searchlight query'.
    JSON output: {"question","dsl","notes","intent","toolCall"} ("evidence" too for counts and
    statistics; "suggestions", [{"word","alternatives"}], for words no item contains);
    "toolCall" is the query in Apple's FullArguments shape, as explain --json.

    EXAMPLES:
      searchlight plan --db items.db 'how many hikes did I complete in California this year'
      searchlight plan --db items.db --now 2026-11-29T12:00:00Z 'notes from last week'
    """
  static let options: [OptionSpec] = [
    Common.db, Common.indexName, Common.now, Common.protection,
    OptionSpec(name: "format", kind: .value, valueName: "FORMAT", help: "text (default) or json."),
  ]

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    let format = try Common.format(arguments, allowed: ["text", "json"], default: "text", command: name)
    guard !arguments.positionals.isEmpty else { throw UsageError(message: "missing QUESTION", command: name) }
    let question = arguments.positionals.joined(separator: " ")
    let scope = try Common.scope(arguments, command: name)
    let index = try Common.openIndex(arguments, command: name, create: false, readOnly: true)
    let plan: PlannedQuery
    let clock = QueryClock(now: try Common.now(arguments, command: name), timeZone: TimeZone.current)
    do {
      let planner = try BuiltinPlanner(index: index, clock: clock, scope: scope)
      plan = try planner.plan(question)
    } catch {
      throw queryFailure(error)
    }
    if format == "json" {
      var object = plan.jsonObject
      if let toolCall = try toolCallJSON(for: plan, index: index, clock: clock, scope: scope) { object["toolCall"] = toolCall }
      Terminal.out(JSONValue.object(object).compactText + "\n")
      return .success
    }
    Terminal.out(text(for: plan))
    return .success
  }

  /// A plan for people: the query, the items query behind counts, what was understood.
  static func text(for plan: PlannedQuery) -> String {
    var text = plan.dsl + "\n"
    if let evidence = plan.evidenceDSL { text += "items: \(evidence)\n" }
    text += "\nunderstood (\(plan.intent)):\n"
    for note in plan.notes { text += "  - \(note)\n" }
    return text
  }

  /// The hook for the JSON form of a plan: the query as a tool call in Apple's `FullArguments`
  /// shape, from the tool-call encoder (`Sources/Assistant/Tool`), which falls back to the
  /// `dsl` query type when the query has no exact structured form.
  static func toolCallJSON(for plan: PlannedQuery, index: SearchIndex, clock: QueryClock, scope: AccessScope) throws -> JSONValue? {
    let executor = QueryExecutor(index: index, registry: StandardLibrary.registry())
    do {
      return try ToolCallEncoder().encode(plan.dsl, verifyingWith: executor, options: QueryOptions(scope: scope, clock: clock)).json
    } catch {
      throw queryFailure(error)
    }
  }
}
