import Foundation
import SearchIndex

/// Evaluates bound expressions on items in Swift, for stages that run after the SQL part of a
/// pipeline (`where score >= 0.6`, `score ...`, sort keys). Pure: no I/O, work proportional to
/// the expression's size per item.
public final class ExpressionEvaluator {
  public let clock: QueryClock
  private var matchers: [MatchPattern: PatternMatcher] = [:]

  /// Decides `similar` for an item; nil outside an execution (then `similar` is an error).
  public var similarity: ((SimilarSearch, ResultItem) throws -> Bool)?
  /// The cosine similarity of an item to a phrase (`similarity("...")`); nil outside an execution.
  public var vectorSimilarity: ((String, ResultItem) throws -> Double)?

  public init(clock: QueryClock) { self.clock = clock }

  /// An evaluator for stages of an execution: `similar` uses the execution's vectors.
  public convenience init(context: any StageContext) {
    self.init(clock: context.clock)
    similarity = { [unowned context] search, item in try context.matches(search, item) }
    vectorSimilarity = { [unowned context] phrase, item in try context.similarity(of: item, to: phrase) }
  }

  /// The value of `expression` for `item`.
  public func evaluate(_ expression: BoundExpression, on item: ResultItem) throws -> Value {
    switch expression {
    case .constant(let value): return value
    case .matchAll: return .bool(true)
    case .test(let test): return .bool(try self.test(test, item))
    case .textSearch(let search): return .bool(Self.textMatches(search, item))
    case .similar(let search):
      guard let similarity else { throw QueryRuntimeError("'similar' can only run inside a query execution") }
      return .bool(try similarity(search, item))
    case .not(let inner): return .bool(!(try evaluate(inner, on: item).truth))
    case .and(let parts):
      for part in parts where !(try evaluate(part, on: item).truth) { return .bool(false) }
      return .bool(true)
    case .or(let parts):
      for part in parts where try evaluate(part, on: item).truth { return .bool(true) }
      return .bool(false)
    case .attribute(let target):
      return Aggregation.values(of: target, in: item).first ?? .null
    case .relevance: return .number(item.relevance)
    case .score: return .number(item.score ?? 0)
    case .engagement: return .number(Double(item.engagement))
    case .negate(let inner):
      guard let n = try evaluate(inner, on: item).number else { return .null }
      return .number(-n)
    case .arithmetic(let op, let lhs, let rhs):
      guard let a = try evaluate(lhs, on: item).number, let b = try evaluate(rhs, on: item).number else { return .null }
      switch op {
      case .add: return .number(a + b)
      case .subtract: return .number(a - b)
      case .multiply: return .number(a * b)
      case .divide: return b == 0 ? .null : .number(a / b)
      case .remainder: return b == 0 ? .null : .number(a.truncatingRemainder(dividingBy: b))
      case .and, .or: return .null
      }
    case .compare(let op, let lhs, let rhs):
      return .bool(Self.compare(try evaluate(lhs, on: item), op, try evaluate(rhs, on: item)))
    case .function(let function, let arguments):
      return try call(function, arguments, item)
    }
  }

  /// The value as a score: numbers as they are, missing or non-numeric values as 0.
  public func score(_ expression: BoundExpression, on item: ResultItem) throws -> Double {
    let value = try evaluate(expression, on: item).number ?? 0
    return value.isFinite ? value : 0
  }

  private func call(_ function: ScoringFunction, _ arguments: [BoundExpression], _ item: ResultItem) throws -> Value {
    func number(_ index: Int) throws -> Double? { try evaluate(arguments[index], on: item).number }
    switch function {
    case .similarity:
      guard case .constant(.string(let phrase)) = arguments[0] else { return .number(0) }
      guard let vectorSimilarity else { throw QueryRuntimeError("similarity() can only run inside a query execution") }
      return .number(try vectorSimilarity(phrase, item))
    case .recency, .upcoming:
      guard let date = try number(0), let halfLife = try number(1), halfLife > 0 else { return .number(0) }
      let age = clock.now.timeIntervalSince1970 - date
      if function == .recency {
        return .number(age <= 0 ? 1 : pow(0.5, age / halfLife))
      }
      return .number(age > 0 ? 0 : pow(0.5, -age / halfLife))
    case .log:
      guard let x = try number(0) else { return .null }
      return .number(Foundation.log(1 + max(0, x)))
    case .min, .max:
      let values = try arguments.indices.compactMap { try number($0) }
      guard let first = values.first else { return .null }
      return .number(values.dropFirst().reduce(first) { function == .min ? Swift.min($0, $1) : Swift.max($0, $1) })
    case .clamp:
      guard let x = try number(0), let low = try number(1), let high = try number(2) else { return .null }
      return .number(Swift.min(Swift.max(x, low), high))
    case .if:
      return try evaluate(arguments[0], on: item).truth ? try evaluate(arguments[1], on: item) : try evaluate(arguments[2], on: item)
    case .coalesce:
      for argument in arguments {
        let value = try evaluate(argument, on: item)
        if value != .null { return value }
      }
      return .null
    case .distance:
      guard let latitude = try number(0), let longitude = try number(1),
        let itemLatitude = item.item.attributeSet["latitude"]?.numericValue,
        let itemLongitude = item.item.attributeSet["longitude"]?.numericValue
      else { return .null }
      return .number(Self.haversineKilometres(latitude, longitude, itemLatitude, itemLongitude))
    case .abs:
      return try number(0).map { .number(Swift.abs($0)) } ?? .null
    case .sqrt:
      return try number(0).map { .number($0 >= 0 ? $0.squareRoot() : .nan) } ?? .null
    case .exp:
      return try number(0).map { .number(Foundation.exp(Swift.min($0, 700))) } ?? .null
    case .year, .month, .dayOfMonth, .weekday, .weekOfYear, .hour:
      guard let seconds = try number(0) else { return .null }
      let date = Date(timeIntervalSince1970: seconds)
      let calendar = clock.calendar
      let component: Calendar.Component = switch function {
      case .year: .year
      case .month: .month
      case .dayOfMonth: .day
      case .weekday: .weekday
      case .weekOfYear: .weekOfYear
      default: .hour
      }
      return .number(Double(calendar.component(component, from: date)))
    }
  }

