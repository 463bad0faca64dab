import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Testing

/// Date phrases against the samples' fixed clock: Sunday 2026-11-29 12:00 UTC. Weeks start on
/// Monday, so "last week" is Monday 16 to Sunday 22 November.
@Suite struct PlannerDateTests {
  /// How the date phrases read (some dates below match no sample item, which the planner
  /// would answer with the words instead: `PlannerReadingTests`).
  func plan(_ question: String) throws -> PlannedQuery { try PlannerSupport.structuredPlanner.plan(question) }

  @Test func yesterdayAndToday() throws {
    let plan = try plan("what changed yesterday")
    #expect(plan.dsl == "search contentModificationDate == $time.yesterday | sort contentModificationDate desc")
    #expect(plan.notes.contains("\u{201C}yesterday\u{201D} -> contentModificationDate in [2026-11-28, 2026-11-29)"))
    #expect(plan.intent == .list)
    #expect(try self.plan("notes changed today").dsl.contains("contentModificationDate == $time.today"))
  }

  @Test func calendarWeeksMonthsAndYears() throws {
    let lastWeek = try plan("notes from last week")
    #expect(lastWeek.dsl == #"search contentType == "note" && contentModificationDate == $time.last_week | sort contentModificationDate desc"#)
    #expect(lastWeek.notes.contains("\u{201C}from last week\u{201D} -> contentModificationDate in [2026-11-16, 2026-11-23)"))
    #expect(try plan("emails this week").notes.contains("\u{201C}this week\u{201D} -> contentModificationDate in [2026-11-23, 2026-11-30)"))
    #expect(try plan("notes from last month").dsl.contains("contentModificationDate == $time.last_month"))
    #expect(try plan("emails this year").dsl.contains("contentModificationDate == $time.this_year"))
  }

  @Test func rollingWindowsAndAgo() throws {
    let past = try plan("what did I change in the past 7 days")
    #expect(past.dsl == "search contentModificationDate >= $time.today(-7) | sort contentModificationDate desc")
    #expect(past.notes.contains("\u{201C}in the past 7 days\u{201D} -> contentModificationDate >= 2026-11-22"))
    #expect(try plan("notes from the last two weeks").dsl.contains("contentModificationDate >= $time.today(-14)"))
    #expect(try plan("emails from 3 days ago").dsl.contains("contentModificationDate == $time.today(-3)"))
    #expect(try plan("notes from a month ago").dsl.contains("contentModificationDate == $time.this_month(-1)"))
    #expect(try plan("notes from the past 3 months").dsl.contains("contentModificationDate >= $time.iso(2026-08-29)"))
  }

