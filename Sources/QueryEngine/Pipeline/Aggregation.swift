import Foundation
import SearchIndex

/// The arithmetic and grouping rules that `group`, `stats` and `count` share, whether they
/// run in SQLite (the executor reads rows and finishes here) or in Swift over items: one
/// definition of a group's order, a key's value, a median and a standard deviation.
public enum Aggregation {
  /// Groups items by the values of `target`; an item with several values joins each group.
  /// Groups are ordered by size, then key.
  public static func group(_ items: [ResultItem], by target: AttributeTarget) -> GroupedItems {
    var order: [Value] = []
    var members: [Value: [ResultItem]] = [:]
    for item in items {
      for key in values(of: target, in: item) {
        if members[key] == nil { order.append(key) }
        members[key, default: []].append(item)
      }
    }
    let groups = order.map { GroupedItems.Group(key: $0, items: members[$0]!, count: members[$0]!.count) }
      .sorted { $0.count != $1.count ? $0.count > $1.count : Self.order($0.key, $1.key) }
    return GroupedItems(attribute: target.displayName, groups: groups)
  }

  /// Every value of `target` on an item (list elements separately), without duplicates.
  public static func values(of target: AttributeTarget, in item: ResultItem) -> [Value] {
    var result: [Value] = []
    switch target {
    case .attribute(let name, _):
      for element in item.item.attributeSet[name]?.elements ?? [] {
        let value = Value(element)
        if !result.contains(value) { result.append(value) }
      }
    case .itemField(let field):
      let text: String? = switch field {
      case .domainIdentifier: item.item.domainIdentifier
      case .contentType: item.item.contentType
      case .uniqueIdentifier: item.item.uniqueIdentifier
      }
      if let text { result.append(.string(text)) }
    case .anyText, .anyAttribute:
      for (_, value) in item.item.attributeSet {
        for element in value.elements { if let text = element.stringValue { result.append(.string(text)) } }
      }
    }
    return result
  }

  /// The order of group keys and table rows: numbers and dates ascending, strings as Finder
  /// sorts them, nulls last.
  public static func order(_ a: Value, _ b: Value) -> Bool {
    switch (a, b) {
    case (.number(let x), .number(let y)): x < y
    case (.string(let x), .string(let y)): finderOrder(x, y)
    case (.date(let x), .date(let y)): x < y
    case (.null, _): false
    case (_, .null): true
    default: a.displayText < b.displayText
    }
  }

  /// Whether `x` sorts before `y` as Finder sorts names (`localizedStandardCompare`: case
  /// ignored, digit runs by value). Foundation builds a locale for every comparison, which
  /// cost more than the statement of a grouped text count; so ASCII printable names are
  /// compared here by the same order (Unicode's root collation: spaces, punctuation, symbols,
  /// digits, letters), and Foundation decides only non-ASCII names and names equal but for case
  /// or leading zeros.
  static func finderOrder(_ x: String, _ y: String) -> Bool {
    if let primary = asciiPrimaryOrder(x, y) { return primary }
    return x.localizedStandardCompare(y) == .orderedAscending
  }

  /// `x < y` (true or false) when the two differ in ASCII printable characters ignoring case
  /// and leading zeros; nil when either has another character or they are equal that way.
  static func asciiPrimaryOrder(_ x: String, _ y: String) -> Bool? {
    var x = x, y = y
    return x.withUTF8 { a in
      y.withUTF8 { b -> Bool? in
        var i = 0, j = 0
        while i < a.count, j < b.count {
          let ca = a[i], cb = b[j]
          if Self.isDigit(ca), Self.isDigit(cb) {
            // Digit runs compare by value: skip leading zeros, then the longer run is larger,
            // then the first differing digit decides.
            while i < a.count, a[i] == 0x30 { i += 1 }
            while j < b.count, b[j] == 0x30 { j += 1 }
            var endA = i, endB = j
            while endA < a.count, Self.isDigit(a[endA]) { endA += 1 }
            while endB < b.count, Self.isDigit(b[endB]) { endB += 1 }
            if endA - i != endB - j { return endA - i < endB - j }
            while i < endA {
              if a[i] != b[j] { return a[i] < b[j] }
              i += 1
              j += 1
            }
            continue
          }
          guard let ra = Self.primaryRank[Int(ca)], let rb = Self.primaryRank[Int(cb)] else { return nil }
          if ra != rb { return ra < rb }
          i += 1
          j += 1
        }
        for k in i..<a.count where Self.primaryRank[Int(a[k])] == nil { return nil }
        for k in j..<b.count where Self.primaryRank[Int(b[k])] == nil { return nil }
        if i < a.count || j < b.count { return i == a.count }
        return nil
      }
    }
  }

  private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

  /// The root collation's primary order of the ASCII printable characters (upper and lower
  /// case letters share a rank); nil for every other byte.
  static let primaryRank: [Int?] = {
    var rank = [Int?](repeating: nil, count: 256)
    let order = Array(" _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789".utf8)
    for (position, byte) in order.enumerated() { rank[Int(byte)] = position }
    for letter in UInt8(ascii: "a")...UInt8(ascii: "z") {
      rank[Int(letter)] = order.count + Int(letter - UInt8(ascii: "a"))
      rank[Int(letter - 32)] = order.count + Int(letter - UInt8(ascii: "a"))
    }
    return rank
  }()

  /// The median of values sorted ascending; nil for none.
  public static func median(ofSorted values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let middle = values.count / 2
    return values.count % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2
  }

  /// The sample standard deviation, in two passes (the mean first, then the squares around
  /// it); nil for fewer than two values.
  public static func standardDeviation(_ values: [Double]) -> Double? {
    guard values.count > 1 else { return nil }
    let mean = values.reduce(0, +) / Double(values.count)
    return (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count - 1)).squareRoot()
  }

  /// The statistic of no values: 0 for count and sum, nothing for the others.
  public static func emptyValue(_ request: StatisticRequest) -> Value {
    request.function == .count || request.function == .sum ? .number(0) : .null
  }

  /// A statistic's number as a value: a date for the min, max, average or median of dates.
  public static func value(_ number: Double, of request: StatisticRequest) -> Value {
    switch request.function {
    case .count, .sum, .stddev: return .number(number)
    case .avg, .min, .max, .median:
      if case .attribute(_, let type)? = request.target, type.scalar == .date { return .date(Date(timeIntervalSince1970: number)) }
      return .number(number)
    }
  }

  /// A statistic over items, computed in Swift.
  public static func compute(_ request: StatisticRequest, over items: [ResultItem]) -> Value {
    guard let target = request.target else { return .number(Double(items.count)) }
    let numbers = items.flatMap { values(of: target, in: $0) }.compactMap(\.number)
    switch request.function {
    case .count: return .number(Double(numbers.count))
    case .sum: return .number(numbers.reduce(0, +))
    case .avg: return numbers.isEmpty ? .null : value(numbers.reduce(0, +) / Double(numbers.count), of: request)
    case .min: return numbers.min().map { value($0, of: request) } ?? .null
    case .max: return numbers.max().map { value($0, of: request) } ?? .null
    case .median: return median(ofSorted: numbers.sorted()).map { value($0, of: request) } ?? .null
    case .stddev: return standardDeviation(numbers).map { .number($0) } ?? .null
    }
  }
}
