import Foundation
import QueryEngine

/// Relative and absolute dates: "yesterday", "last week" (the previous calendar week),
/// "past 7 days", "3 days ago", "on Monday", "in October", "since June", "before March 2025",
/// "between June and August", "on October 3", "2026-11-03", "in 2025". Relative phrases
/// become `$time` values and absolute ones `$time.iso(...)`, both resolved against the
/// planner's clock by `TimeResolver`; the attribute they constrain is chosen when the query is
/// assembled (a verb such as "completed" or "due" names it; else the modification date).
extension PlanBuilder {
  static let months: [String: Int] = [
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4, "may": 5,
    "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9, "sep": 9, "sept": 9,
    "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
  ]
  static let weekdays: [String: Int] = [
    "sunday": 1, "monday": 2, "tuesday": 3, "wednesday": 4, "thursday": 5, "friday": 6, "saturday": 7,
  ]
  static let numberWords: [String: Int] = [
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fourteen": 14, "fifteen": 15, "twenty": 20, "thirty": 30,
    "couple": 2, "few": 3,
  ]

  /// How a date phrase bounds the range it names.
  enum DateRelation {
    /// Within the period.
    case within
    /// From its start on ("since June").
    case since
    /// After it ends ("after June").
    case after
    /// Before it starts ("before June").
    case before
    /// Up to its end ("until June").
    case until

    init?(_ word: String?) {
      switch word {
      case "since": self = .since
      case "after": self = .after
      case "before": self = .before
      case "until", "till", "through", "thru": self = .until
      case "in", "during", "of", "on", "throughout", "from", "over", "within": self = .within
      default: return nil
      }
    }
  }

  mutating func recognizeDatePhrases() {
    var index = 0
    while index < count {
      if isFree(index), let found = datePhrase(at: index) {
        claim(found.span)
        dates.append(found)
        index = found.span.upperBound
      } else {
        index += 1
      }
    }
  }

  /// A whole number from a digit token or a number word.
  func wholeNumber(_ index: Int) -> Int? {
    guard isFree(index) else { return nil }
    if let value = tokens[index].number, value == value.rounded(), value >= 0, value < 10_000 { return Int(value) }
    return Self.numberWords[tokens[index].word]
  }

  /// The date phrase starting at `index`, with a leading relation word ("since", "before").
  private func datePhrase(at index: Int) -> DateConstraint? {
    let relation = DateRelation(word(index))
    let opensRange = word(index) == "between"
    var start = relation != nil || opensRange ? index + 1 : index
    if start > index, word(start) == "the", isFree(start) { start += 1 }
    guard let (span, period) = period(at: start, relationWord: start > index ? word(index) : nil) else { return nil }
    let full = (start > index ? index : start)..<span.upperBound
    // "between June and August", "from June to August": a range of two periods.
    if word(index) == "between" || word(index) == "from" {
      let joiner = span.upperBound
      if ["and", "to", "through", "until", "till"].contains(word(joiner) ?? ""),
        let (secondSpan, second) = self.period(at: joiner + 1, relationWord: word(index)) {
        return constraint(index..<secondSpan.upperBound, lower: period, upper: second, relation: .within)
      }
    }
    if word(index) == "between" { return nil }
    return constraint(full, lower: period, upper: period, relation: relation ?? .within)
  }

  /// A period: the unit's `$time` function and offset for relative periods, or absolute
  /// start and end.
  struct Period {
    var function: String?
    var offset: Int = 0
    var start: Date
    var end: Date
    /// A rolling window up to now ("past 7 days"): only a lower bound.
    var rolling = false
  }

