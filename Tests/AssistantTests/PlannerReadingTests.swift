@testable import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Testing

/// Never empty-handed and collection-aware: structured readings that find nothing give way
/// to the question's words; nouns naming a domain, content type, known value or person
/// become predicates; identifiers weigh like words; exact titles rank first; misspelt words
/// get suggestions from the visible vocabulary.
@Suite struct PlannerReadingTests {
  func read(_ question: String) throws -> PlannedQuery { try PlannerSupport.plannerWithoutFeedback.plan(question) }

  // MARK: Never empty-handed

  @Test func aDateReadingThatFindsNothingFallsBackToTheWords() throws {
    // "in 1979" is a date filter no item satisfies: the words still find the retrospective.
    let plan = try read("Orion launch retrospective in 1979")
    #expect(plan.intent == .search)
    #expect(!plan.dsl.contains("$time"), "\(plan.dsl)")
    #expect(plan.notes.first?.hasPrefix("the structured reading found nothing (search contentModificationDate >= $time.iso(1979-01-01)") == true, "\(plan.notes)")
    #expect(plan.notes.contains("read as text: the question's content words, ranked"))
    #expect(try PlannerSupport.ids(plan.dsl).first == "note-52")
  }

  @Test func todayAsADateThatFindsNothingFallsBack() throws {
    let plan = try read("Orion launch retrospective action items today")
    #expect(plan.intent == .search)
    #expect(plan.notes.first?.contains("$time.today") == true, "\(plan.notes)")
    #expect(try PlannerSupport.ids(plan.dsl).first == "note-52")
  }

  @Test func aCountOfManyRequiredWordsThatFindsNothingFallsBack() throws {
    let plan = try read("How many launches raise the number of sign-ups at Orion?")
    #expect(plan.intent == .search, "\(plan.dsl)")
    #expect(plan.notes.first?.hasPrefix("the structured reading found nothing (") == true)
    #expect(plan.notes.first?.contains("| count") == true)
    #expect(try !PlannerSupport.ids(plan.dsl).isEmpty)
  }

