import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex

@Suite struct TimeResolverTests {
  /// `$time.function(offset)` as [start, end).
  func period(_ function: String, _ offset: Double? = nil, clock: QueryClock = sampleClock) -> (Date, Date)? {
    TimeResolver.resolve(function: function, offset: offset, clock: clock).map { ($0.start, $0.end) }
  }

  func expectPeriod(_ function: String, _ offset: Double? = nil, clock: QueryClock = sampleClock, _ start: Date, _ end: Date,
                    sourceLocation: SourceLocation = #_sourceLocation) {
    let resolved = period(function, offset, clock: clock)
    #expect(resolved?.0 == start && resolved?.1 == end,
            "$time.\(function)(\(offset ?? 0)) = \(resolved.map { "\($0.0) ..< \($0.1)" } ?? "nil")", sourceLocation: sourceLocation)
  }

  @Test func nowIsAnInstantWithAnOffsetInSeconds() {
    expectPeriod("now", nil, sampleNow, sampleNow)
    expectPeriod("now", -3600, utc(2026, 11, 29, 11), utc(2026, 11, 29, 11))
    expectPeriod("now", 90, utc(2026, 11, 29, 12, 1, 30), utc(2026, 11, 29, 12, 1, 30))
  }

  @Test func daysWithOffsetsInDays() {
    expectPeriod("today", nil, utc(2026, 11, 29), utc(2026, 11, 30))
    expectPeriod("today", -7, utc(2026, 11, 22), utc(2026, 11, 23))
    expectPeriod("today", 3, utc(2026, 12, 2), utc(2026, 12, 3))
    expectPeriod("yesterday", nil, utc(2026, 11, 28), utc(2026, 11, 29))
    expectPeriod("yesterday", -1, utc(2026, 11, 27), utc(2026, 11, 28))
    expectPeriod("tomorrow", nil, utc(2026, 11, 30), utc(2026, 12, 1))
  }

  @Test func weeksStartOnMondayWithOffsetsInWeeks() {
    // 2026-11-29 is a Sunday: its ISO week is Monday 23 to Sunday 29.
    expectPeriod("this_week", nil, utc(2026, 11, 23), utc(2026, 11, 30))
    expectPeriod("this_week", -1, utc(2026, 11, 16), utc(2026, 11, 23))
    expectPeriod("this_week", 2, utc(2026, 12, 7), utc(2026, 12, 14))
    expectPeriod("last_week", nil, utc(2026, 11, 16), utc(2026, 11, 23))
    expectPeriod("last_week", -1, utc(2026, 11, 9), utc(2026, 11, 16))
    expectPeriod("next_week", nil, utc(2026, 11, 30), utc(2026, 12, 7))
  }

  @Test func monthsWithOffsetsInMonths() {
    expectPeriod("this_month", nil, utc(2026, 11, 1), utc(2026, 12, 1))
    expectPeriod("this_month", -1, utc(2026, 10, 1), utc(2026, 11, 1))
    expectPeriod("this_month", 2, utc(2027, 1, 1), utc(2027, 2, 1))
    expectPeriod("this_month", -11, utc(2025, 12, 1), utc(2026, 1, 1))
    expectPeriod("last_month", nil, utc(2026, 10, 1), utc(2026, 11, 1))
  }

  @Test func yearsWithOffsetsInYears() {
    expectPeriod("this_year", nil, utc(2026, 1, 1), utc(2027, 1, 1))
    expectPeriod("this_year", -1, utc(2025, 1, 1), utc(2026, 1, 1))
    expectPeriod("last_year", nil, utc(2025, 1, 1), utc(2026, 1, 1))
    expectPeriod("last_year", -2, utc(2023, 1, 1), utc(2024, 1, 1))
  }

  @Test func unknownFunctionsResolveToNothing() {
    #expect(period("fortnight") == nil)
    #expect(period("") == nil)
  }

  @Test func everyDocumentedFunctionResolves() {
    for function in TimeResolver.functionNames where function != "iso" {
      #expect(period(function) != nil, "\(function)")
    }
    for function in ["now", "today", "yesterday", "this_week", "last_week", "this_month", "this_year"] {
      #expect(TimeResolver.functionNames.contains(function))
    }
  }

  // MARK: Time zones

  @Test func periodsBeginAtMidnightInTheClockZone() {
    let clock = QueryClock(now: sampleNow, timeZone: pacific)
    // Noon UTC is 04:00 in Los Angeles, still the 29th.
    expectPeriod("today", nil, clock: clock, date(2026, 11, 29, zone: pacific), date(2026, 11, 30, zone: pacific))
    expectPeriod("today", nil, clock: clock, utc(2026, 11, 29, 8), utc(2026, 11, 30, 8))
    expectPeriod("this_week", nil, clock: clock, utc(2026, 11, 23, 8), utc(2026, 11, 30, 8))
    // November begins in daylight time (UTC-7) and December in standard time (UTC-8).
    expectPeriod("this_month", nil, clock: clock, utc(2026, 11, 1, 7), utc(2026, 12, 1, 8))
    expectPeriod("this_year", nil, clock: clock, utc(2026, 1, 1, 8), utc(2027, 1, 1, 8))
    expectPeriod("now", -60, clock: clock, utc(2026, 11, 29, 11, 59), utc(2026, 11, 29, 11, 59))
  }

  @Test func theClockZoneDecidesWhichDayItIs() {
    // 03:00 UTC on the 29th is still the 28th in Los Angeles and already noon in Tokyo.
    let early = utc(2026, 11, 29, 3)
    expectPeriod("today", nil, clock: QueryClock(now: early, timeZone: pacific), date(2026, 11, 28, zone: pacific), date(2026, 11, 29, zone: pacific))
    expectPeriod("yesterday", nil, clock: QueryClock(now: early, timeZone: pacific), date(2026, 11, 27, zone: pacific), date(2026, 11, 28, zone: pacific))
    expectPeriod("today", nil, clock: QueryClock(now: early, timeZone: tokyo), utc(2026, 11, 28, 15), utc(2026, 11, 29, 15))
    expectPeriod("today", nil, clock: QueryClock(now: early, timeZone: utcZone), utc(2026, 11, 29), utc(2026, 11, 30))
  }

  @Test func aWeekInAnotherZoneStartsOnThatZonesMonday() {
    // Monday 2026-11-30 01:00 in Tokyo is still Sunday in UTC.
    let clock = QueryClock(now: utc(2026, 11, 29, 16), timeZone: tokyo)
    expectPeriod("this_week", nil, clock: clock, date(2026, 11, 30, zone: tokyo), date(2026, 12, 7, zone: tokyo))
  }

  // MARK: ISO dates and reference seconds

  @Test func anISODateIsAWholeDayInTheClockZone() throws {
    let day = try #require(TimeResolver.resolve(iso: "2026-10-01", clock: sampleClock))
    #expect(day.start == utc(2026, 10, 1) && day.end == utc(2026, 10, 2))
    let pacificDay = try #require(TimeResolver.resolve(iso: "2026-10-01", clock: QueryClock(now: sampleNow, timeZone: pacific)))
    #expect(pacificDay.start == utc(2026, 10, 1, 7) && pacificDay.end == utc(2026, 10, 2, 7))
  }

  @Test func anISOTimeIsAnInstant() throws {
    let instant = try #require(TimeResolver.resolve(iso: "2026-10-01T08:30:00Z", clock: QueryClock(now: sampleNow, timeZone: pacific)))
    #expect(instant.isInstant)
    #expect(instant.start == utc(2026, 10, 1, 8, 30))
    let offset = try #require(TimeResolver.resolve(iso: "2026-10-01T08:30:00+02:00", clock: sampleClock))
    #expect(offset.start == utc(2026, 10, 1, 6, 30))
  }

  @Test(arguments: ["2026-13-45", "soon", "", "2026-10", "2026"])
  func invalidISOTextIsRejected(text: String) {
    #expect(TimeResolver.resolve(iso: text, clock: sampleClock) == nil)
  }

  @Test func bareNumbersAreSecondsSince2001() {
    #expect(TimeResolver.referenceDate(seconds: 0).start == utc(2001, 1, 1))
    #expect(TimeResolver.referenceDate(seconds: 86400).start == utc(2001, 1, 2))
    #expect(TimeResolver.referenceDate(seconds: 817_300_800).start == utc(2026, 11, 25, 12))
  }
}