  private func constraint(_ span: Range<Int>, lower: Period, upper: Period, relation: DateRelation) -> DateConstraint {
    func dsl(_ period: Period, atEnd: Bool) -> (Expression, Date) {
      let date = atEnd ? period.end : period.start
      if let function = period.function, !atEnd || period.end == period.start {
        return (PlanSyntax.time(function, offset: period.offset), date)
      }
      if let function = period.function, atEnd, let next = Self.following(function, period.offset) {
        // The end of a relative period is the start of the next one.
        return (PlanSyntax.time(next.function, offset: next.offset), date)
      }
      return (PlanSyntax.iso(date, clock: clock), date)
    }
    var result = DateConstraint(span: span)
    if lower.rolling {
      result.lower = dsl(lower, atEnd: false)
      return result
    }
    switch relation {
    case .within:
      if let function = lower.function, lower.start == upper.start, lower.end == upper.end {
        result.period = PlanSyntax.time(function, offset: lower.offset)
        result.lower = (result.period!, lower.start)
        result.upper = (result.period!, lower.end)
      } else {
        result.lower = dsl(lower, atEnd: false)
        result.upper = dsl(upper, atEnd: true)
      }
    case .since: result.lower = dsl(lower, atEnd: false)
    case .after: result.lower = dsl(lower, atEnd: true)
    case .before: result.upper = dsl(lower, atEnd: false)
    case .until: result.upper = dsl(lower, atEnd: true)
    }
    return result
  }

  /// The `$time` function and offset whose start is the end of `function(offset)`.
  static func following(_ function: String, _ offset: Int) -> (function: String, offset: Int)? {
    switch function {
    case "today": ("today", offset + 1)
    case "yesterday": ("today", offset)
    case "tomorrow": ("today", offset + 2)
    case "this_week": ("this_week", offset + 1)
    case "last_week": ("this_week", offset)
    case "next_week": ("this_week", offset + 2)
    case "this_month": ("this_month", offset + 1)
    case "last_month": ("this_month", offset)
    case "this_year": ("this_year", offset + 1)
    case "last_year": ("this_year", offset)
    default: nil
    }
  }

  private func relative(_ function: String, _ offset: Int = 0) -> Period? {
    guard let value = TimeResolver.resolve(function: function, offset: offset == 0 ? nil : Double(offset), clock: clock) else { return nil }
    return Period(function: function, offset: offset, start: value.start, end: value.end)
  }

  private func absolute(year: Int, month: Int? = nil, day: Int? = nil) -> Period? {
    let calendar = clock.calendar
    guard let start = calendar.date(from: DateComponents(year: year, month: month ?? 1, day: day ?? 1)),
      let end = calendar.date(byAdding: day != nil ? .day : month != nil ? .month : .year, value: 1, to: start)
    else { return nil }
    return Period(start: start, end: end)
  }

  /// The year a month (and day) without a year refers to: the current or most recent one
  /// when the question speaks of the past or of a period ending then ("since June"), else
  /// the nearest (ties to the past).
  private func yearFor(month: Int, day: Int?, relationWord: String?, qualifier: String?) -> Int {
    let calendar = clock.calendar
    let now = calendar.dateComponents([.year, .month, .day], from: clock.now)
    let year = now.year ?? 2000
    let current = now.month ?? 1
    let isLaterThisYear = month > current || (month == current && (day ?? 0) > (now.day ?? 0))
    switch qualifier {
    case "last": return month < current ? year : year - 1
    case "next": return month > current ? year : year + 1
    case "this": return year
    default: break
    }
    let pastOnly = speaksOfPast || ["since", "from", "after"].contains(relationWord ?? "")
    if !isLaterThisYear { return year }
    if pastOnly { return year - 1 }
    // Nearest: months ahead vs months back.
    let ahead = month - current
    let back = 12 - ahead
    return ahead < back ? year : year - 1
  }

