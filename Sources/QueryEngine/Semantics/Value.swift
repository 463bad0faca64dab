import Foundation
import SearchIndex

/// A value computed by an expression at run time.
public enum Value: Sendable, Hashable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case date(Date)

  /// The value as a number: numbers, dates (seconds since 1970), Booleans (0/1).
  public var number: Double? {
    switch self {
    case .number(let n): n
    case .date(let d): d.timeIntervalSince1970
    case .bool(let b): b ? 1 : 0
    default: nil
    }
  }

  /// The value as a Boolean condition.
  public var truth: Bool {
    switch self {
    case .bool(let b): b
    case .number(let n): n != 0 && !n.isNaN
    case .string(let s): !s.isEmpty
    case .date: true
    case .null: false
    }
  }

  /// The value in JSON form (dates as ISO-8601).
  public var jsonValue: JSONValue {
    switch self {
    case .null: .null
    case .bool(let b): .bool(b)
    case .number(let n): n.isFinite ? .number(n) : .null
    case .string(let s): .string(s)
    case .date(let d): .string(ISO8601.format(d))
    }
  }

  /// The first element of an attribute value as a `Value`.
  public init(_ attribute: AttributeValue?) {
    switch attribute {
    case nil: self = .null
    case .string(let s)?, .url(let s)?: self = .string(s)
    case .number(let n)?: self = .number(n)
    case .date(let d)?: self = .date(d)
    case .bool(let b)?: self = .bool(b)
    case .list(let values)?: self = Value(values.first)
    }
  }

  /// Text for tables.
  public var displayText: String {
    switch self {
    case .null: ""
    case .bool(let b): b ? "true" : "false"
    case .number(let n): JSONValue.format(number: (n * 1000).rounded() / 1000)
    case .string(let s): s
    case .date(let d): ISO8601.format(d)
    }
  }
}

/// The static type of an expression.
public enum ValueType: String, Sendable, Hashable {
  case boolean, number, string, date, duration, any
}
