import Foundation

/// One typed attribute value, or a list of them.
public enum AttributeValue: Sendable, Hashable {
  case string(String)
  case number(Double)
  case date(Date)
  case bool(Bool)
  case url(String)
  case list([AttributeValue])

  /// The elements: the list's, or this value alone.
  public var elements: [AttributeValue] {
    if case .list(let values) = self { return values }
    return [self]
  }

  /// The text of a string or URL value.
  public var stringValue: String? {
    switch self {
    case .string(let s), .url(let s): s
    default: nil
    }
  }

  /// The number of a numeric value, a date as seconds since 1970, a Boolean as 0 or 1.
  public var numericValue: Double? {
    switch self {
    case .number(let n): n
    case .date(let d): d.timeIntervalSince1970
    case .bool(let b): b ? 1 : 0
    default: nil
    }
  }

  /// The value as a stored record keeps it: dates to the millisecond (`ISO8601.format` writes
  /// no finer), so what the index derives from a value agrees with the value read back.
  var atStoredPrecision: AttributeValue {
    switch self {
    case .date(let d): .date(ISO8601.parse(ISO8601.format(d)) ?? d)
    case .list(let values): .list(values.map(\.atStoredPrecision))
    default: self
    }
  }

  /// Whether the value is or holds a date.
  var holdsDate: Bool {
    switch self {
    case .date: true
    case .list(let values): values.contains(where: \.holdsDate)
    default: false
    }
  }

  /// The canonical JSON form: dates as ISO-8601 text in UTC.
  public var jsonValue: JSONValue {
    switch self {
    case .string(let s), .url(let s): .string(s)
    case .number(let n): .number(n)
    case .date(let d): .string(ISO8601.format(d))
    case .bool(let b): .bool(b)
    case .list(let values): .array(values.map(\.jsonValue))
    }
  }

  /// Text for tables and summaries.
  public var displayText: String {
    switch self {
    case .string(let s), .url(let s): s
    case .number(let n): JSONValue.format(number: n)
    case .date(let d): ISO8601.format(d)
    case .bool(let b): b ? "true" : "false"
    case .list(let values): values.map(\.displayText).joined(separator: ", ")
    }
  }
}
