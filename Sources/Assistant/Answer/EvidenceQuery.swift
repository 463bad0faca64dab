import QueryEngine
import SearchIndex

/// The items behind an aggregate: what a count, statistic or table was computed from, so
/// the answer can cite them ("every number has sources").
enum EvidenceQuery {
  /// A query for up to `limit` of the items the query's last aggregate reply was computed
  /// from: its statement cut before the first stage that stops producing items. Nil when
  /// that reply already carries items or the statement cannot be cut.
  static func items(behind query: String, executor: QueryExecutor, options: QueryOptions, limit: Int) throws -> String? {
    let graph = try executor.prepare(query, options: options)
    guard let statement = graph.statements.last(where: \.isTerminal) else { return nil }
    guard !endsInItems(statement.nodes) else { return nil }
    if case .reference(let input) = statement.source, !producesItems(graph.statements[input].outputType) { return nil }
    var end = statement.sourceSpan.end
    for node in statement.nodes {
      guard case .stage = node.kind, producesItems(node.outputType) else { break }
      end = node.span.end
    }
    // Everything up to the cut: earlier statements stay, since the statement may read them.
    return graph.source.slice(SourceSpan(0, end)) + " | limit \(limit)"
  }

  /// True when every reply of `nodes` is items: the last node's output, or every branch's
  /// when it forks (a fork's own type is its input's).
  static func endsInItems(_ nodes: [QueryGraph.Node]) -> Bool {
    guard let last = nodes.last else { return true }
    if case .fork(let branches) = last.kind { return branches.allSatisfy(endsInItems) }
    return producesItems(last.outputType)
  }

  static func producesItems(_ type: PipelineType) -> Bool {
    type == .items || type == .scoredItems
  }
}
