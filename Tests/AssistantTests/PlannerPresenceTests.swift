import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Testing

/// "Notes with no keywords", "packages without a homepage": items that lack an attribute,
/// the language's absence test (`keywords != "*"`).
@Suite struct PlannerPresenceTests {
  @Test func noOrWithoutBeforeAnAttributeAsksForItemsThatLackIt() throws {
    let plan = try PlannerSupport.plan("notes with no keywords")
    #expect(plan.dsl == #"search contentType == "note" && keywords != "*" | sort contentModificationDate desc"#, "\(plan.dsl)")
    #expect(plan.notes.contains("\u{201C}no keywords\u{201D} -> keywords != \"*\""), "\(plan.notes)")
    let ids = try PlannerSupport.ids(plan.dsl)
    let all = try PlannerSupport.ids(#"search contentType == "note" | limit 1000"#)
    let tagged = try PlannerSupport.ids(#"search contentType == "note" && keywords == "*" | limit 1000"#)
    #expect(!ids.isEmpty && Set(ids) == Set(all).subtracting(tagged))
    #expect(try PlannerSupport.plan("how many notes are without any keywords").dsl
      == #"search contentType == "note" && keywords != "*" | count"#)
    // A word for items in general names every item such a phrase filters.
    #expect(try PlannerSupport.plan("files without keywords").dsl == #"search keywords != "*" | sort contentModificationDate desc"#)
  }

  /// Finding none is the answer, not a misreading: every trail has a rating, so the plan keeps
  /// its filters and finds nothing rather than searching the word "rating".
  @Test func findingNoneIsTheAnswer() throws {
    let plan = try PlannerSupport.plan("trails without a rating")
    #expect(plan.dsl == #"search contentType == "trail" && (rating != "*" || rating == 0) | sort contentModificationDate desc"#, "\(plan.dsl)")
    #expect(try PlannerSupport.ids(plan.dsl).isEmpty)
  }

  /// "No elevation gain" on a number is a gain of 0 as much as none recorded.
  @Test func noNumberIsZeroOrAbsent() throws {
    let plan = try PlannerSupport.plan("notes with no priority")
    #expect(plan.dsl == #"search contentType == "note" && (priority != "*" || priority == 0) | sort contentModificationDate desc"#, "\(plan.dsl)")
    let ids = Set(try PlannerSupport.ids(plan.dsl))
    let prioritised = Set(try PlannerSupport.ids(#"search contentType == "note" && priority > 0 | limit 1000"#))
    #expect(!ids.isEmpty && ids.isDisjoint(with: prioritised))
  }

  /// "No" before a word that names no attribute is an ordinary word.
  @Test func noBeforeOtherWordsIsAWord() throws {
    #expect(!(try PlannerSupport.plan("notes with no budget").dsl.contains("!= \"*\"")))
    #expect(!(try PlannerSupport.plan("hikes with no crowds").dsl.contains("!= \"*\"")))
  }
}
