import Foundation
import QueryEngine
import SearchIndex

/// Statistics over attribute values: count, sum, avg, min, max, median, stddev; one
/// statistic, or a table per value of an attribute with `by`.
public struct StatsStage: StageDefinition {
  public init() {}

  public let descriptor = StageDescriptor(
    name: "stats",
    abstract: "Compute count, sum, avg, min, max, median or stddev of attributes; one statistic, or a table per value with by.",
    usage: "stats FUNCTION(ATTRIBUTE), ... [by ATTRIBUTE]",
    signatures: [.init(.items, .statistic), .init(.items, .table), .init(.scoredItems, .statistic), .init(.scoredItems, .table)],
    parameters: [
      StageParameter("functions", .expression, "count, sum, avg, min, max, median or stddev of an attribute", required: true),
      StageParameter("by", .attribute, "Compute per value of this attribute"),
    ],
    examples: [
      #"search domainIdentifier == "trails" | stats avg(distance)"#,
      #"search domainIdentifier == "trails" | stats avg(distance), max(rating) by stateOrProvince"#,
    ])

  public func bind(_ call: StageSyntax, input: PipelineType, context: inout StageBindingContext) -> (any BoundStage)? {
    guard var clauses = context.clauses(call) else { return nil }
    var group: AttributeTarget?
    if var last = clauses.popLast() {
      if last.count == 3, last[1].identifierName == "by" {
        guard let target = context.bindAttribute(last[2], purpose: "stats ... by") else { return nil }
        group = target
        last.removeLast(2)
      }
      clauses.append(last)
    }
    guard !clauses.isEmpty, clauses.allSatisfy({ !$0.isEmpty }) else {
      context.report(Diagnostic("stage.usage", "'stats' needs at least one function", at: call.nameSpan, help: "write \(descriptor.usage)"))
      return nil
    }
    var requests: [StatisticRequest] = []
    for clause in clauses {
      guard clause.count == 1 else {
        context.report(Diagnostic("stage.usage", "expected ',' between statistics, or 'by ATTRIBUTE' at the end", at: clause[1].span,
                                  help: "write \(descriptor.usage)"))
        return nil
      }
      let expression = clause[0]
      if let name = expression.identifierName, name == "count" {
        requests.append(StatisticRequest(function: .count, target: nil))
        continue
      }
      guard case .call(let name, let nameSpan, let arguments) = expression.kind else {
        context.report(Diagnostic("stage.usage", "expected a statistic such as avg(distance)", at: expression.span))
        return nil
      }
      guard let function = StatisticRequest.Function(rawValue: name) else {
        context.report(Diagnostic("stats.unknown-function", "unknown statistic '\(name)'", at: nameSpan,
                                  help: "statistics are count, sum, avg, min, max, median, stddev")
          .suggesting(closestMatch(to: name, in: StatisticRequest.Function.allCases.map(\.rawValue))))
        return nil
      }
      if function == .count && arguments.isEmpty {
        requests.append(StatisticRequest(function: .count, target: nil))
        continue
      }
      guard arguments.count == 1 else {
        context.report(Diagnostic("stage.usage", "\(name) takes one attribute", at: expression.span, help: "write \(name)(distance)"))
        return nil
      }
      guard let target = context.bindAttribute(arguments[0].value, purpose: name) else { return nil }
      if function != .count {
        guard case .attribute(_, let type) = target, type.scalar == .number || type.scalar == .date else {
          context.report(Diagnostic("type.stats-not-numeric", "\(name) needs a number or date attribute; '\(target.displayName)' is not",
                                    at: arguments[0].value.span, help: "count(\(target.displayName)) counts the items that have it"))
          return nil
        }
        if type.scalar == .date, function == .sum {
          context.report(Diagnostic("type.stats-date-sum", "sum of dates has no meaning", at: expression.span))
          return nil
        }
      }
      requests.append(StatisticRequest(function: function, target: target))
    }
    let output: PipelineType = group == nil && requests.count == 1 ? .statistic : .table
    return Bound(requests: requests, group: group, outputType: output)
  }

  struct Bound: BoundStage {
    let requests: [StatisticRequest]
    let group: AttributeTarget?
    let outputType: PipelineType
    var outputColumns: [String]? { outputType == .table ? (group.map { [$0.displayName] } ?? []) + requests.map(\.columnName) : nil }
    var explanation: String {
      requests.map(\.columnName).joined(separator: ", ") + (group.map { " by \($0.displayName)" } ?? "")
    }

    func push(into plan: inout SQLPlan) -> Bool {
      guard plan.aggregate == nil, plan.groupBy == nil, plan.limit == nil else { return false }
      plan.aggregate = .statistics(requests, by: group)
      return true
    }

    func execute(_ input: PipelineData, context: any StageContext) throws -> PipelineData {
      let items = input.resultItems
      var keys: [Value] = [.null]
      var members: [Value: [ResultItem]] = [.null: items]
      if let group {
        let grouped = Aggregation.group(items, by: group)
        keys = grouped.groups.map(\.key).sorted { a, b in a.displayText.localizedStandardCompare(b.displayText) == .orderedAscending }
        members = Dictionary(uniqueKeysWithValues: grouped.groups.map { ($0.key, $0.items) })
      }
      let rows = keys.map { key in
        requests.map { request in Aggregation.compute(request, over: members[key] ?? []) }
      }
      if group == nil, requests.count == 1 {
        let request = requests[0]
        return .statistic(Statistic(function: request.function.rawValue, attribute: request.target?.displayName ?? "*", value: rows[0][0]))
      }
      if group == nil { return .table(Table(columns: requests.map(\.columnName), rows: rows)) }
      return .table(Table(columns: [group!.displayName] + requests.map(\.columnName), rows: zip(keys, rows).map { [$0] + $1 }))
    }
  }
}
