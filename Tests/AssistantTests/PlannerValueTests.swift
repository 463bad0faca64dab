import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Testing

/// Values the index knows, and content types.
@Suite struct PlannerValueTests {
  func plan(_ question: String) throws -> PlannedQuery { try PlannerSupport.plan(question) }

  @Test func placesAfterInBecomeFilters() throws {
    let plan = try plan("how many hikes did I complete in California this year")
    #expect(plan.dsl == #"search contentType == "trail" && stateOrProvince == "California"cd && completionDate == $time.this_year | count"#)
    #expect(plan.intent == .count)
    #expect(plan.notes.contains("\u{201C}in California\u{201D} -> stateOrProvince == \"California\"cd"))
    #expect(plan.notes.contains("\u{201C}hikes\u{201D} -> contentType == \"trail\""))
    #expect(try PlannerSupport.count(plan.dsl) == 5)
    #expect(try Set(PlannerSupport.ids(plan.itemsDSL)) == ["trail-3", "trail-7", "trail-8", "trail-11", "trail-12"])
  }

  @Test func valuesMatchWithoutDiacriticsAndInAnyCase() throws {
    #expect(try plan("trails in zurich").dsl.contains(#"stateOrProvince == "Zürich"cd"#))
    #expect(try plan("hikes in QUEBEC").dsl.contains(#"stateOrProvince == "Québec"cd"#))
    #expect(try plan("trails in Glacier National Park").dsl.contains(#"namedLocation == "Glacier National Park"cd"#))
    #expect(try plan("Which hikes did I do in Switzerland?").dsl.contains(#"country == "Switzerland"cd"#))
  }

  @Test func peopleNeedARoleWord() throws {
    let from = try plan("emails from Tom Becker since June")
    #expect(from.dsl == #"search contentType == "email" && contentModificationDate >= $time.iso(2026-06-01) | people "Tom Becker" role from | sort contentModificationDate desc"#)
    #expect(try PlannerSupport.ids(from.dsl) == ["mail-45", "mail-37"])
    // (No note is by Sam Ortiz, so the planner would search the words: see PlannerReadingTests.)
    #expect(try PlannerSupport.structuredPlanner.plan("notes by Sam Ortiz").dsl.contains(#"people "Sam Ortiz" role from"#))
    #expect(try plan("emails to Sam Ortiz").dsl.contains(#"people "Sam Ortiz" role to"#))
    #expect(try plan("emails with Lena Novak").dsl.contains(#"people "Lena Novak""#))
    // Without one, a name is searched as text: the note about Rahul is not addressed to him.
    let rahul = try plan("When does Rahul Mehta start?")
    #expect(!rahul.dsl.contains("people"))
    #expect(rahul.dsl.contains(#""rahul"s"#) && rahul.dsl.contains(#""mehta"s"#))
    #expect(rahul.notes.contains { $0.contains("known recipientNames value; searched as text") })
    // Several people: any of them.
    #expect(try plan("emails from Sam Ortiz and Lena Novak").dsl.contains(
      #"where authorNames == "Sam Ortiz"cdw || authorNames == "Lena Novak"cdw"#))
  }

  @Test func tagsProjectsAndCategories() throws {
    let tagged = try plan("trails under 5 km tagged waterfall")
    #expect(tagged.dsl == #"search contentType == "trail" && keywords == "waterfall"cd && distance < 5 | sort distance asc"#)
    let ids = try PlannerSupport.ids(tagged.dsl)
    #expect(!ids.isEmpty && ids.allSatisfy { $0.hasPrefix("trail-") })
    #expect(try plan("how many notes in the Orion launch project").dsl.contains(#"projects == "Orion launch"cd"#))
    // A value of an attribute the named type carries: "hard trails".
    #expect(try plan("average distance of hard trails").dsl == #"search contentType == "trail" && difficulty == "hard"cd | stats avg(distance)"#)
    // Without a cue, tags and projects rank as text.
    let orion = try plan("When is the Orion launch?")
    #expect(!orion.dsl.contains("projects =="))
    #expect(orion.intent == .search)
  }