  @Test func absoluteMonthsAndYears() throws {
    let october = try plan("notes in October")
    #expect(october.dsl.contains("contentModificationDate >= $time.iso(2026-10-01) && contentModificationDate < $time.iso(2026-11-01)"))
    #expect(october.notes.contains("\u{201C}in October\u{201D} -> contentModificationDate in [2026-10-01, 2026-11-01)"))
    #expect(try plan("emails in October 2025").dsl.contains("$time.iso(2025-10-01) && contentModificationDate < $time.iso(2025-11-01)"))
    #expect(try plan("emails since June").dsl.contains("contentModificationDate >= $time.iso(2026-06-01)"))
    #expect(try plan("notes before March 2025").dsl.contains("contentModificationDate < $time.iso(2025-03-01)"))
    #expect(try plan("notes after October").dsl.contains("contentModificationDate >= $time.iso(2026-11-01)"))
    #expect(try plan("notes between June and August").dsl.contains(
      "contentModificationDate >= $time.iso(2026-06-01) && contentModificationDate < $time.iso(2026-09-01)"))
    let year = try plan("trails I completed in 2025")
    #expect(year.dsl.contains("completionDate >= $time.iso(2025-01-01) && completionDate < $time.iso(2026-01-01)"))
    #expect(try plan("budget review 2025").dsl.contains("contentModificationDate >= $time.iso(2025-01-01)"))
  }

  @Test func daysAndWeekdays() throws {
    #expect(try plan("notes from October 3").dsl.contains("$time.iso(2026-10-03) && contentModificationDate < $time.iso(2026-10-04)"))
    #expect(try plan("notes from the 3rd of October").dsl.contains("$time.iso(2026-10-03)"))
    #expect(try plan("notes from 2026-11-03").dsl.contains("$time.iso(2026-11-03) && contentModificationDate < $time.iso(2026-11-04)"))
    // Sunday the 29th: Monday was six days ago; "last Sunday" is a week ago.
    #expect(try plan("emails on Monday").dsl.contains("contentModificationDate == $time.today(-6)"))
    #expect(try plan("emails last Sunday").dsl.contains("contentModificationDate == $time.today(-7)"))
    #expect(try plan("notes due next Friday").dsl.contains("dueDate == $time.today(5)"))
  }

  @Test func aYearAfterForIsNotADate() throws {
    let plan = try plan("How much marketing budget did Orion get for 2026?")
    #expect(!plan.dsl.contains("$time"))
    #expect(plan.dsl.contains(#""2026""#))
  }

  @Test func monthsWithoutYearFollowTense() throws {
    // Past tense: the most recent December; otherwise the nearest, which lies ahead.
    #expect(try plan("what did I change in December").dsl.contains("$time.iso(2025-12-01)"))
    let future = try plan("What book is the book club reading in December?")
    #expect(!future.dsl.contains("$time"), "a future month is not when an item changed: it is searched as text")
    #expect(future.dsl.contains(#""december"s"#))
    #expect(future.notes.contains { $0.contains("is in the future") })
    // A due date may lie ahead.
    #expect(try plan("what is due in December").dsl.contains("dueDate >= $time.iso(2026-12-01)"))
  }

  @Test func verbsChooseTheDateAttribute() throws {
    #expect(try plan("hikes completed this year").dsl.contains("completionDate == $time.this_year"))
    #expect(try plan("notes created last week").dsl.contains("contentCreationDate == $time.last_week"))
    #expect(try plan("what is due this week").dsl == "search dueDate == $time.this_week | sort dueDate asc")
  }

  /// The same instant seen from UTC+14: it is already Monday 30 November there, so
  /// "yesterday" is the 29th and "last week" ended on Sunday the 29th.
  @Test func datesResolveInTheClocksTimeZone() throws {
    let kiritimati = try PlannerSupport.planner(timeZone: "Pacific/Kiritimati")
    let yesterday = try kiritimati.plan("what changed yesterday")
    #expect(yesterday.notes.contains("\u{201C}yesterday\u{201D} -> contentModificationDate in [2026-11-29, 2026-11-30)"))
    #expect(try kiritimati.plan("notes from last week").notes.contains(
      "\u{201C}from last week\u{201D} -> contentModificationDate in [2026-11-23, 2026-11-30)"))
    // Executed with that clock, every item changed on the 29th, Kiritimati time.
    let clock = kiritimati.clock
    let start = try #require(ISO8601.parse("2026-11-29T00:00:00+14:00"))
    let end = start.addingTimeInterval(86400)
    let items = try PlannerSupport.replies(yesterday.dsl, clock: clock).flatMap(\.content.resultItems)
    #expect(!items.isEmpty)
    for item in items {
      guard case .date(let date)? = item.item.attributeSet["contentModificationDate"] else {
        Issue.record("no date on \(item.item.uniqueIdentifier)")
        continue
      }
      #expect(date >= start && date < end, "\(item.item.uniqueIdentifier) changed at \(date)")
    }
  }

  @Test func absoluteDatesStartAtLocalMidnight() throws {
    let losAngeles = try PlannerSupport.planner(timeZone: "America/Los_Angeles")
    let plan = try losAngeles.plan("notes in October")
    #expect(plan.notes.contains("\u{201C}in October\u{201D} -> contentModificationDate in [2026-10-01, 2026-11-01)"))
    let start = try #require(ISO8601.parse("2026-10-01T07:00:00Z"))
    let end = try #require(ISO8601.parse("2026-11-01T07:00:00Z"))
    let items = try PlannerSupport.replies(plan.dsl, clock: losAngeles.clock).flatMap(\.content.resultItems)
    #expect(items.count > 5)
    for item in items {
      guard case .date(let date)? = item.item.attributeSet["contentModificationDate"] else { continue }
      #expect(date >= start && date < end)
    }
  }
}