  /// The period at `index`: relative words, weekdays, months, days, years, ISO dates.
  private func period(at index: Int, relationWord: String?) -> (Range<Int>, Period)? {
    guard isFree(index), let first = word(index) else { return nil }
    let calendar = clock.calendar
    switch first {
    case "today", "tonight": return relative("today").map { (index..<index + 1, $0) }
    case "yesterday": return relative("yesterday").map { (index..<index + 1, $0) }
    case "tomorrow": return relative("tomorrow").map { (index..<index + 1, $0) }
    case "this" where ["morning", "afternoon", "evening"].contains(word(index + 1) ?? ""):
      return relative("today").map { (index..<index + 2, $0) }
    default: break
    }
    // "this week", "last month", "next year", "previous week", "past week" (rolling)
    if ["this", "last", "next", "previous", "past", "coming", "current"].contains(first), isFree(index + 1) {
      let unit = word(index + 1) ?? ""
      let units: [String: String] = ["week": "week", "month": "month", "year": "year"]
      if let unit = units[unit] {
        switch first {
        case "this", "current": return relative("this_\(unit)").map { (index..<index + 2, $0) }
        case "last", "previous": return relative("last_\(unit)").map { (index..<index + 2, $0) }
        case "next", "coming": return relative("next_\(unit)").map { (index..<index + 2, $0) }
        default:  // past week: a rolling window
          return rolling(unit: unit, amount: 1).map { (index..<index + 2, $0) }
        }
      }
      // "last 7 days", "past two weeks", "next 3 days"
      if let amount = wholeNumber(index + 1), amount > 0, let unit = Self.unit(word(index + 2)), isFree(index + 2) {
        if first == "next" || first == "coming" {
          guard unit == "day" || unit == "week", let today = relative("today") else { return nil }
          let days = unit == "day" ? amount : amount * 7
          let end = calendar.date(byAdding: .day, value: days + 1, to: today.start) ?? today.end
          return (index..<index + 3, Period(function: nil, start: today.start, end: end))
        }
        return rolling(unit: unit, amount: amount).map { (index..<index + 3, $0) }
      }
      // "last Monday", "next Friday", "last October", "this June"
      if let weekday = Self.weekdays[word(index + 1) ?? ""], isFree(index + 1) {
        return weekdayPeriod(weekday, qualifier: first).map { (index..<index + 2, $0) }
      }
      if ["this", "last", "next"].contains(first), let month = Self.months[word(index + 1) ?? ""], isFree(index + 1) {
        let year = yearFor(month: month, day: nil, relationWord: relationWord, qualifier: first)
        return absolute(year: year, month: month).map { (index..<index + 2, $0) }
      }
      return nil
    }
    // "3 days ago", "a week ago", "two months ago"
    if let amount = wholeNumber(index), let unit = Self.unit(word(index + 1)), isFree(index + 1), word(index + 2) == "ago", isFree(index + 2) {
      let function = unit == "day" ? "today" : "this_\(unit)"
      return relative(function, -amount).map { (index..<index + 3, $0) }
    }
    // weekdays: "on Monday", "Monday"
    if let weekday = Self.weekdays[first] {
      return weekdayPeriod(weekday, qualifier: nil).map { (index..<index + 1, $0) }
    }
    // ISO date
    if let day = ISO8601Day.parse(first) {
      return absolute(year: day.year, month: day.month, day: day.day).map { (index..<index + 1, $0) }
    }
    // "3 October", "3rd of October"
    if let day = wholeNumber(index), (1...31).contains(day), tokens[index].isNumber {
      var next = index + 1
      if word(next) == "of", isFree(next) { next += 1 }
      if let month = Self.months[word(next) ?? ""], isFree(next), word(next) != "may" || word(next - 1) != "may" {
        var end = next + 1
        var year = yearFor(month: month, day: day, relationWord: relationWord, qualifier: nil)
        if let explicit = yearNumber(end) { year = explicit; end += 1 }
        return absolute(year: year, month: month, day: day).map { (index..<end, $0) }
      }
    }
    // "October", "October 2025", "October 3", "Oct 3rd, 2025"
    if let month = Self.months[first] {
      let hasContext = relationWord != nil || yearNumber(index + 1) != nil
        || (wholeNumber(index + 1).map { (1...31).contains($0) } ?? false && tokens[index + 1].isNumber)
      guard hasContext, first != "may" || relationWord != nil else { return nil }
      if let day = wholeNumber(index + 1), tokens[index + 1].isNumber, (1...31).contains(day), yearNumber(index + 1) == nil {
        var end = index + 2
        var year = yearFor(month: month, day: day, relationWord: relationWord, qualifier: nil)
        if let explicit = yearNumber(end) { year = explicit; end += 1 }
        return absolute(year: year, month: month, day: day).map { (index..<end, $0) }
      }
      if let year = yearNumber(index + 1) {
        return absolute(year: year, month: month).map { (index..<index + 2, $0) }
      }
      let year = yearFor(month: month, day: nil, relationWord: relationWord, qualifier: nil)
      return absolute(year: year, month: month).map { (index..<index + 1, $0) }
    }
    // A year: after a date preposition, or standing at the start or end of the question.
    if let year = yearNumber(index) {
      let standsAlone = index == 0 || index == count - 1 || tokens[index].endsClause
      guard relationWord != nil || (standsAlone && word(index - 1) != "for") else { return nil }
      return absolute(year: year).map { (index..<index + 1, $0) }
    }
    return nil
  }