  @Test func aQuotedPhraseThatFindsNothingIsReadAsWords() throws {
    let plan = try read(#"Orion retrospective "launch telemetry dashboard""#)
    #expect(!plan.dsl.contains("'launch telemetry dashboard'"), "\(plan.dsl)")
    #expect(plan.dsl.contains(#""dashboard"s"#) || plan.notes.contains { $0.contains("dashboard") })
    #expect(try PlannerSupport.ids(plan.dsl).first == "note-52")
  }

  /// The collection a noun names is what finds nothing (only a note mentions sourdough):
  /// the same reading over every item keeps the count and the known value.
  @Test func aCollectionThatFindsNothingGivesWayToEveryItem() throws {
    let plan = try read("how many emails mention sourdough")
    #expect(plan.intent == .count)
    #expect(plan.dsl == #"search keywords == "sourdough"cd | count"#, "\(plan.dsl)")
    #expect(plan.notes.first?.hasSuffix("read over every item instead") == true, "\(plan.notes)")
    #expect(plan.notes.contains("\u{201C}emails\u{201D} -> no filter, read over every item"), "\(plan.notes)")
    #expect(try PlannerSupport.count(plan.dsl) == 1)
    // A collection that finds something stays a filter.
    #expect(try read("how many emails mention the budget").dsl.contains(#"contentType == "email""#))
  }

  /// In the words' reading, a plural naming a collection is not searched for while other
  /// words remain: items that say "emails" are no better an answer.
  @Test func theWordsReadingLeavesOutTheCollectionNoun() throws {
    let plan = try read("emails from Tom about the budget")
    #expect(plan.notes.first?.hasSuffix("searched the question's words instead") == true, "\(plan.notes)")
    #expect(plan.dsl == #"search "tom"s || "budget"s | top 10"#, "\(plan.dsl)")
    #expect(plan.notes.contains("\u{201C}emails\u{201D} names the items, not a word to search for"))
    // Alone, it is the only word there is to search for.
    #expect(try read("\"emails\"").dsl.contains("emails"))
  }

  @Test func aStructuredReadingThatFindsSomethingIsKept() throws {
    let plan = try read("How many trails are in Utah?")
    #expect(plan.dsl == #"search contentType == "trail" && stateOrProvince == "Utah"cd | count"#)
    #expect(!plan.notes.contains { $0.contains("structured reading found nothing") })
  }

  // MARK: Collection-aware

  /// Recipes and journal entries in domains whose content type says nothing ("text").
  static func domains() throws -> SearchIndex {
    let index = try SearchIndex(path: TemporaryFiles.database("planner-domains"))
    func item(_ id: String, _ domain: String, _ title: String, _ text: String, author: String? = nil) -> SearchableItem {
      var attributes: [(String, AttributeValue)] = [("title", .string(title)), ("textContent", .string(text))]
      if let author { attributes.append(("authorNames", .list([.string(author)]))) }
      return SearchableItem(uniqueIdentifier: id, domainIdentifier: domain, contentType: "text", attributeSet: AttributeSet(attributes))
    }
    try index.indexSearchableItems([
      item("r1", "recipes", "Rösti", "Grate the potatoes and fry them in butter.", author: "Mara Keller"),
      item("r2", "recipes", "Flatbread", "Flour, water, salt and oil.", author: "Mara Keller"),
      item("r3", "recipes.baking", "Shortbread", "Butter, sugar and flour, baked slowly.", author: "Jon Berg"),
      item("j1", "journal", "Sunday", "Made rösti with butter from the recipes book.", author: "Jon Berg"),
      item("j2", "journal", "Monday", "A long walk by the lake."),
    ])
    return index
  }

  @Test func aDomainNounBecomesADomainPredicate() throws {
    let index = try Self.domains()
    let planner = try BuiltinPlanner(index: index, clock: SampleIndex.clock)
    // Any case, singular or plural; its sub-domains come along.
    for question in ["which recipes use butter", "Which RECIPES use butter?", "which recipe uses butter"] {
      let plan = try planner.plan(question)
      #expect(plan.dsl.contains(#"(domainIdentifier == "recipes" || domainIdentifier == "recipes.*")"#), "\(plan.dsl)")
      let ids = try PlannerSupport.ids(plan.dsl, on: index)
      #expect(Set(ids) == ["r1", "r3"], "the journal entry says recipes and butter but is not a recipe: \(ids)")
    }
    // A singular after "the" is a word, not the collection.
    #expect(!(try planner.plan("the recipe book").dsl.contains("domainIdentifier")))
    // A count applies to the collection, not to items that say "recipes".
    let count = try planner.plan("how many recipes are there")
    #expect(count.intent == .count)
    #expect(try Set(PlannerSupport.ids(count.itemsDSL, on: index)) == ["r1", "r2", "r3"])
  }

  @Test func aKnownValueInACountBecomesAPredicate() throws {
    let plan = try read("How many waterfall trails are there?")
    #expect(plan.dsl == #"search contentType == "trail" && keywords == "waterfall"cd | count"#)
    let ids = try PlannerSupport.ids(plan.itemsDSL)
    #expect(!ids.isEmpty && ids.allSatisfy { $0.hasPrefix("trail-") })
  }

  @Test func aFirstNameResolvesToThePersonItStarts() throws {
    let index = try Self.domains()
    let planner = try BuiltinPlanner(index: index, clock: SampleIndex.clock)
    let plan = try planner.plan("Which recipes did Mara write?")
    #expect(plan.dsl.contains(#"people "Mara Keller" role from"#), "\(plan.dsl)")
    #expect(try Set(PlannerSupport.ids(plan.dsl, on: index)) == ["r1", "r2"])
  }

  // MARK: Ranking

  @Test func aWordWithDigitsWeighsLikeAWord() throws {
    // A word of letters is searched in every form (one term), an identifier with digits as
    // written (one term): both at the same weight.
    let plan = try read("Q3 budget review follow-ups")
    #expect(plan.dsl.contains(#""q3" || "#) || plan.dsl.hasSuffix(#" || "q3" | top 10"#), "\(plan.dsl)")
    #expect(!plan.dsl.contains(#""q3"^"#) && plan.dsl.contains(#""follow"s ||"#), "\(plan.dsl)")
    // "budget" and "review" are one-word known keywords of the samples: they weigh double.
    #expect(plan.dsl.contains(#""budget"s^2"#), "\(plan.dsl)")
    #expect(SyntaxPrinter.text(PlanBuilder.rankedText("ccl19", boost: 0.5)) == #""ccl19"^1"#)
    #expect(SyntaxPrinter.text(PlanBuilder.rankedText("\u{1}budget", boost: 0.5)) == #""budget"s^1"#)
  }

  /// One item with the question's word as written once, one with other forms of it twice,
  /// and filler: only the first has the written form.
  static func wordForms() throws -> SearchIndex {
    let index = try SearchIndex(path: TemporaryFiles.database("planner-word-forms"))
    func item(_ id: String, _ text: String) -> SearchableItem {
      SearchableItem(uniqueIdentifier: id, domainIdentifier: "notes", attributeSet: AttributeSet([("title", .string("Quarterly report")), ("textContent", .string(text))]))
    }
    var items = [
      item("written", "The rocket launches from the coast on a clear morning after the weather review."),
      item("other", "The rocket launched and launched again: two launching windows."),
    ]
    for n in 0..<8 { items.append(item("filler\(n)", "Filler text number \(n) about the coast and the weather.")) }
    try index.indexSearchableItems(items)
    return index
  }

  @Test func theFormAsWrittenEarnsNothingExtra() throws {
    // Every form of a word is one term: the item that uses the word's family more, in a
    // shorter text, ranks first, whichever form it uses. Asking for the written form beside
    // it (the planner's spelling before) counted the rarer written form twice.
    let index = try Self.wordForms()
    let plan = try BuiltinPlanner(index: index, clock: SampleIndex.clock).plan("launches")
    #expect(plan.dsl == #"search "launches"s | top 10"#)
    #expect(try PlannerSupport.ids(plan.dsl, on: index).prefix(2) == ["other", "written"])
    #expect(try PlannerSupport.ids(#"search "launches" || "launches"s | top 10"#, on: index).prefix(2) == ["written", "other"])
  }

  @Test func feedbackKeepsTheRarestQuestionTermsAtLeastAsHeavyAsAddedWords() throws {
    let feedback = RelevanceFeedback(documents: 3, terms: 5, questionWeight: 0.3, minimumQuestionTerms: 1)
    // The items are all about moraines; the question's rarest word is in none of them, so
    // plain RM3 would give it a fraction of the weight of "moraine".
    let evidence = [RelevanceFeedback.Evidence(texts: ["moraine moraine moraine moraine glacier boulder"], relevance: 2)]
    let terms = feedback.expand(["\u{1}glacier", "\u{1}zyzzyva"], evidence: evidence, rarity: ["\u{1}glacier": 1, "\u{1}zyzzyva": 5])
    let rare = try #require(terms.first { $0.term == "\u{1}zyzzyva" })
    let added = try #require(terms.filter(\.added).map(\.weight).max())
    #expect(terms.contains { $0.added && $0.term == "\u{1}moraine" })
    #expect(rare.weight >= added, "\(terms)")
  }

  /// A package with a title and a text.
  static func package(_ id: String, _ title: String, _ text: String) -> SearchableItem {
    SearchableItem(uniqueIdentifier: id, domainIdentifier: "packages", attributeSet: AttributeSet([("title", .string(title)), ("textContent", .string(text))]))
  }

  /// A package named git and packages that mention git far more.
  static func packages() throws -> SearchIndex {
    let index = try SearchIndex(path: TemporaryFiles.database("planner-known-item"))
    var items = [package("git", "git", "Distributed version control system.")]
    for n in 0..<6 { items.append(package("ext\(n)", "Git extension \(n)", "Adds git commands: git git git, for git repositories.")) }
    try index.indexSearchableItems(items)
    return index
  }

  @Test func anExactTitleRanksFirst() throws {
    let index = try Self.packages()
    #expect(try PlannerSupport.ids(#"search "git" || "git"s | top 10"#, on: index).first != "git", "without the boost it is not first")
    let planner = try BuiltinPlanner(index: index, clock: SampleIndex.clock)
    for question in ["git", "Git", "\"git\""] {
      let plan = try planner.plan(question)
      #expect(try PlannerSupport.ids(plan.dsl, on: index).first == "git", "\(question): \(plan.dsl)")
    }
    #expect(try planner.plan("git").notes.contains { $0.contains("known item") })
  }

  /// The titled item ranks first even when its own name ranks it past the first 1000 of the
  /// search (the package python3 among the thousands that depend on it).
  @Test func anExactTitleRanksFirstFromBeyondTheFirstThousand() throws {
    let index = try SearchIndex(path: TemporaryFiles.database("planner-known-item-far"))
    var items = [Self.package("kit", "kit", "A toolbox for builders, with a long description of what it holds and does.")]
    for n in 0..<1_100 { items.append(Self.package("kit-\(n)", "kit \(n)", "kit kit kit, an add-on for kit \(n)")) }
    try index.indexSearchableItems(items)
    let ranked = try PlannerSupport.ids(#"search "kit"s | top 1000"#, on: index)
    #expect(ranked.count == 1_000 && !ranked.contains("kit"), "the item is past the first 1000 of its own name")
    let plan = try BuiltinPlanner(index: index, clock: SampleIndex.clock).plan("kit")
    #expect(try PlannerSupport.ids(plan.dsl, on: index).first == "kit", "\(plan.dsl)")
  }

  // MARK: Spelling

  @Test func aMisspeltWordGetsASuggestionAndTheSearchIsRetried() throws {
    let retried = try read("retrospectve")
    #expect(retried.suggestions.first?.word == "retrospectve")
    #expect(retried.suggestions.first?.alternatives.first == "retrospective")
    #expect(retried.notes.first?.contains("\u{201C}retrospectve\u{201D} -> \u{201C}retrospective\u{201D}") == true, "\(retried.notes)")
    #expect(try PlannerSupport.ids(retried.dsl).first == "note-52")
    // Found something as written: the suggestion is only a note.
    let found = try read("Orion retrospectve")
    #expect(found.suggestions.map(\.word) == ["retrospectve"])
    #expect(found.notes.contains { $0.contains("did you mean \u{201C}retrospective\u{201D}") })
  }

  @Test func suggestionsNeverComeFromHiddenItems() throws {
    let (index, _) = try PlannerFeedbackTests.collection()
    // "zyzzyva" is only in a protected note.
    let hidden = try index.spellingSuggestions(for: "zyzzyvs", scope: AccessScope(now: SampleIndex.now))
    #expect(hidden.isEmpty)
    let allowed = try index.spellingSuggestions(for: "zyzzyvs", scope: AccessScope(now: SampleIndex.now, protectionClasses: ["private"]))
    #expect(allowed.map(\.word) == ["zyzzyva"])
    let planner = try BuiltinPlanner(index: index, clock: SampleIndex.clock)
    let plan = try planner.plan("zyzzyvs")
    #expect(plan.suggestions.isEmpty)
    #expect(!plan.notes.joined().contains("zyzzyva"))
    // Visible words are suggested, the nearest and most frequent first.
    #expect(try index.spellingSuggestions(for: "glaicer", scope: AccessScope(now: SampleIndex.now)).first?.word == "glacier")
  }
}