  /// Great-circle distance in kilometres.
  public static func haversineKilometres(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
    let radians = Double.pi / 180
    let dLat = (lat2 - lat1) * radians, dLon = (lon2 - lon1) * radians
    let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * radians) * cos(lat2 * radians) * sin(dLon / 2) * sin(dLon / 2)
    return 6371.0088 * 2 * atan2(a.squareRoot(), (1 - a).squareRoot())
  }

  static func compare(_ a: Value, _ op: ComparisonOperator, _ b: Value) -> Bool {
    if case .null = a { return op == .notEqual && b != .null }
    if case .null = b { return op == .notEqual }
    if let x = a.number, let y = b.number, !(a.isString || b.isString) {
      switch op {
      case .equal: return x == y
      case .notEqual: return x != y
      case .less: return x < y
      case .greater: return x > y
      case .lessEqual: return x <= y
      case .greaterEqual: return x >= y
      }
    }
    let x = a.displayText, y = b.displayText
    switch op {
    case .equal: return x == y
    case .notEqual: return x != y
    case .less: return x < y
    case .greater: return x > y
    case .lessEqual: return x <= y
    case .greaterEqual: return x >= y
    }
  }

  // MARK: Attribute tests in Swift (same meaning as the SQL compiler's)

  func test(_ test: AttributeTest, _ item: ResultItem) throws -> Bool {
    let result = try positiveTest(test, item)
    return test.negated ? !result : result
  }

  private func positiveTest(_ test: AttributeTest, _ item: ResultItem) throws -> Bool {
    let values = Aggregation.values(of: test.target, in: item)
    switch test.kind {
    case .present: return !values.isEmpty
    case .compare(let op, let number):
      return values.contains { value in value.number.map { Self.compare(.number($0), op, .number(number)) } ?? false }
    case .within(let start, let end):
      return values.contains { value in value.number.map { $0 >= start && $0 < end } ?? false }
    case .range(let low, let high):
      return values.contains { value in value.number.map { $0 >= low && $0 <= high } ?? false }
    case .match(let pattern):
      let matcher = try matcher(for: pattern)
      var texts = values.compactMap { if case .string(let s) = $0 { return s } else { return nil } }
      if case .anyAttribute = test.target {
        texts += [item.item.domainIdentifier, item.item.contentType, item.item.uniqueIdentifier].compactMap { $0 }
      }
      return matcher.matchesAny(texts)
    }
  }

  private func matcher(for pattern: MatchPattern) throws -> PatternMatcher {
    if let cached = matchers[pattern] { return cached }
    let matcher = try PatternMatcher(pattern)
    matchers[pattern] = matcher
    return matcher
  }

  /// A text search in Swift, as FTS5 would answer it: every term (or any, for OR searches)
  /// among the item's tokens. Text goes through the same analyzer as the `fts` table, so
  /// camelCase parts, stems (`"\u{1}word"` terms from the planner) and CJK bigrams match here
  /// exactly when they match in SQLite.
  static func textMatches(_ search: TextSearch, _ item: ResultItem) -> Bool {
    let analyzer = TextAnalyzer(stemming: true)
    // Each text value's positions in order: FTS5 matches a quoted term (and a single-quoted
    // phrase) as consecutive positions, so order matters.
    var values: [[[String]]] = []
    for (name, value) in item.item.attributeSet {
      guard let type = StandardAttributes.types[name] ?? (value.elements.first?.stringValue != nil ? AttributeType.string : nil),
        Schema.ftsColumn(for: name, type: type) != nil
      else { continue }
      for element in value.elements {
        if let text = element.stringValue { values.append(analyzer.positions(text, mode: .document)) }
      }
    }
    /// Whether the positions of `phrase` (each a list of alternatives) occur consecutively.
    func occurs(_ phrase: [[String]], prefix: Bool) -> Bool {
      guard !phrase.isEmpty else { return false }
      return values.contains { positions in
        guard positions.count >= phrase.count else { return false }
        return (0...(positions.count - phrase.count)).contains { start in
          phrase.indices.allSatisfy { offset in
            let tokens = positions[start + offset]
            let last = prefix && offset == phrase.count - 1
            return phrase[offset].contains { wanted in
              tokens.contains { last ? $0.hasPrefix(wanted) && !wanted.isEmpty : $0 == wanted }
            }
          }
        }
      }
    }
    let termPositions = search.terms.map { analyzer.positions($0.text, mode: .query) }
    if search.phrase { return occurs(termPositions.flatMap { $0 }, prefix: search.terms.last?.isPrefix == true) }
    let found = zip(search.terms, termPositions).map { term, positions in occurs(positions, prefix: term.isPrefix) }
    return search.requireAll ? found.allSatisfy { $0 } : found.contains(true)
  }
}

extension Value {
  var isString: Bool { if case .string = self { return true }; return false }
}
