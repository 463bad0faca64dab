@testable import Assistant
import Foundation
import QueryEngine
import SearchlightTestSupport
import Testing

/// Counting, grouping, statistics and superlatives.
@Suite struct PlannerAnswerShapeTests {
  func plan(_ question: String) throws -> PlannedQuery { try PlannerSupport.plan(question) }

  @Test func counting() throws {
    let plan = try plan("how many emails from Tom Becker")
    #expect(plan.dsl == #"search contentType == "email" | people "Tom Becker" role from | count"#)
    #expect(plan.evidenceDSL == #"search contentType == "email" | people "Tom Becker" role from"#)
    #expect(try PlannerSupport.count(plan.dsl) == PlannerSupport.ids(plan.itemsDSL).count)
    #expect(try self.plan("number of trails in Utah").dsl.hasSuffix("| count"))
  }

  @Test func groupingByAttribute() throws {
    let plan = try plan("how many trails per state")
    #expect(plan.dsl == #"search contentType == "trail" | group by stateOrProvince | count"#)
    #expect(plan.intent == .groupCount(attribute: "stateOrProvince", period: nil))
    let table = try PlannerSupport.replies(plan.dsl).compactMap { reply -> Table? in
      if case .table(let table) = reply.content { return table }
      return nil
    }.first
    #expect(table?.rows.first == [.string("California"), .number(12)])
    #expect(try self.plan("number of notes for each project").dsl.hasSuffix("| group by projects | count"))
    #expect(try self.plan("average rating by difficulty").dsl == "search * | stats avg(rating) by difficulty")
  }

  @Test func groupingByCalendarPeriods() throws {
    let plan = try plan("how many emails per month")
    #expect(plan.intent == .groupCount(attribute: "contentModificationDate", period: "month"))
    #expect(plan.dsl.contains(#"(where contentModificationDate == $time.this_month | count as "2026-11")"#))
    #expect(plan.dsl.contains(#"(where contentModificationDate == $time.this_month(-11) | count as "2025-12")"#))
    let counts = try PlannerSupport.replies(plan.dsl).filter { if case .count = $0.content { return true }; return false }
    #expect(counts.count == 12)
    #expect(counts.last?.label == "2026-11")
    // Within a date phrase: the months of 2025.
    let year = try self.plan("notes by month in 2025")
    #expect(year.dsl.contains(#"count as "2025-01")"#) && year.dsl.contains(#"count as "2025-12")"#))
    #expect(!year.dsl.contains(#""2026-"#))
  }

  @Test func statistics() throws {
    let plan = try plan("average distance of hard trails")
    #expect(plan.intent == .statistic(function: "avg", attribute: "distance", by: nil))
    guard case .statistic(let statistic)? = try PlannerSupport.replies(plan.dsl).first?.content, case .number(let value) = statistic.value
    else { Issue.record("no statistic"); return }
    #expect(value > 9)
    #expect(try self.plan("total elevation gain of hikes I completed in 2025").dsl.contains("| stats sum(elevationGain)"))
    #expect(try self.plan("how many km did I hike this year").dsl.hasSuffix("| stats sum(distance)"))
  }

  @Test func superlatives() throws {
    let longest = try plan("What is the longest trail in Utah?")
    #expect(longest.dsl == #"search contentType == "trail" && stateOrProvince == "Utah"cd | sort distance desc | limit 1"#)
    #expect(try PlannerSupport.ids(longest.dsl) == ["trail-38"])
    let best = try plan("highest rated trail")
    #expect(best.dsl == #"search contentType == "trail" | sort rating desc | limit 1"#)
    #expect(best.intent == .superlative(attribute: "rating", descending: true, limit: 1))
    #expect(try PlannerSupport.replies(best.dsl).first?.content.resultItems.first?.item.attributeSet["title"]?.stringValue == "Grinnell Glacier")
    #expect(try plan("3 shortest hikes in Colorado").dsl.hasSuffix("| sort distance asc | limit 3"))
    #expect(try plan("highest rated trails").dsl.hasSuffix("| sort rating desc | limit 10"))
    #expect(try plan("most recent email from Sam Ortiz").dsl.hasSuffix("| sort contentModificationDate desc | limit 1"))
    #expect(try plan("steepest hike").dsl.hasSuffix("| sort elevationGain desc | limit 1"))
    #expect(try plan("best trails in Oregon").dsl.hasSuffix("| sort rating desc | limit 10"))
    // A plural subject asks for several too; a singular one for one.
    #expect(try plan("which trails are the longest").dsl.hasSuffix("| sort distance desc | limit 10"))
    #expect(try plan("which notes were changed most recently").dsl.hasSuffix("| sort contentModificationDate desc | limit 10"))
    #expect(try plan("which trail is the longest").dsl.hasSuffix("| sort distance desc | limit 1"))
  }

