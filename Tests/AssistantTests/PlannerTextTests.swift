@testable import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Testing

/// Quoted phrases.
@Suite struct PlannerPhraseTests {
  @Test func aQuotedPhraseIsAPhraseSearch() throws {
    let plan = try PlannerSupport.plan("\"launch checklist\"")
    #expect(plan.dsl == "search 'launch checklist' | top 10")
    #expect(plan.intent == .search)
    #expect(plan.notes == ["\u{201C}launch checklist\u{201D} -> phrase 'launch checklist'"])
    #expect(try PlannerSupport.ids(plan.dsl).first == "note-49")
  }

  @Test func curlyQuotesAndWordsAround() throws {
    let plan = try PlannerSupport.plannerWithoutFeedback.plan("notes about \u{201C}kitchen remodel\u{201D} quotes")
    #expect(plan.dsl.contains("'kitchen remodel'"))
    #expect(plan.dsl.contains(#"contentType == "note""#))
    #expect(plan.dsl.contains(#""quotes"s"#))
    #expect(PlannerSupport.typeChecks(plan.dsl))
  }

  @Test func quotesInsideAPhraseCannotEscapeIt() throws {
    for question in [#""it's | count""#, #""a \ b"#, #""unclosed phrase"#, #""""#, "\"'\"", #""$time.now" || x"#] {
      let plan = try PlannerSupport.plan(question)
      #expect(PlannerSupport.typeChecks(plan.dsl), "\(question) -> \(plan.dsl)")
    }
  }
}

/// The fallback: a ranked text search of the content words.
@Suite struct PlannerFallbackTests {
  @Test func rankedTextSearchWithoutDiacritics() throws {
    let plan = try PlannerSupport.plan("what did Jonas and I discuss at Cafe Muller")
    #expect(plan.intent == .search)
    #expect(plan.dsl.hasPrefix("search ") && plan.dsl.hasSuffix(" | top 10"))
    #expect(plan.dsl.contains(#""cafe"s"#) && plan.dsl.contains(#""muller"s"#) && plan.dsl.contains(#""jonas"s"#))
    #expect(plan.dsl.contains(" || "), "any of the words, ranked")
    #expect(try PlannerSupport.ids(plan.dsl).first == "note-60")
  }

  /// "What did I write about …": the asker's own writing is no word the items contain.
  @Test func theAskersOwnWritingIsNotSearched() throws {
    let plan = try PlannerSupport.plannerWithoutFeedback.plan("what did I write about the garage window")
    #expect(!plan.dsl.contains("write"), "\(plan.dsl)")
    #expect(plan.dsl.contains(#""garage"s"#))
    #expect(try PlannerSupport.plannerWithoutFeedback.plan("how do I write a cover letter").dsl.contains(#""write"s"#))
  }

  /// A verb of asking starts a request ("list my notes on …"); after "how" it is what the
  /// items must explain ("how do I list …", "how to find …": the listing, the finding).
  @Test func howToDoSomethingKeepsItsVerb() throws {
    let planner = PlannerSupport.plannerWithoutFeedback
    #expect(!(try planner.plan("list my notes on the garage window").dsl.contains(#""list"s"#)))
    #expect(try planner.plan("how do I list my notes on the garage window").dsl.contains(#""list"s"#))
    #expect(try planner.plan("how to find the garage window").dsl.contains(#""find"s"#))
    #expect(!(try planner.plan("can you find the garage window").dsl.contains(#""find"s"#)))
  }

  /// "What kind of trails are in Utah": the trails in Utah; "kind of" names nothing to find.
  @Test func kindOfNamesNothingToFind() throws {
    let plan = try PlannerSupport.plan("what kind of trails are in Utah")
    #expect(plan.dsl == #"search contentType == "trail" && stateOrProvince == "Utah"cd | sort contentModificationDate desc"#)
    #expect(try PlannerSupport.plannerWithoutFeedback.plan("the kind of day it was").dsl.contains(#""kind"s"#))
  }

  @Test func unknownWordsAreDroppedNotRequired() throws {
    let plan = try PlannerSupport.plan("flurbish the garage window")
    #expect(!plan.dsl.contains("flurbish"))
    #expect(plan.notes.contains { $0.hasPrefix("not in the index, dropped: flurbish") })
    #expect(try PlannerSupport.ids(plan.dsl).contains("md-garage-window"))
    // Nothing the index knows: the words are kept (and find nothing)...
    let kept = try PlannerSupport.structuredPlanner.plan("xylophone quuxes")
    #expect(kept.dsl.contains("xylophone"))
    #expect(try PlannerSupport.ids(kept.dsl).isEmpty)
    // ...and the planner retries with the closest words of the index, and says so.
    let nothing = try PlannerSupport.plan("xylophone quuxes")
    #expect(nothing.notes.first?.contains("\u{201C}quuxes\u{201D} -> \u{201C}quotes\u{201D}") == true, "\(nothing.notes)")
    #expect(nothing.suggestions.map(\.word) == ["quuxes"], "no word of the index is close to xylophone")
    #expect(try !PlannerSupport.ids(nothing.dsl).isEmpty)
  }

  @Test func aQuestionOfStopWordsShowsRecentItems() throws {
    for question in ["", "?", "what is it", "show me everything"] {
      let plan = try PlannerSupport.plan(question)
      #expect(plan.dsl == "search * | sort contentModificationDate desc | limit 10", "\(question)")
    }
  }

