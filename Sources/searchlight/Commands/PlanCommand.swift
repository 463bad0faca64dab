import Assistant
import Foundation
import QueryEngine
import SearchIndex

/// `searchlight plan`: what the built-in planner makes of a question.
enum PlanCommand: Command {
  static let name = "plan"
  static let abstract = "Turn a plain-language question into a query with the built-in planner (no model needed)."
  static let usage = "plan --db FILE [--now ISO8601] [--format text|json] [--protection C,...] [--] QUESTION"
  static let discussion = """
    Prints the query the planner builds and what it understood: dates ("last week", "since
    June", "2025"), values the index knows ("in California", "by Sam Ortiz", "tagged
    waterfall"), numeric phrases ("rated 4 or more", "under 5 km"), counting, grouping,
    superlatives and quoted phrases; the remaining words become a ranked text search.
    The first line of text output is the query, ready for 'searchlight query'.
    JSON output: {"question","dsl","notes","intent"} (and "evidence" for counts and statistics).

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
    let index = try Common.openIndex(arguments, command: name, create: false)
    let plan: PlannedQuery
    do {
      let planner = try BuiltinPlanner(index: index, clock: QueryClock(now: scope.now, timeZone: TimeZone.current), scope: scope)
      plan = try planner.plan(question)
    } catch {
      throw queryFailure(error)
    }
    if format == "json" {
      var object = JSONObject()
      object["question"] = .string(plan.question)
      object["dsl"] = .string(plan.dsl)
      if let evidence = plan.evidenceDSL { object["evidence"] = .string(evidence) }
      object["intent"] = .string(plan.intent.description)
      object["notes"] = .array(plan.notes.map(JSONValue.string))
      if let toolCall = toolCallJSON(for: plan) { object["toolCall"] = toolCall }
      Terminal.out(JSONValue.object(object).compactText + "\n")
      return .success
    }
    var text = plan.dsl + "\n"
    if let evidence = plan.evidenceDSL { text += "items: \(evidence)\n" }
    text += "\nunderstood (\(plan.intent)):\n"
    for note in plan.notes { text += "  - \(note)\n" }
    Terminal.out(text)
    return .success
  }

  /// HOOK for the tool-call encoder (Sources/Assistant/Tool, DSL -> Apple tool-call JSON):
  /// the plan as `FullArguments` for `--format json`. Returns nil until the encoder is wired
  /// in here; the JSON output then carries the DSL only.
  static func toolCallJSON(for plan: PlannedQuery) -> JSONValue? {
    nil
  }
}
