import Foundation
import QueryEngine

/// Numeric phrases on numeric attributes: "rated 4 or more", "4.5+ stars", "under 5 km",
/// "longer than 10 miles", "at least 1000 m of elevation gain", "between 2 and 8 km",
/// "less than 2 hours", "priority 1". A number becomes a filter only when a unit or an
/// attribute word says which attribute it measures, and that attribute is in the index.
extension PlanBuilder {
  /// A unit: the attributes it measures (first one in the index wins) and the factor to the
  /// stored unit (distances in km, durations in seconds, elevation in metres).
  struct Unit {
    var attributes: [String]
    var factor: Double
  }

  static let units: [String: Unit] = [
    "km": Unit(attributes: ["distance", "length"], factor: 1), "kms": Unit(attributes: ["distance", "length"], factor: 1),
    "kilometers": Unit(attributes: ["distance", "length"], factor: 1), "kilometres": Unit(attributes: ["distance", "length"], factor: 1),
    "kilometer": Unit(attributes: ["distance", "length"], factor: 1), "kilometre": Unit(attributes: ["distance", "length"], factor: 1),
    "mi": Unit(attributes: ["distance", "length"], factor: 1.609344), "mile": Unit(attributes: ["distance", "length"], factor: 1.609344),
    "miles": Unit(attributes: ["distance", "length"], factor: 1.609344),
    "h": Unit(attributes: ["duration"], factor: 3600), "hr": Unit(attributes: ["duration"], factor: 3600),
    "hrs": Unit(attributes: ["duration"], factor: 3600), "hour": Unit(attributes: ["duration"], factor: 3600),
    "hours": Unit(attributes: ["duration"], factor: 3600), "min": Unit(attributes: ["duration"], factor: 60),
    "mins": Unit(attributes: ["duration"], factor: 60), "minute": Unit(attributes: ["duration"], factor: 60),
    "minutes": Unit(attributes: ["duration"], factor: 60),
    "star": Unit(attributes: ["rating", "starRating"], factor: 1), "stars": Unit(attributes: ["rating", "starRating"], factor: 1),
  ]
  /// Units of size, as factors to bytes (Apple's `fileSize` is in bytes): KB, MB, GB are
  /// powers of 1000, KiB, MiB, GiB of 1024. They measure the size attribute
  /// (`sizeAttribute`).
  static let byteUnits: [String: Double] = [
    "byte": 1, "bytes": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
    "kib": 1024, "mib": 1_048_576, "gib": 1_073_741_824, "tib": 1_099_511_627_776,
    "kilobytes": 1e3, "megabytes": 1e6, "gigabytes": 1e9, "terabytes": 1e12,
  ]
  /// Metres and feet measure elevation when the question speaks of climbing, else distance.
  static let heightUnits: [String: Double] = ["m": 1, "meter": 1, "meters": 1, "metre": 1, "metres": 1, "ft": 0.3048, "feet": 0.3048, "foot": 0.3048]
  static let elevationWords: Set<String> = ["elevation", "gain", "climb", "climbing", "ascent", "vertical", "altitude", "elevationgain"]

  /// Words that name a numeric attribute near a number.
  static let numericAttributeWords: [String: [String]] = [
    "rated": ["rating", "starRating"], "rating": ["rating", "starRating"], "ratings": ["rating", "starRating"],
    "stars": ["rating", "starRating"], "star": ["rating", "starRating"],
    "elevation": ["elevationGain", "altitude"], "gain": ["elevationGain"], "climb": ["elevationGain"],
    "distance": ["distance"], "long": ["distance", "duration"], "length": ["distance", "length"],
    "duration": ["duration"], "priority": ["priority"],
  ]

