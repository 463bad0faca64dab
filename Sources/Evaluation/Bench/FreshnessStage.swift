import Foundation
import QueryEngine

/// The custom scoring stage of the benchmark mix, written the way an app writes one:
/// `freshness` scores each item 0.7 × text relevance + 0.3 × recency of its modification
/// date (1 now, halving every 30 days) and orders them best first. It runs in Swift over the
/// items the search produced.
package struct FreshnessStage: StageDefinition {
  package init() {}

  /// The half-life of the recency term.
  package static let halfLife: Double = 30 * 86_400

  package var descriptor: StageDescriptor {
    StageDescriptor(
      name: "freshness", abstract: "Score items by 0.7 x relevance + 0.3 x recency (30-day half-life), best first.",
      usage: "freshness", signatures: [.init(.items, .scoredItems), .init(.scoredItems, .scoredItems)],
      examples: [#"search "budget" | freshness | top 10"#], isCustom: true)
  }

  package func bind(_ call: StageSyntax, input: PipelineType, context: inout StageBindingContext) -> (any BoundStage)? {
    guard let clauses = context.clauses(call) else { return nil }
    if let first = clauses.first?.first {
      context.report(Diagnostic("stage.usage", "'freshness' takes no arguments", at: first.span))
      return nil
    }
    return Bound()
  }

  struct Bound: BoundStage {
    var outputType: PipelineType { .scoredItems }
    var explanation: String { "score 0.7 x relevance + 0.3 x recency, best first" }

    func execute(_ input: PipelineData, context: ExecutionContext) throws -> PipelineData {
      let now = context.clock.now.timeIntervalSince1970
      var scored: [(offset: Int, item: ResultItem)] = []
      for (offset, var item) in input.resultItems.enumerated() {
        try context.cancellation.check()
        var recency = 0.0
        if case .date(let modified)? = item.item.attributeSet["contentModificationDate"] {
          recency = pow(0.5, max(0, now - modified.timeIntervalSince1970) / FreshnessStage.halfLife)
        }
        item.score = 0.7 * item.relevance + 0.3 * recency
        scored.append((offset, item))
      }
      scored.sort { a, b in
        let x = a.item.score ?? 0, y = b.item.score ?? 0
        return x != y ? x > y : a.offset < b.offset
      }
      return .scoredItems(scored.map(\.item))
    }
  }
}
