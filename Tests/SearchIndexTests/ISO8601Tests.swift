import Foundation
import Testing
@testable import SearchIndex

@Suite struct ISO8601Tests {
  static let plusTwo = TimeZone(secondsFromGMT: 2 * 3600)!

  @Test(arguments: [
    ("2026-05-01", utc(2026, 5, 1)),
    ("2026-05-01T08:00", utc(2026, 5, 1, 8)),
    ("2026-05-01T08:00:00", utc(2026, 5, 1, 8)),
    ("2026-05-01T08:00:00Z", utc(2026, 5, 1, 8)),
    ("2026-05-01t08:00:00z", utc(2026, 5, 1, 8)),
    ("2026-05-01 08:00:00Z", utc(2026, 5, 1, 8)),
    ("2026-05-01T08:00Z", utc(2026, 5, 1, 8)),
    ("2026-05-01T23:59:59Z", utc(2026, 5, 1, 23, 59, 59)),
    ("2026-05-01T24:00Z", utc(2026, 5, 2)),
    ("2026-12-31T23:59:59Z", utc(2026, 12, 31, 23, 59, 59)),
    ("1969-07-20T20:17:40Z", utc(1969, 7, 20, 20, 17, 40)),
    ("2024-02-29T12:00:00Z", utc(2024, 2, 29, 12)),
    ("2000-02-29", utc(2000, 2, 29)),
  ])
  func parsesEveryAcceptedForm(_ text: String, _ expected: Date) {
    #expect(ISO8601.parse(text) == expected)
  }

  @Test(arguments: [
    ("2026-05-01T10:00:00+02:00", utc(2026, 5, 1, 8)),
    ("2026-05-01T10:00:00+0200", utc(2026, 5, 1, 8)),
    ("2026-05-01T10:00:00+02", utc(2026, 5, 1, 8)),
    ("2026-05-01T02:30:00-05:30", utc(2026, 5, 1, 8)),
    ("2026-05-01T00:30:00+01:00", utc(2026, 4, 30, 23, 30)),
    ("2026-12-31T22:00:00-03:00", utc(2027, 1, 1, 1)),
  ])
  func appliesExplicitZoneOffsets(_ text: String, _ expected: Date) {
    // The default zone must not matter when the text carries its own.
    #expect(ISO8601.parse(text, defaultZone: Self.plusTwo) == expected)
    #expect(ISO8601.parse(text) == expected)
  }

  @Test func readsTextWithoutAZoneInTheDefaultZone() {
    #expect(ISO8601.parse("2026-05-01T10:00", defaultZone: Self.plusTwo) == utc(2026, 5, 1, 8))
    #expect(ISO8601.parse("2026-05-01", defaultZone: Self.plusTwo) == utc(2026, 4, 30, 22))
    #expect(ISO8601.parse("2026-05-01T10:00") == utc(2026, 5, 1, 10))
  }

  @Test func readsTextWithoutAZoneInANamedZoneWithDaylightSaving() throws {
    let paris = try #require(TimeZone(identifier: "Europe/Paris"))
    #expect(ISO8601.parse("2026-01-15T12:00", defaultZone: paris) == utc(2026, 1, 15, 11))
    #expect(ISO8601.parse("2026-07-15T12:00", defaultZone: paris) == utc(2026, 7, 15, 10))
  }

  @Test func keepsFractionalSeconds() throws {
    let date = try #require(ISO8601.parse("2026-05-01T08:00:00.250Z"))
    #expect(date.timeIntervalSince1970 == utc(2026, 5, 1, 8).timeIntervalSince1970 + 0.25)
    let comma = try #require(ISO8601.parse("2026-05-01T08:00:00,5Z"))
    #expect(comma.timeIntervalSince1970 == utc(2026, 5, 1, 8).timeIntervalSince1970 + 0.5)
  }

  @Test(arguments: [
    "2026-02-30", "2026-02-29", "1900-02-29", "2026-04-31", "2026-06-31", "2026-13-01", "2026-00-10",
    "2026-05-00", "2026-05-32", "2026-05-01T25:00", "2026-05-01T24:01", "2026-05-01T08:60",
    "2026-05-01T08:00:61", "2026-05-01T08:00:00+19:00", "2026-05-01T08:00:00+02:60", "2026-5-1",
    "20260501", "2026/05/01", "2026-05-01T", "2026-05-01T08", "2026-05-01T08:00:00.Z", "2026-05-01Z",
    " 2026-05-01", "2026-05-01 ", "2026-05-01T08:00:00Zjunk", "tomorrow", "",
  ])
  func rejectsInvalidDates(_ text: String) {
    #expect(ISO8601.parse(text) == nil)
  }

  @Test(arguments: [
    (utc(2026, 5, 1, 8), "2026-05-01T08:00:00Z"),
    (utc(1970, 1, 1), "1970-01-01T00:00:00Z"),
    (utc(1969, 12, 31, 23, 59, 59), "1969-12-31T23:59:59Z"),
    (utc(2024, 2, 29, 23, 59, 59), "2024-02-29T23:59:59Z"),
    (utc(2026, 5, 1, 8).addingTimeInterval(0.25), "2026-05-01T08:00:00.250Z"),
    (utc(2026, 5, 1, 8).addingTimeInterval(0.9996), "2026-05-01T08:00:01Z"),
    (Date(timeIntervalSince1970: -0.5), "1969-12-31T23:59:59.500Z"),
    (utc(9999, 12, 31, 23, 59, 59), "9999-12-31T23:59:59Z"),
    // Past four digits of year the general path writes the date.
    (Date(timeIntervalSince1970: 253_402_300_800), "10000-01-01T00:00:00Z"),
  ])
  func formatsInUTCWithMillisecondsOnlyWhenPresent(_ date: Date, _ expected: String) {
    #expect(ISO8601.format(date) == expected)
  }

  @Test func formatsInAZoneWithItsOffset() {
    let date = utc(2026, 5, 1, 8)
    #expect(ISO8601.format(date, in: Self.plusTwo) == "2026-05-01T10:00:00+02:00")
    #expect(ISO8601.format(date, in: TimeZone(secondsFromGMT: -(5 * 3600 + 1800))!) == "2026-05-01T02:30:00-05:30")
    #expect(ISO8601.format(date, in: TimeZone(identifier: "UTC")!) == "2026-05-01T08:00:00Z")
  }

  @Test(arguments: [
    utc(2026, 5, 1, 8), utc(1969, 7, 20, 20, 17, 40), utc(2000, 2, 29), utc(1601, 1, 1), utc(9999, 12, 31, 12),
    utc(2026, 11, 29, 12).addingTimeInterval(0.125),
  ])
  func formattingRoundTripsThroughParsing(_ date: Date) {
    #expect(ISO8601.parse(ISO8601.format(date)) == date)
    #expect(ISO8601.parse(ISO8601.format(date, in: Self.plusTwo)) == date)
  }
}