  /// Comparison words before a number, with the operator they mean.
  static let comparatorsBefore: [([String], String)] = [
    (["no", "more", "than"], "<="), (["no", "less", "than"], ">="), (["not", "more", "than"], "<="), (["not", "less", "than"], ">="),
    (["less", "than"], "<"), (["fewer", "than"], "<"), (["lower", "than"], "<"), (["shorter", "than"], "<"),
    (["smaller", "than"], "<"), (["more", "than"], ">"), (["greater", "than"], ">"), (["higher", "than"], ">"),
    (["longer", "than"], ">"), (["bigger", "than"], ">"), (["larger", "than"], ">"), (["better", "than"], ">"),
    (["worse", "than"], "<"), (["at", "least"], ">="), (["at", "most"], "<="), (["up", "to"], "<="),
    (["under"], "<"), (["below"], "<"), (["over"], ">"), (["above"], ">"), (["minimum"], ">="), (["maximum"], "<="),
    (["min"], ">="), (["max"], "<="), (["exactly"], "=="),
  ]
  /// Comparison words after a number (and its unit).
  static let comparatorsAfter: [([String], String)] = [
    (["or", "more"], ">="), (["or", "higher"], ">="), (["or", "better"], ">="), (["or", "above"], ">="),
    (["or", "greater"], ">="), (["or", "over"], ">="), (["or", "longer"], ">="), (["and", "up"], ">="),
    (["and", "above"], ">="), (["and", "over"], ">="), (["plus"], ">="), (["or", "less"], "<="), (["or", "fewer"], "<="),
    (["or", "lower"], "<="), (["or", "below"], "<="), (["or", "under"], "<="), (["or", "shorter"], "<="),
  ]

  mutating func recognizeNumericPhrases() {
    var index = 0
    while index < count {
      if isFree(index), tokens[index].isNumber, let found = numericPhrase(at: index) {
        claim(found.span)
        numericFilters.append(found.filter)
        note(found.span.lowerBound, "\(quote(found.span)) -> \(SyntaxPrinter.text(found.filter))")
        index = found.span.upperBound
      } else {
        index += 1
      }
    }
  }

  /// The first attribute of `candidates` that is a number in the index.
  func numericAttribute(_ candidates: [String]) -> String? {
    candidates.first { vocabulary.type(of: $0)?.scalar == .number }
  }

  /// A free comparison phrase ending just before `index` (its start and operator).
  private func comparatorBefore(_ index: Int) -> (start: Int, op: String)? {
    for (words, op) in Self.comparatorsBefore where matches(words, at: index - words.count) {
      return (index - words.count, op)
    }
    return nil
  }

  private func comparatorAfter(_ index: Int) -> (end: Int, op: String)? {
    for (words, op) in Self.comparatorsAfter where matches(words, at: index) { return (index + words.count, op) }
    return nil
  }

  /// The unit written at `index`: the attribute it measures and the factor.
  private func unit(at index: Int) -> (attribute: String, factor: Double)? {
    guard isFree(index), let word = word(index) else { return nil }
    if let unit = Self.units[word], let attribute = numericAttribute(unit.attributes) { return (attribute, unit.factor) }
    if let factor = Self.byteUnits[word], let size = sizeAttribute { return (size, factor) }
    if let factor = Self.heightUnits[word] {
      if contains(Self.elevationWords), let attribute = numericAttribute(["elevationGain", "altitude"]) { return (attribute, factor) }
      if let attribute = numericAttribute(["distance", "length"]) { return (attribute, factor / 1000) }
    }
    return nil
  }

  /// An attribute word among the free words `range`, nearest to `near` first.
  private func attributeWord(in range: Range<Int>, near: Int) -> (index: Int, attribute: String)? {
    let ordered = range.clamped(to: 0..<count).sorted { abs($0 - near) < abs($1 - near) }
    for index in ordered where isFree(index) {
      guard let word = word(index) else { continue }
      if let candidates = Self.numericAttributeWords[word], let attribute = numericAttribute(candidates) { return (index, attribute) }
      if vocabulary.type(of: word)?.scalar == .number { return (index, word) }
    }
    return nil
  }

