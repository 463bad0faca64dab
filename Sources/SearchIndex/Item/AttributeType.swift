import Foundation

/// The type of an attribute: a scalar kind, or a list of one.
public struct AttributeType: Sendable, Hashable, CustomStringConvertible {
  /// The kind of each value.
  public enum Scalar: String, Sendable, Hashable, CaseIterable {
    case string, number, date, bool, url
  }

  /// The kind of each value.
  public var scalar: Scalar
  /// True when the attribute holds a list of values (keywords, authorNames, ...).
  public var isList: Bool

  public init(_ scalar: Scalar, isList: Bool = false) {
    self.scalar = scalar
    self.isList = isList
  }

  public static let string = AttributeType(.string)
  public static let number = AttributeType(.number)
  public static let date = AttributeType(.date)
  public static let bool = AttributeType(.bool)
  public static let url = AttributeType(.url)
  public static let stringList = AttributeType(.string, isList: true)
  public static let numberList = AttributeType(.number, isList: true)
  public static let dateList = AttributeType(.date, isList: true)

  /// `string`, `number`, ..., or `[string]` for lists; the spelling `stats` and schemas use.
  public var description: String { isList ? "[\(scalar.rawValue)]" : scalar.rawValue }

  /// Parses the spelling of `description` (also `list<string>` and `strings`).
  public init?(parsing text: String) {
    var body = text.trimmingCharacters(in: .whitespaces).lowercased()
    var list = false
    if body.hasPrefix("["), body.hasSuffix("]") {
      body = String(body.dropFirst().dropLast())
      list = true
    } else if body.hasPrefix("list<"), body.hasSuffix(">") {
      body = String(body.dropFirst(5).dropLast())
      list = true
    }
    switch body {
    case "string", "text": self.init(.string, isList: list)
    case "number", "double", "int", "integer": self.init(.number, isList: list)
    case "date": self.init(.date, isList: list)
    case "bool", "boolean": self.init(.bool, isList: list)
    case "url": self.init(.url, isList: list)
    default: return nil
    }
  }

  /// True for values compared as text (strings and URLs).
  public var isTextual: Bool { scalar == .string || scalar == .url }

  /// True for values with an order (numbers and dates).
  public var isOrdered: Bool { scalar == .number || scalar == .date }
}

