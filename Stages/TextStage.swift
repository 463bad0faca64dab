import Foundation
import QueryEngine
import SearchIndex

/// A short, deterministic text summary of any result: a header and a body.
public struct TextStage: StageDefinition {
  public init() {}

  public let descriptor = StageDescriptor(
    name: "text", abstract: "A short deterministic summary: a header line and a body listing the top results.",
    usage: "text",
    signatures: PipelineType.allCases.map { .init($0, .text) },
    examples: [#"search "kitchen remodel" | top 3 | text"#, #"search domainIdentifier == "trails" | stats avg(distance) | text"#])

  public func bind(_ call: StageSyntax, input: PipelineType, context: inout StageBindingContext) -> (any BoundStage)? {
    guard let clauses = context.clauses(call) else { return nil }
    if let first = clauses.first?.first {
      context.report(Diagnostic("stage.usage", "'text' takes no arguments", at: first.span))
      return nil
    }
    return Bound(summarisesItems: input == .items || input == .scoredItems)
  }

  /// Items listed in a summary body.
  static let listed = 5

  struct Bound: BoundStage {
    /// True over items: the summary counts them all and shows the first `listed`, so only
    /// those are read whole (`search "budget" | text` read a quarter of a million records).
    var summarisesItems = false
    var outputType: PipelineType { .text }
    var explanation: String { "summarise as text" }
    var readsOnlyPositions: Bool { summarisesItems }
    var attributesRead: Set<String>? { summarisesItems ? [] : nil }
    var readsItemFields: Bool { !summarisesItems }
    var leadingItemsRead: Int? { summarisesItems ? TextStage.listed : nil }

    func execute(_ input: PipelineData, context: any StageContext) throws -> PipelineData {
      .text(TextStage.summary(of: input))
    }
  }

  /// The summary of any pipeline data.
  public static func summary(of data: PipelineData) -> TextSummary {
    switch data {
    case .items(let items), .scoredItems(let items):
      let header = items.isEmpty ? "No items found." : "\(items.count) item\(items.count == 1 ? "" : "s") found."
      let lines = items.prefix(listed).map { item -> String in
        var line = "- " + (item.item.attributeSet.title ?? item.id)
        if let date = describeDate(item.item.attributeSet) { line += " (\(date))" }
        if let score = item.score { line += String(format: " [score %.3f]", score) }
        return line
      }
      let more = items.count > listed ? ["- and \(items.count - listed) more"] : []
      return TextSummary(header: header, body: (lines + more).joined(separator: "\n"))
    case .groupedItems(let grouped):
      let header = "\(grouped.groups.count) group\(grouped.groups.count == 1 ? "" : "s") by \(grouped.attribute)."
      let lines = grouped.groups.prefix(listed).map { "- \($0.key.displayText): \($0.count) item\($0.count == 1 ? "" : "s")" }
      return TextSummary(header: header, body: lines.joined(separator: "\n"))
    case .count(let n):
      return TextSummary(header: n == 1 ? "1 item matches." : "\(n) items match.", body: "")
    case .statistic(let statistic):
      return TextSummary(header: "\(statistic.function)(\(statistic.attribute)) = \(statistic.value.displayText)", body: "")
    case .table(let table):
      let lines = table.rows.prefix(listed * 2).map { row in
        zip(table.columns, row).map { "\($0): \($1.displayText)" }.joined(separator: ", ")
      }
      return TextSummary(header: "\(table.rows.count) row\(table.rows.count == 1 ? "" : "s").", body: lines.map { "- " + $0 }.joined(separator: "\n"))
    case .text(let text):
      return text
    }
  }

  /// The most telling date of an item: modified, else created, else due.
  public static func describeDate(_ attributes: AttributeSet) -> String? {
    guard let name = describeDateAttribute(attributes), case .date(let date)? = attributes[name] else { return nil }
    return String(ISO8601.format(date).prefix(10))
  }

  /// The attribute whose date `describeDate` shows.
  public static func describeDateAttribute(_ attributes: AttributeSet) -> String? {
    ["contentModificationDate", "contentCreationDate", "dueDate", "completionDate"].first { name in
      if case .date? = attributes[name] { return true }
      return false
    }
  }
}
