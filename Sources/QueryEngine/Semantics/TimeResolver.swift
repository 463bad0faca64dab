import Foundation
import SearchIndex

/// The clock and time zone a query runs with. `$time` values resolve against it, so a fixed
/// `--now` makes date queries reproducible; `TZ` decides where days, weeks and months begin.
public struct QueryClock: Sendable, Hashable {
  public var now: Date
  public var timeZone: TimeZone

  public init(now: Date = Date(), timeZone: TimeZone = .current) {
    self.now = now
    self.timeZone = timeZone
  }

  /// A Gregorian calendar in the clock's zone; weeks start on Monday (ISO 8601).
  public var calendar: Calendar {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    calendar.firstWeekday = 2
    calendar.minimumDaysInFirstWeek = 4
    return calendar
  }
}

/// A resolved `$time` value: an instant (`$time.now`) or a period (`$time.today` is the whole
/// day). Ordering comparisons use the period's start; `==` means "within the period".
public struct TimeValue: Sendable, Hashable {
  public var start: Date
  /// Exclusive end; equal to `start` for an instant.
  public var end: Date

  public var isInstant: Bool { start == end }
}

/// Resolves `$time` functions against a clock.
public enum TimeResolver {
  /// The `$time` functions, each with the unit of its offset.
  public static let functions: [(name: String, unit: String, summary: String)] = [
    ("now", "seconds", "this instant; $time.now(-3600) is an hour ago"),
    ("today", "days", "today (the whole day); $time.today(-7) is the day a week ago"),
    ("yesterday", "days", "yesterday (the whole day)"),
    ("tomorrow", "days", "tomorrow (the whole day)"),
    ("this_week", "weeks", "this calendar week, Monday to Sunday"),
    ("last_week", "weeks", "the previous calendar week"),
    ("next_week", "weeks", "the next calendar week"),
    ("this_month", "months", "this calendar month"),
    ("last_month", "months", "the previous calendar month"),
    ("this_year", "years", "this calendar year"),
    ("last_year", "years", "the previous calendar year"),
    ("iso", "", "an ISO-8601 date or time: $time.iso(2026-10-01T00:00:00Z)"),
  ]

  public static var functionNames: [String] { functions.map(\.name) }

  /// How far from 1970 a resolved date may lie, in seconds (about 100,000 years): further
  /// offsets are rejected rather than overflowing calendar arithmetic or date formatting.
  public static let maximumSeconds: Double = 3.2e12

  /// The value of `$time.function(offset)`; nil for an unknown function or an offset too large
  /// to resolve.
  public static func resolve(function: String, offset: Double?, clock: QueryClock) -> TimeValue? {
    let calendar = clock.calendar
    let unitSeconds: Double = switch function {
    case "now": 1
    case "today", "yesterday", "tomorrow": 86400
    case "this_week", "last_week", "next_week": 604_800
    case "this_month", "last_month": 2_678_400
    default: 31_622_400
    }
    let offsetSeconds = (offset ?? 0) * unitSeconds
    guard offsetSeconds.isFinite, (clock.now.timeIntervalSince1970 + offsetSeconds).magnitude <= maximumSeconds else { return nil }
    let n = Int((offset ?? 0).rounded())
    func period(_ component: Calendar.Component, shift: Int) -> TimeValue? {
      guard let interval = calendar.dateInterval(of: component, for: clock.now),
        let start = calendar.date(byAdding: component == .weekOfYear ? .weekOfYear : component, value: shift, to: interval.start),
        let end = calendar.date(byAdding: component == .weekOfYear ? .weekOfYear : component, value: 1, to: start)
      else { return nil }
      return TimeValue(start: start, end: end)
    }
    switch function {
    case "now":
      let instant = clock.now.addingTimeInterval(offset ?? 0)
      return TimeValue(start: instant, end: instant)
    case "today": return period(.day, shift: n)
    case "yesterday": return period(.day, shift: n - 1)
    case "tomorrow": return period(.day, shift: n + 1)
    case "this_week": return period(.weekOfYear, shift: n)
    case "last_week": return period(.weekOfYear, shift: n - 1)
    case "next_week": return period(.weekOfYear, shift: n + 1)
    case "this_month": return period(.month, shift: n)
    case "last_month": return period(.month, shift: n - 1)
    case "this_year": return period(.year, shift: n)
    case "last_year": return period(.year, shift: n - 1)
    default: return nil
    }
  }

  /// An ISO-8601 text as a value: a date alone is its whole day in the clock's zone; a time
  /// is an instant.
  public static func resolve(iso text: String, clock: QueryClock) -> TimeValue? {
    guard let date = ISO8601.parse(text, defaultZone: clock.timeZone) else { return nil }
    if text.count == 10 {
      let end = clock.calendar.date(byAdding: .day, value: 1, to: date) ?? date.addingTimeInterval(86400)
      return TimeValue(start: date, end: end)
    }
    if text.count == 7 || text.count == 4 { return nil }
    return TimeValue(start: date, end: date)
  }

  /// Seconds since 2001-01-01 UTC (Core Foundation's reference date), the meaning of a bare
  /// number compared with a date attribute.
  public static func referenceDate(seconds: Double) -> TimeValue {
    let date = Date(timeIntervalSinceReferenceDate: seconds)
    return TimeValue(start: date, end: date)
  }
}
