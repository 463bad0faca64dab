import Foundation

/// Fast ISO-8601 parsing and formatting for item dates.
///
/// Accepted: `2026-05-01`, `2026-05-01T08:00`, `2026-05-01T08:00:00`, with optional fractional
/// seconds and a zone `Z`, `+02:00`, `+0200` or `+02`; a space may replace the `T`. A date or
/// time without a zone is read in `defaultZone` (UTC unless the caller says otherwise), so the
/// same file indexes the same way on every machine.
public enum ISO8601 {
  /// UTC, made once.
  @usableFromInline static let utc = TimeZone(identifier: "UTC")!

  /// Parses `text`; nil when it is not an ISO-8601 date.
  public static func parse(_ text: String, defaultZone: TimeZone = ISO8601.utc) -> Date? {
    var text = text
    return text.withUTF8 { parse(Cursor(bytes: $0), defaultZone: defaultZone) }
  }

  /// Reads the UTF-8 bytes of a date in place: a stored item's dates are parsed every time
  /// it is read, so this avoids copies and captured variables.
  private struct Cursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    var first: UInt8? { index < bytes.count ? bytes[index] : nil }
    var remaining: Int { bytes.count - index }

    /// The number written by the next `digits` digits; nil (and nothing read) otherwise.
    mutating func number(_ digits: Int) -> Int? {
      guard remaining >= digits else { return nil }
      var value = 0
      for offset in index..<index + digits {
        let b = bytes[offset]
        guard b >= 48, b <= 57 else { return nil }
        value = value * 10 + Int(b - 48)
      }
      index += digits
      return value
    }

    mutating func consume(_ c: UInt8) -> Bool {
      guard first == c else { return false }
      index += 1
      return true
    }
  }

  private static func parse(_ start: Cursor, defaultZone: TimeZone) -> Date? {
    var bytes = start
    guard let year = bytes.number(4), bytes.consume(45), let month = bytes.number(2), bytes.consume(45),
      let day = bytes.number(2), (1...12).contains(month), (1...31).contains(day)
    else { return nil }
    var hour = 0, minute = 0, second = 0
    var fraction = 0.0
    var offset: Int? = nil
    if let first = bytes.first, first == 84 || first == 116 || first == 32 {  // T t space
      bytes.index += 1
      guard let h = bytes.number(2), bytes.consume(58), let m = bytes.number(2), h < 24 || (h == 24 && m == 0), m < 60
      else { return nil }
      hour = h
      minute = m
      if bytes.consume(58) {
        guard let s = bytes.number(2), s <= 60 else { return nil }
        second = s
        if bytes.consume(46) || bytes.consume(44) {
          var scale = 0.1
          var any = false
          while let b = bytes.first, b >= 48, b <= 57 {
            fraction += Double(b - 48) * scale
            scale /= 10
            any = true
            bytes.index += 1
          }
          if !any { return nil }
        }
      }
      if bytes.consume(90) || bytes.consume(122) {  // Z z
        offset = 0
      } else if let sign = bytes.first, sign == 43 || sign == 45 {  // + -
        bytes.index += 1
        guard let oh = bytes.number(2), oh <= 18 else { return nil }
        var om = 0
        if bytes.consume(58) {
          guard let m = bytes.number(2) else { return nil }
          om = m
        } else if bytes.remaining >= 2, let m = bytes.number(2) {
          om = m
        }
        guard om < 60 else { return nil }
        offset = (sign == 43 ? 1 : -1) * (oh * 3600 + om * 60)
      }
    }
    guard bytes.remaining == 0 else { return nil }
    // Validate the day against the month (no 2026-02-30).
    guard day <= daysIn(month: month, year: year) else { return nil }
    let days = daysFromCivil(year: year, month: month, day: day)
    var seconds = Double(days * 86400 + hour * 3600 + minute * 60 + second) + fraction
    if let offset {
      seconds -= Double(offset)
    } else {
      let local = Date(timeIntervalSince1970: seconds)
      seconds -= Double(defaultZone.secondsFromGMT(for: local))
    }
    return Date(timeIntervalSince1970: seconds)
  }

  private static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// Formats `date` in UTC: `2026-05-01T08:00:00Z`, with milliseconds only when present.
  public static func format(_ date: Date) -> String {
    let total = date.timeIntervalSince1970
    let wholeSeconds = total.rounded(.down)
    var millis = Int(((total - wholeSeconds) * 1000).rounded())
    var whole = Int64(wholeSeconds)
    if millis == 1000 { millis = 0; whole += 1 }
    let days = Int(floorDiv(whole, 86400))
    let secondOfDay = Int(whole - Int64(days) * 86400)
    let (y, m, d) = civilFromDays(days)
    if (0...9999).contains(y) {
      // Digit by digit into one buffer: every date of every item a reply shows is formatted
      // here, and the interpolated form below cost 7,000 instructions a date.
      return String(unsafeUninitializedCapacity: 24) { buffer in
        var at = 0
        func put(_ value: Int, _ width: Int) {
          var value = value
          for offset in stride(from: width - 1, through: 0, by: -1) {
            buffer[at + offset] = UInt8(48 + value % 10)
            value /= 10
          }
          at += width
        }
        func put(_ byte: UInt8) {
          buffer[at] = byte
          at += 1
        }
        put(y, 4); put(45); put(m, 2); put(45); put(d, 2); put(84)
        put(secondOfDay / 3600, 2); put(58); put(secondOfDay % 3600 / 60, 2); put(58); put(secondOfDay % 60, 2)
        if millis != 0 { put(46); put(millis, 3) }
        put(90)
        return at
      }
    }
    var text = "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay % 3600 / 60, 2)):\(pad(secondOfDay % 60, 2))"
    if millis != 0 { text += ".\(pad(millis, 3))" }
    return text + "Z"
  }

  /// Formats `date` in `zone` with its offset (`2026-05-01T10:00:00+02:00`).
  public static func format(_ date: Date, in zone: TimeZone) -> String {
    let offset = zone.secondsFromGMT(for: date)
    if offset == 0 { return format(date) }
    let shifted = format(date.addingTimeInterval(Double(offset)))
    let sign = offset < 0 ? "-" : "+"
    let magnitude = abs(offset)
    return String(shifted.dropLast()) + "\(sign)\(pad(magnitude / 3600, 2)):\(pad(magnitude % 3600 / 60, 2))"
  }

  private static func pad(_ value: Int, _ width: Int) -> String {
    let s = String(value)
    return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
  }

  private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
    a >= 0 ? a / b : -((-a + b - 1) / b)
  }

  /// Days since 1970-01-01 (Howard Hinnant's algorithm).
  static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let mp = (month + 9) % 12
    let doy = (153 * mp + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146097 + doe - 719468
  }

  static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
    let z = days + 719468
    let era = (z >= 0 ? z : z - 146096) / 146097
    let doe = z - era * 146097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
    let y = yoe + era * 400
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    return (m <= 2 ? y + 1 : y, m, d)
  }
}