  private func numericPhrase(at index: Int) -> (span: Range<Int>, filter: Expression)? {
    guard let value = tokens[index].number else { return nil }
    var start = index
    var end = index + 1
    var op = tokens[index].plus ? ">=" : nil
    var second: Double?
    if ["top", "first", "best", "last"].contains(word(index - 1) ?? "") { return nil }
    // "between 2 and 8 km", "from 2 to 8 km"
    if ["between", "from"].contains(word(index - 1) ?? ""), isFree(index - 1), ["and", "to"].contains(word(index + 1) ?? ""),
      isFree(index + 1), index + 2 < count, isFree(index + 2), let high = tokens[index + 2].number {
      start = index - 1
      end = index + 3
      second = high
    }
    var attribute: String?
    var factor = 1.0
    var unitIndex: Int?
    if let found = unit(at: end) {
      (attribute, factor) = (found.attribute, found.factor)
      unitIndex = end
      end += 1
    } else if second != nil, let found = unit(at: index + 1) {
      // "2 km to 8 km" is rare; "2 to 8 km" is handled above.
      (attribute, factor) = (found.attribute, found.factor)
    }
    if second == nil, op == nil {
      if let before = comparatorBefore(start) {
        op = before.op
        start = before.start
      } else if let after = comparatorAfter(end) {
        op = after.op
        end = after.end
      }
    }
    // "of elevation gain" after the unit: take the attribute words too.
    if let unitIndex, attribute != nil {
      var next = unitIndex + 1
      if word(next) == "of", isFree(next) { next += 1 }
      if let named = attributeWord(in: next..<min(next + 2, count), near: next), named.attribute == attribute {
        end = max(end, named.index + 1)
        // "elevation gain": every word of the name.
        while isFree(end), let word = word(end), Self.numericAttributeWords[word].map({ $0.contains(attribute!) }) ?? false { end += 1 }
        if let after = comparatorAfter(end), op == nil { op = after.op; end = after.end }
      }
    }
    if attribute == nil, op == nil, yearNumber(index) != nil { return nil }  // a year: a date phrase
    if attribute == nil {
      // An attribute word near the number: "rated 4 or more", "rating above 4", "priority 1".
      guard let named = attributeWord(in: (start - 3)..<(end + 2), near: index) else {
        // "longer than 10", "shorter than 5": distances.
        if let op, ["longer", "shorter"].contains(word(start) ?? ""), let distance = numericAttribute(["distance", "length"]) {
          return (start..<end, comparison(distance, op, value, factor: 1))
        }
        // "smaller than 1000", "larger than 5000": sizes, in the stored unit.
        if let op, ["smaller", "larger", "bigger"].contains(word(start) ?? ""), let size = sizeAttribute {
          return (start..<end, comparison(size, op, value, factor: 1))
        }
        return nil
      }
      attribute = named.attribute
      start = min(start, named.index)
      end = max(end, named.index + 1)
      if second == nil, op == nil, let after = comparatorAfter(end) {
        op = after.op
        end = after.end
      }
      if second == nil, op == nil, let before = comparatorBefore(start) {
        op = before.op
        start = before.start
      }
    }
    guard let attribute else { return nil }
    if let second {
      let low = min(value, second) * factor
      let high = max(value, second) * factor
      return (start..<end, PlanSyntax.call("InRange", [PlanSyntax.name(attribute), PlanSyntax.number(low), PlanSyntax.number(high)]))
    }
    return (start..<end, comparison(attribute, op ?? "==", value, factor: factor))
  }

  private func comparison(_ attribute: String, _ op: String, _ value: Double, factor: Double) -> Expression {
    PlanSyntax.compare(attribute, ComparisonOperator(rawValue: op) ?? .equal, PlanSyntax.number((value * factor * 1_000_000).rounded() / 1_000_000))
  }
}