  /// "The latest version of X" asks for the newest version of X, which the samples' dates do
  /// not order (they have no `version`): the newest item that mentions the words is not it.
  @Test func aLatestVersionIsNotTheNewestItem() throws {
    for question in ["what changed in the latest venue contract version", "the newest release of the trail guide"] {
      let plan = try plan(question)
      #expect(!plan.dsl.contains("sort"), "\(question): \(plan.dsl)")
      #expect(plan.intent == .search, "\(question)")
      #expect(plan.notes.contains { $0.contains("not an item's date: relevance order") }, "\(plan.notes)")
    }
    #expect(try plan("the latest venue contract note").dsl.hasSuffix("| sort contentModificationDate desc | limit 1"))
  }

  /// A verb naming the modification date is searched as a word when no date, order, count or
  /// period uses it; where one does, it stays a cue and out of the words.
  @Test func anUnusedDateVerbIsSearched() throws {
    let changes = try plan("which notes mention changes to the budget")
    #expect(changes.dsl.contains(#""changes"s"#), "\(changes.dsl)")
    #expect(changes.notes.allSatisfy { !$0.contains("contentModificationDate") }, "\(changes.notes)")
    let counted = try plan("how many notes changed")
    #expect(counted.dsl == #"search contentType == "note" | count"#)
    let dated = try plan("notes changed last week")
    #expect(!dated.dsl.contains(#""changed""#) && dated.dsl.contains("contentModificationDate == $time.last_week"), "\(dated.dsl)")
    #expect(try plan("what did I change").dsl == "search * | sort contentModificationDate desc | limit 10")
  }

  /// A creation verb names its date beside a date order too: "when was the earliest note
  /// created" orders the notes by their creation, not by their last change with "created"
  /// searched (which found no note, and fell back to every item).
  @Test func aCreationVerbNamesTheDateOfASuperlative() throws {
    #expect(try plan("when was the earliest note created").dsl == #"search contentType == "note" | sort contentCreationDate asc | limit 1"#)
    let added = try plan("the newest trail added")
    #expect(added.dsl == #"search contentType == "trail" | sort contentCreationDate desc | limit 1"#, "\(added.dsl)")
    // A plural before the verb asks for several.
    let several = try plan("the newest trails added")
    #expect(several.dsl == #"search contentType == "trail" | sort contentCreationDate desc | limit 10"#, "\(several.dsl)")
    #expect(!PlanBuilder.isPlural("status") && !PlanBuilder.isPlural("analysis") && !PlanBuilder.isPlural("class"))
    #expect(PlanBuilder.isPlural("trails") && PlanBuilder.isPlural("packages"))
    // Without a date or a date order it is a word searched.
    #expect(try plan("notes about the created tasks").dsl.contains(#""created"s"#))
  }

  /// The collection named in "None of your … match" is said in the plural.
  @Test func collectionsAreSaidInThePlural() {
    #expect(BuiltinPlanner.collectionPhrase(["note"]) == "notes")
    #expect(BuiltinPlanner.collectionPhrase(["emails"]) == "emails")
    #expect(BuiltinPlanner.collectionPhrase(["library", "inbox", "day"]) == "libraries or inboxes or days")
    #expect(BuiltinPlanner.collectionPhrase([]) == nil)
  }

  /// The first table a query replies with.
  func table(_ query: String) throws -> Table? {
    try PlannerSupport.replies(query).compactMap { reply -> Table? in
      if case .table(let table) = reply.content { return table }
      return nil
    }.first
  }

