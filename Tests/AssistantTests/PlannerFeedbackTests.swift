@testable import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Testing

/// Relevance feedback (RM3): the best items of a first search add weighted words.
@Suite struct PlannerFeedbackTests {
  /// Glacier notes that all talk about moraines, one moraine note that never says glacier,
  /// and filler; one protected note holds a word no plan may ever show.
  static func collection() throws -> (index: SearchIndex, path: String) {
    let path = TemporaryFiles.database("planner-feedback")
    let index = try SearchIndex(path: path)
    func note(_ id: String, _ title: String, _ text: String, protection: String? = nil) -> SearchableItem {
      SearchableItem(
        uniqueIdentifier: id, domainIdentifier: "notes", protectionClass: protection,
        attributeSet: AttributeSet([("title", .string(title)), ("textContent", .string(text))]))
    }
    var items = [
      note("g1", "Glacier walk", "The glacier left a moraine of boulders; moraines line the valley."),
      note("g2", "Glacier lake", "A lake dammed by the terminal moraine below the glacier."),
      note("g3", "Ice field", "Glacier ice and moraine ridges, and more moraine further down."),
      note("m1", "Boulder ridge", "A long moraine ridge of boulders."),
      note("secret", "Glacier diary", "glacier glacier zyzzyva zyzzyva zyzzyva", protection: "private"),
    ]
    for n in 0..<12 { items.append(note("f\(n)", "Errand \(n)", "Groceries, the bakery and the post office, list \(n).")) }
    try index.indexSearchableItems(items)
    return (index, path)
  }

  /// A planner that expands every question, however short.
  static func expandingPlanner(_ index: SearchIndex, scope: AccessScope? = nil) throws -> BuiltinPlanner {
    var planner = try BuiltinPlanner(index: index, clock: SampleIndex.clock, scope: scope)
    planner.feedback = RelevanceFeedback(documents: 3, terms: 30, questionWeight: 0.3, minimumQuestionTerms: 1)
    return planner
  }

  @Test func theBestItemsAddWeightedWordsThatFindMore() throws {
    let (index, _) = try Self.collection()
    let planner = try Self.expandingPlanner(index)
    let plan = try planner.plan("glacier")
    #expect(plan.dsl.contains(#""moraine"s^"#), "\(plan.dsl)")
    #expect(plan.dsl.hasPrefix(#"search "glacier"s^2 || "#), "the question's word weighs most")
    #expect(plan.notes.contains { $0.hasPrefix("relevance feedback: the best 3 items of a first search added moraine~ ") }, "\(plan.notes)")
    #expect(plan.termWeights.map(\.term) == ["\u{1}glacier"], "term weights stay the question's (answers are judged by them)")
    let found = try PlannerSupport.ids(plan.dsl, on: index)
    #expect(Array(found.prefix(3)).sorted() == ["g1", "g2", "g3"], "the question's word still ranks first")
    #expect(found.contains("m1"), "a moraine note without the word glacier is found")

    var without = planner
    without.feedback = nil
    let plain = try without.plan("glacier")
    #expect(!plain.dsl.contains("^") && !plain.dsl.contains("moraine"))
    #expect(try !PlannerSupport.ids(plain.dsl, on: index).contains("m1"))
  }

  @Test func hiddenItemsNeverSuggestWords() throws {
    let (index, _) = try Self.collection()
    let planner = try Self.expandingPlanner(index)
    #expect(!(try planner.plan("glacier diary").dsl.contains("zyzzyva")))
    let allowed = try Self.expandingPlanner(index, scope: AccessScope(now: SampleIndex.now, protectionClasses: ["private"]))
    #expect(try allowed.plan("glacier diary").dsl.contains(#""zyzzyva"s^"#), "visible to this scope, so it may suggest words")
  }

  @Test func onlyRankedSearchesAreExpanded() throws {
    let (index, _) = try Self.collection()
    let planner = try Self.expandingPlanner(index)
    let count = try planner.plan("how many glacier notes")
    #expect(count.intent == .count)
    #expect(!count.dsl.contains("moraine") && !(count.evidenceDSL ?? "").contains("moraine"))
  }

  @Test func byDefaultOnlyQuestionsOfFiveContentWordsOrMoreAreExpanded() throws {
    let (index, _) = try Self.collection()
    let planner = try BuiltinPlanner(index: index, clock: SampleIndex.clock)
    #expect(planner.feedback == .standard && RelevanceFeedback.standard.minimumQuestionTerms == 5)
    let short = try planner.plan("where is the glacier lake with the boulder ridge")
    #expect(short.termWeights.count == 4 && !short.dsl.contains("^"), "\(short.dsl)")
    let long = try planner.plan("a walk to the glacier lake along the boulder ridge")
    #expect(long.termWeights.count == 5 && long.dsl.contains(#""moraine"s^"#), "\(long.dsl)")
  }
}