  @Test func placesWithoutCueOrOutsideTheTypeAreText() throws {
    // "to Zürich": a trip, not trails in the canton.
    let flight = try plan("What is my flight number to Zürich?")
    #expect(!flight.dsl.contains("stateOrProvince"))
    #expect(flight.dsl.contains(#""zurich"s"#))
    // "in" a place, but other words to search: the place ranks as text.
    #expect(!(try plan("what did we eat in Zürich").dsl.contains("stateOrProvince")))
  }

  @Test func contentTypes() throws {
    #expect(try plan("Which notes or emails did I change yesterday?").dsl.contains(#"(contentType == "note" || contentType == "email")"#))
    #expect(try plan("work notes from last week").dsl.contains(#"contentType == "note" && domainIdentifier == "notes.work""#))
    // A singular type word in passing does not restrict: the trail club's hike is an email.
    let hike = try plan("When and where is the trail club's December hike?")
    #expect(!hike.dsl.contains("contentType"))
    #expect(try PlannerSupport.ids(hike.dsl).prefix(10).contains("mail-62"))
    #expect(try plan("the longest trail").dsl.contains(#"contentType == "trail""#))
  }

  @Test func protectedValuesShapeNoPlan() throws {
    // "taxes" is a tag only on an item of the finance class.
    #expect(!(try plan("notes tagged taxes").dsl.contains("keywords ==")))
    let finance = try BuiltinPlanner(
      index: SampleIndex.shared, clock: SampleIndex.clock, scope: AccessScope(now: SampleIndex.now, protectionClasses: ["finance"]))
    #expect(try finance.plan("notes tagged taxes").dsl.contains(#"keywords == "taxes"cd"#))
  }

  /// The vocabulary is cached per scope (in memory and in the index file): a granted scope
  /// reading it first leaves nothing for a scope without the grant, in this process or the
  /// next.
  @Test func aGrantedScopeReadingFirstLeavesNoTraceInAnothersVocabulary() throws {
    let index = try SampleIndex.make()
    let finance = try BuiltinPlanner(
      index: index, clock: SampleIndex.clock, scope: AccessScope(now: SampleIndex.now, protectionClasses: ["finance"]))
    #expect(try finance.plan("notes tagged taxes").dsl.contains(#"keywords == "taxes"cd"#))
    for reader in [index, try SearchIndex(path: index.path)] {
      let plain = try BuiltinPlanner(index: reader, clock: SampleIndex.clock)
      #expect(!(try plain.plan("notes tagged taxes").dsl.contains("keywords ==")))
    }
  }

  /// "Thanksgiving" is a project the samples know; the question does not say it is a project,
  /// so it stays text, at twice the weight of the question's other words.
  @Test func aOneWordValueTheQuestionNamesWeighsDouble() throws {
    let plan = try PlannerSupport.planner.plan("Where am I spending Thanksgiving this year?")
    #expect(plan.dsl.contains(#""thanksgiving"s^2"#) && plan.dsl.contains(#""spending"s ||"#), "\(plan.dsl)")
    let thanksgiving: Set = ["mail-54", "note-64", "mail-65"]
    #expect(try PlannerSupport.ids(plan.dsl).prefix(3).allSatisfy(thanksgiving.contains), "\(plan.dsl)")
    // At the same weight as "spending", the budget notes about spending come first.
    let even = plan.dsl.replacingOccurrences(of: #""thanksgiving"s^2"#, with: #""thanksgiving"s"#)
    #expect(try !thanksgiving.contains(PlannerSupport.ids(even).first ?? ""), "\(even)")
  }

  /// The words of a longer value ("trail club") keep their weight: "trail" is in every trail.
  @Test func aLongerValuesWordsKeepTheirWeight() throws {
    let plan = try PlannerSupport.planner.plan("When and where is the trail club's December hike?")
    #expect(plan.notes.contains { $0.contains("known projects value") }, "\(plan.notes)")
    #expect(!plan.dsl.contains("^"), "\(plan.dsl)")
    #expect(try PlannerSupport.ids(plan.dsl).first == "mail-62", "\(plan.dsl)")
  }
}