  /// No question, however odd, produces a query that does not type-check.
  @Test(arguments: [
    "how many", "per state", "longest", "in", "since", "between 2 and", "rated", "over 9000", "top 0 trails", "average",
    "how many trails per month in 2025 rated 4 or more under 5 km tagged waterfall in California by Sam Ortiz since June",
    "\\\\\\", "'; DROP TABLE items; --", "search * | count", "$time.iso(2026-13-45)", "title == \"x\"cd", "InRange(rating, 1, 2)",
    "trails 🥾 in Zürich ✨", "ÉMAILS FROM TOM BECKER", "what's on my 2027 reading list?", "notes from 31 February",
    "hikes longer than 1e309 km", "trails under -5 km", "3.5.6 stars", "1,000,000 km", "per per per", "by by month",
    "the 99999999999999999999 longest trails", "last last week", "next 0 days", "0 days ago", "in May", "may I see notes",
    "notes from 2026-02-30", "emails to and from", "how many how many", String(repeating: "budget ", count: 200),
  ])
  func everyPlanTypeChecks(_ question: String) throws {
    let plan = try PlannerSupport.plan(question)
    #expect(PlannerSupport.typeChecks(plan.dsl), "\(question) -> \(plan.dsl)")
    if let evidence = plan.evidenceDSL { #expect(PlannerSupport.typeChecks(evidence)) }
    #expect(!plan.notes.contains { $0.contains("did not type-check") }, "\(question) -> \(plan.notes)")
  }
}

/// Question words and stop words, term weights and term forms.
@Suite struct PlannerStopWordTests {
  @Test func questionWordsAndStopWordsAreDropped() throws {
    let plan = try PlannerSupport.plan("What is the feeding schedule for my sourdough starter?")
    #expect(plan.termWeights.map(\.term).sorted() == ["\u{1}feeding", "\u{1}schedule", "\u{1}sourdough", "\u{1}starter"])
    #expect(plan.notes.contains("stop words dropped: what, is, the, for, my"))
    #expect(try PlannerSupport.ids(plan.dsl).first == "md-sourdough-starter")
  }

  @Test func rareTermsWeighMoreAndComeFirst() throws {
    let plan = try PlannerSupport.plannerWithoutFeedback.plan("kitchen remodel quote budget")
    let weights = plan.termWeights
    #expect(weights.count == 4)
    #expect(zip(weights, weights.dropFirst()).allSatisfy { $0.weight >= $1.weight })
    // The DSL lists the terms rarest first; the weights are in the notes.
    // Each word in any form (a stemmed term); "quote" and "budget", one-word keywords the
    // samples know, at twice the weight.
    let labels: Set = ["quote", "budget"]
    let order = weights.map { #""\#($0.term.dropFirst())"s"# + (labels.contains(String($0.term.dropFirst())) ? "^2" : "") }
      .joined(separator: " || ")
    #expect(plan.dsl == "search \(order) | top 10")
    #expect(plan.notes.contains { $0.hasPrefix("ranked text search, any of (rarest first): ") })
  }

  @Test func termsInMostItemsAreDroppedWhenRarerOnesRemain() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("planner-common-\(UUID().uuidString).db").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let index = try SearchIndex(path: path)
    var items: [SearchableItem] = []
    for n in 0..<10 {
      let text = "report " + (n == 0 ? "zeppelin airship" : n == 1 ? "airship" : "weekly")
      items.append(SearchableItem(uniqueIdentifier: "d\(n)", domainIdentifier: "docs", attributeSet: AttributeSet([("title", .string(text))])))
    }
    try index.indexSearchableItems(items)
    let planner = try BuiltinPlanner(index: index, clock: SampleIndex.clock, stemming: false)
    let plan = try planner.plan("the report about the zeppelin airship")
    #expect(plan.termWeights.map(\.term) == ["zeppelin", "airship"])
    #expect(plan.notes.contains("in most items, dropped: report"))
    #expect(try PlannerSupport.ids(plan.dsl, on: index).prefix(2) == ["d0", "d1"])
  }

  @Test func wordsAreSearchedInEveryForm() throws {
    let stemmed = try PlannerSupport.plannerWithoutFeedback.plan("hot springs")
    #expect(Set(stemmed.termWeights.map(\.term)) == ["\u{1}hot", "\u{1}springs"])
    #expect(stemmed.dsl.contains(#""springs"s"#) && stemmed.dsl.contains(#""hot"s"#))
    #expect(!stemmed.dsl.contains(#""springs" "#) && !stemmed.dsl.contains(#""springs"^"#), "the form as written is not asked for again")
    #expect(stemmed.notes.contains { $0.contains("springs~") })
    let exact = try BuiltinPlanner(index: SampleIndex.shared, clock: SampleIndex.clock, stemming: false)
    let plain = try exact.plan("hot springs").dsl
    #expect(plain.contains(#""springs""#) && !plain.contains(#""springs"s"#))
    // Letters only are stemmed; numbers and codes are searched as written.
    let forms = ["models": "\u{1}models", "heated": "\u{1}heated", "flow": "\u{1}flow", "q3": "q3", "2026": "2026"]
    for (word, form) in forms { #expect(TermForms.searchTerm(word, stemming: true) == form, "\(word)") }
    // A stemmed term finds the other forms: no item says "launching", many say launch or launched.
    #expect(try PlannerSupport.ids(#"search "launching" | top 10"#).isEmpty)
    #expect(try PlannerSupport.ids(try PlannerSupport.plan("launching").dsl).count == 10)
  }
}
