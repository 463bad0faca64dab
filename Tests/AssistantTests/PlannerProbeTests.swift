import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Stages
import Testing

@testable import Assistant

/// The planner's probes: whether a reading finds anything is asked as existence (at most one
/// item, counted), never as a ranked top 1, and it answers exactly as the items would.
@Suite struct PlannerProbeTests {
  /// Notes and trails with a content type; one protected and one expired note are the only
  /// items that mention "salaries" and "ledger".
  static func notes() throws -> SearchIndex {
    let index = try SearchIndex(path: TemporaryFiles.database("planner-probes"))
    func item(_ id: String, _ type: String, _ title: String, _ text: String, expired: Bool = false, protected: Bool = false) -> SearchableItem {
      SearchableItem(
        uniqueIdentifier: id, domainIdentifier: type + "s", contentType: type,
        expirationDate: expired ? Date(timeIntervalSince1970: 1_000_000) : nil, protectionClass: protected ? "private" : nil,
        attributeSet: AttributeSet([("title", .string(title)), ("textContent", .string(text))]))
    }
    try index.indexSearchableItems([
      item("n1", "note", "Budget review", "The budget review moves to Friday."),
      item("n2", "note", "Groceries", "Milk, eggs and bread."),
      item("n3", "note", "Pay", "Salaries for next year.", protected: true),
      item("n4", "note", "Old ledger", "The ledger of last year.", expired: true),
      item("t1", "trail", "Mist Trail", "A budget hike beside the falls."),
    ])
    return index
  }

  static func explain(_ query: String, on index: SearchIndex) throws -> String {
    let executor = QueryExecutor(index: index, registry: StandardLibrary.registry())
    let options = QueryOptions(scope: AccessScope(now: SampleIndex.now), clock: SampleIndex.clock)
    return try Explainer(executor: executor).explain(try executor.prepare(query, options: options), options: options)
  }

  @Test func theProbeOfARankedReadingCountsInsteadOfRanking() throws {
    let index = try Self.notes()
    let planner = try BuiltinPlanner(index: index, clock: SampleIndex.clock)
    let plan = try planner.readPlan("which notes mention the budget review", structured: true)
    #expect(plan.itemsDSL.hasPrefix(#"search contentType == "note" && ("#), "\(plan.itemsDSL)")
    // The items themselves are an exact top k from the ranked index ...
    #expect(try Self.explain(plan.itemsDSL + " | limit 1", on: index).contains("ranked index: exact BM25F top 1"))
    // ... but the probe only asks whether there is one: a bounded count, no ranking.
    let probe = SyntaxPrinter.text(BuiltinPlanner.existenceQuery(plan.itemsQuery))
    let explained = try Self.explain(probe, on: index)
    #expect(!explained.contains("ranked index"), "\(explained)")
    #expect(explained.contains("SQL: SELECT count(*) FROM (SELECT i.rowid FROM"), "\(explained)")
    #expect(explained.contains("LIMIT ?)"), "\(explained)")
    #expect(try planner.finds(plan))
  }

  @Test(arguments: [
    #"search contentType == "note" && ("budget"s || "review"s) | top 10"#,
    #"search contentType == "trail" && ("budget"s || "review"s) | top 10"#,
    #"search contentType == "email" && ("budget"s || "review"s) | top 10"#,
    #"search "salaries" | top 10"#,
    #"search contentType == "note" && ("salaries"s || "ledger"s) | top 10"#,
    #"search ("budget" || "ledger") | sort title | top 3"#,
    #"search title == "groceries"cd"#,
    #"search title == "pay"cd"#,
    #"search contentType == "note" | sort title | limit 2"#,
  ])
  func existenceAgreesWithTheItemsTheScopeSees(_ query: String) throws {
    let index = try Self.notes()
    let planner = try BuiltinPlanner(index: index, clock: SampleIndex.clock, scope: AccessScope(now: SampleIndex.now))
    let ids = try PlannerSupport.ids(query, on: index)
    #expect(try planner.findsAny(Parser.parse(SourceText(query))) == !ids.isEmpty, "\(ids)")
    // Hidden items leave no trace: the protected and the expired note are found by no probe.
    #expect(!ids.contains("n3") && !ids.contains("n4"))
  }

  @Test func aReadingOnlyHiddenItemsMatchFindsNothing() throws {
    let index = try Self.notes()
    let planner = try BuiltinPlanner(index: index, clock: SampleIndex.clock, scope: AccessScope(now: SampleIndex.now))
    #expect(try !planner.findsAny(Parser.parse(SourceText(#"search contentType == "note" && ("salaries"s || "ledger"s)"#))))
    let granted = try BuiltinPlanner(
      index: index, clock: SampleIndex.clock, scope: AccessScope(now: SampleIndex.now, protectionClasses: ["private"]))
    #expect(try granted.findsAny(Parser.parse(SourceText(#"search contentType == "note" && ("salaries"s || "ledger"s)"#))))
  }
}