  /// "Which state has the most trails": the groups ranked by how many items they hold or by
  /// a statistic, the first one or as many as asked for. A count needs a collection after
  /// "most"; the mean is taken before a plural or "on average", the largest value before a
  /// singular.
  @Test func rankedGroups() throws {
    let most = try plan("which state has the most trails")
    #expect(most.dsl == #"search contentType == "trail" | group by stateOrProvince | count | sort count desc | limit 1"#)
    #expect(most.intent == .groupCount(attribute: "stateOrProvince", period: nil))
    #expect(most.evidenceDSL == #"search contentType == "trail""#)
    #expect(try table(most.dsl)?.rows == [[.string("California"), .number(12)]])
    let three = try plan("Which 3 states have the most trails?")
    #expect(three.dsl.hasSuffix("| group by stateOrProvince | count | sort count desc | limit 3"))
    #expect(try table(three.dsl)?.rows.count == 3)
    #expect(try plan("which state has the fewest trails").dsl.hasSuffix("| sort count asc | limit 1"))
    #expect(try plan("which author wrote the most emails").dsl
      == #"search contentType == "email" | group by authorNames | count | sort count desc | limit 1"#)

    let average = try plan("which state has the longest trails on average")
    #expect(average.dsl == #"search contentType == "trail" | stats avg(distance) by stateOrProvince | sort avg(distance) desc | limit 1"#)
    #expect(average.intent == .statistic(function: "avg", attribute: "distance", by: "stateOrProvince"))
    let averages = try #require(try table(#"search contentType == "trail" | stats avg(distance) by stateOrProvince"#))
    let best = averages.rows.max { a, b in (a[1].number ?? 0) < (b[1].number ?? 0) }
    #expect(try table(average.dsl)?.rows == best.map { [$0] })
    #expect(try plan("what state has the longest trail").dsl.hasSuffix("| stats max(distance) by stateOrProvince | sort max(distance) desc | limit 1"))
    #expect(try plan("which difficulty has the highest average rating").dsl.hasSuffix("| stats avg(rating) by difficulty | sort avg(rating) desc | limit 1"))
    #expect(try plan("which difficulty has the highest rated trails").dsl.hasSuffix("| stats avg(rating) by difficulty | sort avg(rating) desc | limit 1"))

    // "most" before words that name no collection: the question's words.
    #expect(try plan("which state has the most beautiful sunsets").intent == .search)
  }

  /// "Largest" and "smallest" with no attribute after them order by size (`fileSize`, or the
  /// one numeric attribute named "…size"), but not before a content type whose items may have
  /// no size.
  @Test func sizeSuperlatives() throws {
    let smallest = try plan("show me the 3 smallest")
    #expect(smallest.dsl == "search * | sort fileSize asc | limit 3")
    let items = try PlannerSupport.replies(smallest.dsl).flatMap(\.content.resultItems)
    #expect(items.count == 3 && items.allSatisfy { $0.item.attributeSet["fileSize"] != nil })
    #expect(try plan("what is the largest file").dsl == "search * | sort fileSize desc | limit 1")
    // The noun of the phrase after a superlative decides how many: "files" asks for several.
    #expect(try plan("the largest text files").dsl.hasSuffix("| sort fileSize desc | limit 10"))
    #expect(try plan("the longest trail in California").dsl.hasSuffix("| sort distance desc | limit 1"))
    #expect(!(try plan("largest trails").dsl.contains("fileSize")))
    // A word for items in general names every item when the question orders, counts, groups
    // or dates them; elsewhere it is a word to search for.
    #expect(try plan("the largest files").dsl == "search * | sort fileSize desc | limit 10")
    #expect(try plan("how many records per state").dsl == "search * | group by stateOrProvince | count")
    #expect(try plan("files modified in 2025").dsl.hasPrefix("search contentModificationDate >= $time.iso(2025-01-01) && contentModificationDate < $time.iso(2026-01-01) |"))
    #expect(try plan("how do I copy files").dsl.contains(#""files"s"#))
  }

  /// "What is the distance of the Mist Trail": the items the rest of the question names (a
  /// known item first), those of their first three with the attribute as a table of title and it,
  /// the items as evidence. Statistics ("the average distance of trails") and groups stay
  /// what they were.
  @Test func attributeQuestions() throws {
    let distance = try plan("What is the distance of the Mist Trail?")
    #expect(distance.dsl.hasSuffix(#"| limit 3 | where distance == "*" | table title, distance"#), "\(distance.dsl)")
    #expect(distance.evidenceDSL.map { !$0.contains("table") } == true)
    #expect(try table(distance.dsl)?.rows.first == [.string("Mist Trail"), .number(11.3)])
    // Of the first three, only those with a distance: the two notes that mention a trail had blanks.
    #expect(try table(plan("how far is the Mist Trail").dsl)?.rows == [[.string("Mist Trail"), .number(11.3)]])
    #expect(try plan("keywords of the orion retrospective").dsl.hasSuffix("| table title, keywords"))
    #expect(try plan("what is the average distance of trails").intent == .statistic(function: "avg", attribute: "distance", by: nil))
    #expect(try plan("what type of trails are in Utah").dsl.contains("table") == false)
    // What follows the name ("is it open in winter") is said of the item, not its name: the
    // item titled as the words before the verb still ranks first.
    let said = try plan("what is the distance of Mist Trail is it open in winter")
    #expect(said.notes.contains { $0.contains("titled \u{201C}mist trail\u{201D}") }, "\(said.notes)")
    #expect(try table(said.dsl)?.rows.first == [.string("Mist Trail"), .number(11.3)], "\(said.dsl)")
    // A verb after "that" belongs to the name.
    #expect(try plan("what is the distance of the trail that is in Yosemite").notes.allSatisfy { !$0.contains("known item") })
  }

