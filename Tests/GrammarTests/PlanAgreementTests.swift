import Foundation
import QueryEngine
import SearchIndex
import Stages
import SearchlightTestSupport
import Testing

/// `explain` and `execute` walk the same `ExecutionPlan`: for every grammar example that
/// runs, the statements `explain` shows are the statements the execution runs, in order.
@Suite struct PlanAgreementTests {
  /// The examples that run on the samples; `similar` needs an embeddings endpoint and a
  /// `let` binds later statements with values only the execution knows.
  static let runnable = GrammarExamplesTests.cases.filter {
    $0.errorID == nil && !$0.query.contains("similar") && !$0.query.contains("let ")
  }

  @Test func mostExamplesTakePart() {
    #expect(Self.runnable.count >= 60)
  }

  @Test(arguments: runnable)
  func explainShowsWhatExecuteRuns(_ example: GrammarExamplesTests.Case) throws {
    let executor = QueryExecutor(index: SampleIndex.shared, registry: StandardLibrary.registry())
    var options = SampleIndex.options
    let graph = try executor.prepare(example.query, options: options)
    let plan = try executor.plan(graph, options: options)
    let shown = try Explainer(executor: executor).statements(plan, options: options).map(\.sql)
    let log = StatementLog()
    options.statementLog = log
    try executor.execute(plan, options: options) { _ in }
    #expect(log.all == shown, "\(example.query)")
    // The explanation of the plan is the explanation of the query.
    #expect(try Explainer(executor: executor).explain(plan, options: options) == Explainer(executor: executor).explain(graph, options: options))
  }

  /// The plan decides whether the ranked index answers, and both sides follow it: with
  /// `usesRankedIndex` off, `explain` shows FTS5's statement, not the ranked index.
  @Test func rankedChoiceIsThePlans() throws {
    let executor = QueryExecutor(index: SampleIndex.shared, registry: StandardLibrary.registry())
    var options = SampleIndex.options
    let query = #""trail" || "lake" | top 3"#
    let ranked = try Explainer(executor: executor).explain(try executor.prepare(query, options: options), options: options)
    #expect(ranked.contains("ranked index: exact BM25F top 3"))
    options.usesRankedIndex = false
    let graph = try executor.prepare(query, options: options)
    let plan = try executor.plan(graph, options: options)
    let text = try Explainer(executor: executor).explain(plan, options: options)
    #expect(!text.contains("ranked index"))
    #expect(text.contains("bm25("))
    let log = StatementLog()
    options.statementLog = log
    try executor.execute(plan, options: options) { _ in }
    #expect(log.all == (try Explainer(executor: executor).statements(plan, options: options).map(\.sql)))
  }

  /// Every statistic of a `stats` stage is shown, not only the first.
  @Test func everyStatisticIsShown() throws {
    let executor = QueryExecutor(index: SampleIndex.shared, registry: StandardLibrary.registry())
    let options = SampleIndex.options
    let graph = try executor.prepare("search * | stats avg(rating), median(rating), max(rating) by domainIdentifier", options: options)
    let statements = try Explainer(executor: executor).statements(graph, options: options)
    // One statement a statistic, and the one that lists the groups.
    #expect(statements.count == 4)
    #expect(statements[0].sql.contains("avg("))
    #expect(statements[2].sql.contains("max("))
  }
}