/// The relevance model and the mixture, on hand-made evidence.
@Suite struct RelevanceFeedbackTests {
  let feedback = RelevanceFeedback(documents: 2, terms: 3, questionWeight: 0.5)

  @Test func formsOfAWordCountAsOneAndStrengthenTheQuestionsWord() {
    let evidence = [
      RelevanceFeedback.Evidence(texts: ["models of flutter", "modelling the flutter"], relevance: 2),
      RelevanceFeedback.Evidence(texts: ["flutter model tests"], relevance: 1),
    ]
    let terms = feedback.expand(["\u{1}model"], evidence: evidence)
    #expect(terms.first == RelevanceFeedback.WeightedTerm(term: "\u{1}model", weight: 1, added: false))
    #expect(terms.filter(\.added).map(\.term).first == "\u{1}flutter")
    #expect(!terms.contains { $0.term.contains("models") || $0.term.contains("modelling") }, "forms of model merge into the question's term")
    #expect(terms.allSatisfy { $0.weight > 0 && $0.weight <= 1 })
  }

  @Test func stopWordsNumbersShortWordsAndAddressesAreNeverAdded() {
    let evidence = [RelevanceFeedback.Evidence(texts: ["the the the of of 2026 2026 x x go go sam@example.com wing"], relevance: 1)]
    let added = feedback.expand(["\u{1}lift"], evidence: evidence).filter(\.added).map(\.term)
    #expect(added == ["\u{1}sam", "\u{1}wing"])
  }

  @Test func onlyTheBestItemsCount() {
    let evidence = [
      RelevanceFeedback.Evidence(texts: ["alpha"], relevance: 3),
      RelevanceFeedback.Evidence(texts: ["beta"], relevance: 2),
      RelevanceFeedback.Evidence(texts: ["gamma"], relevance: 1),
    ]
    let added = feedback.expand(["\u{1}query"], evidence: evidence).filter(\.added)
    #expect(added.map(\.term) == ["\u{1}alpha", "\u{1}beta"], "two documents, the stronger match weighs more")
    #expect(added[0].weight > added[1].weight)
  }

  @Test func withAgreementOnlyWordsEnoughItemsUseAreAdded() {
    let agreeing = RelevanceFeedback(documents: 2, terms: 10, questionWeight: 0.5, agreement: 2)
    let evidence = [
      RelevanceFeedback.Evidence(texts: ["flutter wing flutter tail"], relevance: 2),
      RelevanceFeedback.Evidence(texts: ["wings of the rotor"], relevance: 1),
      RelevanceFeedback.Evidence(texts: ["tail rotor"], relevance: 1),
    ]
    #expect(agreeing.expand(["\u{1}lift"], evidence: evidence).filter(\.added).map(\.term) == ["\u{1}wing"], "in both best items")
    #expect(Set(feedback.expand(["\u{1}lift"], evidence: evidence).filter(\.added).map(\.term)) == ["\u{1}flutter", "\u{1}wing", "\u{1}tail"])
    // One item found: agreement asks for that one.
    #expect(agreeing.expand(["\u{1}lift"], evidence: [evidence[0]]).filter(\.added).count == 3)
    // The question's own words are not added, and a word neither item shares leaves its weight with the question.
    let alone = agreeing.expand(["\u{1}lift"], evidence: [evidence[0], evidence[2]])
    #expect(alone.filter(\.added).map(\.term) == ["\u{1}tail"] && alone[0] == .init(term: "\u{1}lift", weight: 1, added: false))
  }

  @Test func withoutEvidenceTheQuestionStandsAlone() {
    #expect(feedback.expand(["\u{1}lift", "747"], evidence: []) == [
      .init(term: "\u{1}lift", weight: 1, added: false), .init(term: "747", weight: 1, added: false),
    ])
  }

  @Test func experimentsSetTheParametersThroughTheEnvironment() {
    #expect(RelevanceFeedback.tuning(nil) == .standard)
    #expect(RelevanceFeedback.tuning("off") == nil)
    #expect(RelevanceFeedback.tuning("5 20 0.5") == RelevanceFeedback(documents: 5, terms: 20, questionWeight: 0.5))
    #expect(RelevanceFeedback.tuning("5 20 0.5 2")?.minimumQuestionTerms == 2)
    #expect(RelevanceFeedback.tuning("5 20 0.5 2 3") == RelevanceFeedback(documents: 5, terms: 20, questionWeight: 0.5, minimumQuestionTerms: 2, agreement: 3))
    #expect(RelevanceFeedback.tuning("2 20 0.5 5 9")?.agreement == 2, "at most the items that suggest words")
    #expect(RelevanceFeedback.tuning("5 20") == .standard, "malformed: the shipped parameters")
  }
}