  /// "Who" before a verb asks for the person who did it: "who wrote the Q3 budget review" shows
  /// the authors of the item named, "who sent me the most emails" ranks the senders.
  @Test func whoAsksForThePersonAVerbNames() throws {
    let wrote = try plan("who wrote the Q3 budget review")
    #expect(wrote.dsl.hasSuffix(#"| limit 3 | where authorNames == "*" | table title, authorNames"#), "\(wrote.dsl)")
    let first = try table(wrote.dsl)?.rows.first
    #expect(first?.first == .string("Q3 budget review") && first.map { "\($0[1])" }?.contains("Alex Morgan") == true, "\(String(describing: first))")
    #expect(try plan("who sent me the most emails").dsl == #"search contentType == "email" | group by authorNames | count | sort count desc | limit 1"#)
    #expect(try plan("who received the most emails").dsl.contains("group by recipientNames"))
    // A trail has no author: no table of blanks, the question is read as any other.
    let trail = try plan("who wrote the longest trail in Utah")
    #expect(!trail.dsl.contains("table title, authorNames"), "\(trail.dsl)")
  }

  /// "How long is", "how high is": the measure (a distance, a height, a size) of the items the
  /// rest names, when the first of them has it.
  @Test func howLongAsksForAMeasure() throws {
    let longest = try plan("how long is the longest trail in Utah")
    #expect(longest.dsl == #"search contentType == "trail" && stateOrProvince == "Utah"cd | sort distance desc | limit 1 | where distance == "*" | table title, distance"#, "\(longest.dsl)")
    #expect(try table(longest.dsl)?.rows.first == [.string("The Narrows (bottom-up)"), .number(15)])
    #expect(try table(plan("how high is Angels Landing").dsl)?.rows.first == [.string("Angels Landing"), .number(450)])
    // The flight's first item has no distance: no measure, the words are searched.
    #expect(!(try plan("how long is the flight to Zurich").dsl.contains("table")))
  }

  /// A Boolean attribute's name is a flag: "pinned notes", "notes that are not pinned".
  @Test func flags() throws {
    let pinned = try plan("pinned notes")
    #expect(pinned.dsl == #"search contentType == "note" && pinned == true | sort contentModificationDate desc"#, "\(pinned.dsl)")
    let ids = try PlannerSupport.ids(pinned.dsl)
    let every = Set(try PlannerSupport.ids(#"search pinned == true | limit 1000"#))
    #expect(!ids.isEmpty && Set(ids).isSubset(of: every))
    let unpinned = try plan("notes that are not pinned")
    #expect(unpinned.dsl.contains("pinned != true"), "\(unpinned.dsl)")
    let others = try PlannerSupport.ids(unpinned.dsl)
    #expect(!others.isEmpty && Set(others).isDisjoint(with: every))
    #expect(try plan("notes about the budget that are pinned").dsl.hasPrefix(#"search contentType == "note" && pinned == true && "budget""#))
  }

  /// "top" before a number and a superlative says no more than the number.
  @Test func topBeforeASuperlative() throws {
    #expect(try plan("top 3 longest trails in California").dsl
      == #"search contentType == "trail" && stateOrProvince == "California"cd | sort distance desc | limit 3"#)
    #expect(try plan("the top five highest rated trails").dsl == #"search contentType == "trail" | sort rating desc | limit 5"#)
  }

  @Test func orderingWords() throws {
    #expect(try plan("trails in Utah sorted by distance").dsl.hasSuffix("| sort distance desc | limit 10"))
    #expect(try plan("trails by rating").dsl.hasSuffix("| sort rating desc | limit 10"))
    // "best" without a content type after it is an ordinary word.
    let way = try plan("what is the best way to feed a sourdough starter")
    #expect(way.intent == .search)
    #expect(!way.dsl.contains("sort"))
  }
}
