/// A JSON value that keeps the order of object keys, so documents Searchlight writes (replies,
/// schemas, items) come out in a stable, readable order.
public enum JSONValue: Sendable, Hashable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object(JSONObject)

  /// The member `key` of an object, nil otherwise.
  public subscript(key: String) -> JSONValue? {
    if case .object(let object) = self { return object[key] }
    return nil
  }

  /// The string, when this is a string.
  public var stringValue: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  /// The number, when this is a number.
  public var numberValue: Double? {
    if case .number(let n) = self { return n }
    return nil
  }

  /// The number as an `Int`, when it is a whole number exactly representable as a `Double`
  /// (|n| <= 2^53), so a fractional or out-of-range value never silently truncates.
  package var intValue: Int? {
    guard case .number(let n) = self, n == n.rounded(), abs(n) <= 9_007_199_254_740_992 else { return nil }
    return Int(n)
  }

  /// The Boolean, when this is a Boolean.
  public var boolValue: Bool? {
    if case .bool(let b) = self { return b }
    return nil
  }

  /// The elements, when this is an array.
  public var arrayValue: [JSONValue]? {
    if case .array(let a) = self { return a }
    return nil
  }

  /// The object, when this is an object.
  public var objectValue: JSONObject? {
    if case .object(let o) = self { return o }
    return nil
  }

  /// True for `null`.
  public var isNull: Bool {
    if case .null = self { return true }
    return false
  }

  /// A short name of the value's kind, for error messages ("a string", "an array").
  public var kindDescription: String {
    switch self {
    case .null: "null"
    case .bool: "a boolean"
    case .number: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
  }
}

/// A JSON object whose members keep their insertion order.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
  public init(dictionaryLiteral elements: (String, JSONValue)...) { self.init(elements) }

  /// The members in order.
  public private(set) var members: [(key: String, value: JSONValue)] = []
  /// Where each key sits in `members` once the object is large (see `NamePositions`).
  private var positions = NamePositions()

  public init() {}

  public init(_ members: [(String, JSONValue)]) {
    for (key, value) in members { self[key] = value }
  }

  /// The value of `key`; assigning nil removes the member, assigning a new key appends it.
  public subscript(key: String) -> JSONValue? {
    get { index(of: key).map { members[$0].value } }
    set {
      if let index = index(of: key) {
        if let newValue {
          members[index].value = newValue
        } else {
          members.remove(at: index)
          positions.rebuild(members.lazy.map(\.key))
        }
      } else if let newValue {
        append(key, newValue)
      }
    }
  }

  /// Appends a member whose key is not there yet; false (and no change) when it is. One
  /// lookup, where checking and then assigning would take two.
  mutating func insertNew(_ key: String, _ value: JSONValue) -> Bool {
    guard index(of: key) == nil else { return false }
    append(key, value)
    return true
  }

  /// Appends a member known to be new, keeping `positions` in step.
  private mutating func append(_ key: String, _ value: JSONValue) {
    members.append((key, value))
    positions.appended(key, count: members.count) { members.lazy.map(\.key) }
  }

  private func index(of key: String) -> Int? {
    positions.index(of: key) { members.firstIndex(where: { $0.key == key }) }
  }

  /// The keys in order.
  public var keys: [String] { members.map(\.key) }

  /// Number of members.
  public var count: Int { members.count }

  public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> {
    members.makeIterator()
  }

  public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
    lhs.members.count == rhs.members.count
      && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
  }

  public func hash(into hasher: inout Hasher) {
    for member in members {
      hasher.combine(member.key)
      hasher.combine(member.value)
    }
  }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
  ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
  public init(stringLiteral value: String) { self = .string(value) }
  public init(integerLiteral value: Int) { self = .number(Double(value)) }
  public init(floatLiteral value: Double) { self = .number(value) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
  public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(JSONObject(elements)) }
  public init(nilLiteral: ()) { self = .null }
}
