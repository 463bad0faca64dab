import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Testing

/// The planner builds its queries as parsed trees; `dsl` is their printed text. For every
/// fixture question (and the plan shapes the fixtures may miss), the text parses back to the
/// planner's own tree, so what `plan` shows is exactly what runs.
@Suite struct PlannedQuerySyntaxTests {
  /// The sample fixtures' questions, and questions for the shapes they may not reach: a
  /// known item's title, a group per month, several content types, a numeric range, people.
  static let questions: [String] = {
    let fixtures = (try? PlannerEvaluationTests.fixtures().map(\.question)) ?? []
    return fixtures + [
      "Mist Trail", "how many notes per month", "notes or emails", "trails between 2 and 8 km", "average distance per state",
      "emails from Sam Ortiz and Lena Novak", "3 shortest hikes in Colorado", "\"trail club\" notes",
    ]
  }()

  static let planners: [(name: String, planner: BuiltinPlanner)] = [
    ("default", PlannerSupport.planner), ("no feedback", PlannerSupport.plannerWithoutFeedback),
    ("structured", PlannerSupport.structuredPlanner),
  ]

  /// `text` parses, and to `tree` up to where its nodes are.
  static func expectParses(_ text: String, to tree: QuerySyntax, _ context: String) throws {
    let parsed = try Parser.parse(SourceText(text))
    #expect(parsed.structure == tree.structure, "\(context): \(text)")
  }

  @Test func thereAreQuestions() {
    #expect(Self.questions.count >= 30)
  }

  @Test(arguments: questions)
  func aPlanPrintsAsTextThatParsesBackToTheTree(_ question: String) throws {
    for (name, planner) in Self.planners {
      let plan = try planner.plan(question)
      try Self.expectParses(plan.dsl, to: plan.query, "\(name) plan of \(question)")
      if let evidence = plan.evidence, let text = plan.evidenceDSL {
        try Self.expectParses(text, to: evidence, "\(name) evidence of \(question)")
      }
    }
  }

  @Test func aKnownItemsBoostIsPartOfTheTree() throws {
    let plan = try PlannerSupport.plan("Mist Trail")
    #expect(plan.notes.contains { $0.contains("known item") })
    // The ranked list, the titled item, and the two merged, re-scored and cut.
    #expect(plan.query.statements.map(\.name) == ["ranked", "titled", nil], "\(plan.dsl)")
    #expect(plan.query.statements.first?.pipeline.stages.map(\.name) == ["top"])
    let stages = try #require(plan.query.statements.last?.pipeline.stages)
    #expect(stages.map(\.name) == ["score", "top"])
    try Self.expectParses(plan.dsl, to: plan.query, "known item")
  }

  @Test func aHybridPlanIsThreeStatementsThatPrintAndParseBack() throws {
    var planner = PlannerSupport.plannerWithoutFeedback
    planner.hybrid = true
    let plan = try planner.plan("kitchen remodel quotes")
    #expect(plan.query.statements.map(\.name) == ["text", "vectors", nil], "\(plan.dsl)")
    try Self.expectParses(plan.dsl, to: plan.query, "hybrid")
  }

  @Test func aPlanGivenAsTextIsParsed() throws {
    let plan = try PlannedQuery(question: "q", dsl: #"search "orion"s || "launch"s | top 5"#, evidenceDSL: "search * | count", notes: [], intent: .search)
    #expect(plan.dsl == #"search "orion"s || "launch"s | top 5"#)
    #expect(plan.evidenceDSL == "search * | count")
    #expect(plan.itemsDSL == "search * | count")
    #expect(throws: QueryError.self) { try PlannedQuery(question: "q", dsl: "search (", notes: [], intent: .search) }
  }
}