  /// A four-digit year between 1900 and 2199 at `index`.
  func yearNumber(_ index: Int) -> Int? {
    guard isFree(index), let value = tokens[index].number, value == value.rounded(), tokens[index].word.count == 4,
      (1900...2199).contains(Int(value)), !tokens[index].plus
    else { return nil }
    return Int(value)
  }

  static func unit(_ word: String?) -> String? {
    switch word {
    case "day", "days": "day"
    case "week", "weeks": "week"
    case "month", "months": "month"
    case "year", "years": "year"
    default: nil
    }
  }

  /// The last `amount` units up to now, from the start of a day: days and weeks as
  /// `$time.today(-N)`, months and years as the ISO date that many months back.
  private func rolling(unit: String, amount: Int) -> Period? {
    guard let today = relative("today") else { return nil }
    switch unit {
    case "day", "week":
      let days = unit == "day" ? amount : amount * 7
      guard var period = relative("today", -days) else { return nil }
      period.end = clock.now
      period.rolling = true
      return period
    default:
      guard let start = clock.calendar.date(byAdding: unit == "month" ? .month : .year, value: -amount, to: today.start) else { return nil }
      var period = Period(start: start, end: clock.now)
      period.rolling = true
      return period
    }
  }

  /// A weekday: "last Monday" is the one before today, "next Monday" the one after, a bare
  /// weekday the most recent one (today included), or the coming one for future questions.
  private func weekdayPeriod(_ weekday: Int, qualifier: String?) -> Period? {
    let calendar = clock.calendar
    let today = calendar.component(.weekday, from: clock.now)
    var back = (today - weekday + 7) % 7
    switch qualifier {
    case "last", "previous": if back == 0 { back = 7 }
    case "next", "coming":
      let ahead = (weekday - today + 7) % 7
      return relative("today", ahead == 0 ? 7 : ahead)
    case "this":
      // This week's day (weeks start on Monday).
      let mondayBased = { (day: Int) in (day + 5) % 7 }
      return relative("today", mondayBased(weekday) - mondayBased(today))
    default: break
    }
    return relative("today", -back)
  }

  /// The note for a date constraint on `attribute`.
  func dateNote(_ constraint: DateConstraint, attribute: String) -> String {
    let quoted = quote(constraint.span)
    switch (constraint.lower, constraint.upper) {
    case (let lower?, let upper?):
      return "\(quoted) -> \(attribute) in [\(DSLText.dateText(lower.date, clock: clock)), \(DSLText.dateText(upper.date, clock: clock)))"
    case (let lower?, nil):
      return "\(quoted) -> \(attribute) >= \(DSLText.dateText(lower.date, clock: clock))"
    case (nil, let upper?):
      return "\(quoted) -> \(attribute) < \(DSLText.dateText(upper.date, clock: clock))"
    case (nil, nil):
      return "\(quoted) -> any date"
    }
  }

  /// The predicates (ANDed) of a date constraint on `attribute`.
  func datePredicates(_ constraint: DateConstraint, attribute: String) -> [Expression] {
    if let period = constraint.period { return [PlanSyntax.compare(attribute, .equal, period)] }
    var parts: [Expression] = []
    if let lower = constraint.lower { parts.append(PlanSyntax.compare(attribute, .greaterEqual, lower.value)) }
    if let upper = constraint.upper { parts.append(PlanSyntax.compare(attribute, .less, upper.value)) }
    return parts
  }
}
