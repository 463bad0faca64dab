import Foundation
import QueryEngine
import SearchIndex

/// The `prompted` pipeline stage of a tool call (Apple's FullArguments): a prompt the model
/// runs over each item of an earlier stage (`map`, a table of one output per item) or over
/// all of them at once (`reduce`, one text), on at most `maxItems` items.
///
/// The decoder turns calls into queries of the language, which has no model, so it rejects
/// this stage. When the session has a model it splits the stage off the call before the
/// decoder sees it, runs the rest of the call as usual, and applies the prompt to the
/// result: the decoder needs no hook, and without a model the stage stays an in-band error.
struct PromptedStage {
  var id: String
  var label: String?
  var prompt: String
  var reduce: Bool
  var maxItems: Int
  var options: GenerationOptions
  /// The JSON path of the stage, for errors.
  var path: String

  static let defaultMaxItems = 100

  /// What the model is told for each map or reduce call; the items are fenced as data.
  static let instructions = """
    You apply the user's prompt to items retrieved from their own index. Answer with the result only, in one short \
    paragraph, using only the items given.
    """ + "\n" + AnswerInstructions.dataRule

  /// Splits the prompted stage off a search call's arguments: the call without it (asking
  /// for a page of up to `maxItems` + 1 items, to tell whether there were more) and the
  /// stage. Nil when the call has no prompted stage (or is not JSON: the decoder reports
  /// that). A prompted stage other stages read from, or a second one, is an error.
  static func split(_ arguments: String) throws(ToolCallError) -> (arguments: String, stage: PromptedStage)? {
    guard case .object(var root)? = try? JSONParser.parse(arguments), case .object(var query)? = root["query"],
      query["type"] == "search", case .object(var value)? = query["value"], case .object(var pipeline)? = value["pipeline"],
      case .array(var stages)? = pipeline["stages"]
    else { return nil }
    let path = "$.query.value.pipeline.stages"
    let positions = stages.indices.filter { stages[$0]["kind"]?["type"] == "prompted" }
    guard let position = positions.first else { return nil }
    guard positions.count == 1 else {
      throw ToolCallError(path: "\(path)[\(positions[1])]", message: "a call can have one prompted stage",
                          expected: "one prompted stage, at the end of the pipeline")
    }
    let cursor = JSONCursor(stages[position], path: "\(path)[\(position)]")
    let id = try cursor.required("id", expected: "a unique stage id").string()
    for (other, stage) in stages.enumerated() where other != position && reads(stage, from: id) {
      throw ToolCallError(path: "\(path)[\(other)]", message: "stage reads from the prompted stage \"\(id)\"; nothing can follow a prompted stage",
                          expected: "the prompted stage as the last stage of the pipeline")
    }
    let fields = try cursor.required("kind", expected: "{\"type\": \"prompted\", \"value\": {...}}").required(
      "value", expected: "{\"from\": ..., \"prompt\": ...}", example: #"{"from":"notes","prompt":"Summarise the decisions","processingMode":"reduce"}"#)
    try fields.checkKeys(["from", "prompt", "processingMode", "maxItems", "parameters"])
    _ = try fields.required("from", expected: "the id of the stage whose items the prompt reads").string()
    var stage = PromptedStage(
      id: id, label: try cursor.optional("header")?.string(), prompt: try fields.required("prompt", expected: "the prompt").string(),
      reduce: false, maxItems: try fields.optional("maxItems")?.integer(in: 1...500) ?? defaultMaxItems, options: GenerationOptions(),
      path: cursor.path)
    switch try fields.optional("processingMode")?.string() ?? "map" {
    case "map": stage.reduce = false
    case "reduce": stage.reduce = true
    case let mode:
      throw ToolCallError(path: "\(fields.path).processingMode", message: "unknown processingMode \"\(mode)\"", expected: "map or reduce")
    }
    for parameter in try fields.optional("parameters")?.array() ?? [] {
      try parameter.checkKeys(["key", "value"])
      let key = try parameter.required("key", expected: "a parameter name").string()
      let text = try parameter.required("value", expected: "the value as text").string()
      if key == "temperature", let temperature = Double(text) { stage.options.temperature = temperature }
    }
    stages.remove(at: position)
    pipeline["stages"] = .array(stages)
    value["pipeline"] = .object(pipeline)
    value["pageSize"] = .number(Double(stage.maxItems + 1))
    query["value"] = .object(value)
    root["query"] = .object(query)
    return (JSONValue.object(root).compactText, stage)
  }

  /// True when `stage` names `id` as an input.
  private static func reads(_ stage: JSONValue, from id: String) -> Bool {
    let value = stage["kind"]?["value"]
    if value?["from"]?.stringValue == id { return true }
    if value?["extractValue"]?["fromStageId"]?.stringValue == id { return true }
    return value?["inputStageIds"]?.arrayValue?.contains(.string(id)) ?? false
  }

  /// Applies the prompt to the items of the last item reply of `result` (the stage the
  /// prompt read from, now the call's last): a `table` (map) or `text` (reduce) reply added
  /// after it. More than `maxItems` items is an in-band error asking for a limit.
  func apply(to result: SearchTool.Result, tool: SearchTool, model: any LanguageModel) async throws -> SearchTool.Result {
    guard !result.isError, let upstream = result.replies.last(where: { EvidenceQuery.producesItems($0.content.type) }) else {
      return result
    }
    let items = upstream.content.resultItems
    guard items.count <= maxItems else {
      let error = ToolCallError(
        path: "\(path).kind.value.maxItems", message: "the prompted stage would read more than \(maxItems) items",
        expected: "a limit stage before the prompted stage, or a larger maxItems (at most 500)")
      return SearchTool.Result(replies: [], text: SearchTool.errorText(error), error: error, query: result.query)
    }
    // The replies carry only the fetched attributes; the prompt reads the whole item.
    let full = try items.map { try tool.executor.index.item(withIdentifier: $0.id) ?? $0.item }
    let content: PipelineData
    if reduce {
      let output = try await run(model, on: full)
      content = .text(TextSummary(header: prompt, body: output))
    } else {
      var rows: [[Value]] = []
      for item in full {
        try Task.checkCancellation()
        rows.append([.string(item.uniqueIdentifier), .string(item.attributeSet.title ?? ""), .string(try await run(model, on: [item]))])
      }
      content = .table(Table(columns: ["id", "title", "output"], rows: rows))
    }
    let reply = Reply(queryToken: upstream.queryToken, label: label ?? id, content: content, stage: "prompted")
    let replies = result.replies + [reply]
    let text = ToolResultFormatter(maximumResponseSize: tool.maximumResponseSize, fetch: SearchTool.defaultFetch)
      .format(replies, more: [:], offset: 0, autoDisplay: false, notes: [])
    return SearchTool.Result(replies: replies, text: text, error: nil, query: result.query)
  }

  /// One model call: the prompt, then the items fenced as data.
  private func run(_ model: any LanguageModel, on items: [SearchableItem]) async throws -> String {
    var data = ""
    for item in items {
      data += "id: \(item.uniqueIdentifier)\n"
      for name in ["title", "contentCreationDate", "authorNames", "contentDescription", "textContent"] {
        guard let value = item.attributeSet[name] else { continue }
        data += "\(name): \(ToolResultFormatter.neutralised(String(value.displayText.prefix(4000))))\n"
      }
      data += "\n"
    }
    let user = "\(prompt)\n\n\(ToolResultFormatter.fence)\n<data>\n\(data)</data>"
    let reply = try await model.complete(messages: [.system(Self.instructions), .user(user)], options: options)
    return reply.text.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// The stage's schema, offered to a model when the session can run it.
  static let schema = Schema.discriminated("prompted", Schema.object([
    ("from", Schema.string, true), ("prompt", Schema.string, true), ("processingMode", Schema.enumeration(["map", "reduce"]), false),
    ("maxItems", Schema.integer, false),
  ]))
}

extension ToolDefinition {
  /// The definition with the `prompted` stage among the pipeline's stage kinds, when it has
  /// a pipeline (`complete` guidance, or a profile with `pipeline`).
  func addingPromptedStage() -> ToolDefinition {
    guard case .object(var defs)? = parameters["$defs"], case .object(var stage)? = defs["Stage"],
      case .object(var properties)? = stage["properties"], case .object(var kind)? = properties["kind"],
      case .array(var kinds)? = kind["anyOf"]
    else { return self }
    kinds.append(PromptedStage.schema)
    kind["anyOf"] = .array(kinds)
    properties["kind"] = .object(kind)
    stage["properties"] = .object(properties)
    defs["Stage"] = .object(stage)
    var copy = self
    guard case .object(var parameters) = parameters else { return self }
    parameters["$defs"] = .object(defs)
    copy.parameters = .object(parameters)
    copy.description += "\nA prompted stage (from, prompt, processingMode map or reduce, maxItems) runs a prompt over the items of an earlier stage: map gives one output per item, reduce one output for all."
    return copy
  }
}
