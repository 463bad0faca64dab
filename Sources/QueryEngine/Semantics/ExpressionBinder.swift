import Foundation
import SearchIndex

/// What names mean while binding an expression.
public struct BindingContext: Sendable {
  /// Attribute names and types of the index.
  public var catalog: AttributeCatalog
  /// The clock `$time` resolves against.
  public var clock: QueryClock
  /// Stage parameters in scope (declarative stages), by name.
  public var parameters: [String: Value]
  /// `let` variables by name; `.null` while type checking, before they have values.
  public var variables: [String: Value]
  /// True inside stages that run after `score` (so `score` has a meaning).
  public var scoreAvailable: Bool
  /// Who "me" is, for `people me`.
  public var identity: Identity

  public init(
    catalog: AttributeCatalog, clock: QueryClock = QueryClock(), parameters: [String: Value] = [:],
    variables: [String: Value] = [:], scoreAvailable: Bool = false, identity: Identity = Identity()
  ) {
    self.identity = identity
    self.catalog = catalog
    self.clock = clock
    self.parameters = parameters
    self.variables = variables
    self.scoreAvailable = scoreAvailable
  }
}

/// Turns parsed expressions into typed `BoundExpression`s, checking names, types, modifiers
/// and `$time` functions, and collecting a diagnostic (with did-you-mean) for each problem.
public struct ExpressionBinder {
  public var context: BindingContext
  public private(set) var diagnostics: [Diagnostic] = []

  public init(context: BindingContext) { self.context = context }

  private struct Failed: Error {}

  private mutating func error(_ diagnostic: Diagnostic) -> Failed {
    diagnostics.append(diagnostic)
    return Failed()
  }

  /// Binds a condition (a predicate); nil when it has errors (see `diagnostics`).
  public mutating func bindCondition(_ expression: Expression) -> BoundExpression? {
    do {
      let (bound, type) = try bind(expression, asCondition: true)
      guard type == .boolean || type == .any else {
        diagnostics.append(Diagnostic("type.not-a-condition", "expected a condition, found a \(type.rawValue)", at: expression.span,
                                      help: "compare it, e.g. rating > 3, or search for text with \"words\""))
        return nil
      }
      return bound
    } catch {
      return nil
    }
  }

  /// Binds a value expression (scores, sort keys); nil on errors.
  public mutating func bindValue(_ expression: Expression) -> (BoundExpression, ValueType)? {
    do {
      return try bind(expression, asCondition: false)
    } catch {
      return nil
    }
  }

  // MARK: Names

  /// The attribute a name refers to, through kMDItem aliases and item fields.
  public func resolveAttribute(_ name: String) -> AttributeTarget? {
    switch name {
    case "domainIdentifier", "domain", "kMDItemDomainIdentifier": return .itemField(.domainIdentifier)
    case "contentType", "kMDItemContentType": return .itemField(.contentType)
    case "uniqueIdentifier", "id": return .itemField(.uniqueIdentifier)
    default: break
    }
    let canonical = StandardAttributes.resolveAlias(name) ?? name
    if let type = context.catalog.type(of: canonical) { return .attribute(canonical, type) }
    return nil
  }

  /// Every name an identifier may refer to, for suggestions.
  private var knownNames: [String] {
    context.catalog.allNames + ["domainIdentifier", "contentType", "relevance", "engagement"] + Array(context.parameters.keys)
      + (context.scoreAvailable ? ["score"] : [])
  }

  private func unknownAttribute(_ name: String, _ span: SourceSpan) -> Diagnostic {
    Diagnostic("name.unknown-attribute", "unknown attribute '\(name)'", at: span)
      .suggesting(closestMatch(to: name, in: knownNames))
  }

  // MARK: Binding

  private mutating func bind(_ expression: Expression, asCondition: Bool) throws -> (BoundExpression, ValueType) {
    switch expression.kind {
    case .boolean(let b):
      return (.constant(.bool(b)), .boolean)
    case .number(let n):
      return (.constant(.number(n)), .number)
    case .duration(let seconds):
      return (.constant(.number(seconds)), .duration)
    case .string(let literal):
      if asCondition { return (try textSearch(literal, expression.span), .boolean) }
      try rejectBoost(literal, "a value")
      return (.constant(.string(literal.text)), .string)
    case .time(let literal):
      let value = try resolveTime(literal, expression.span)
      return (.constant(.date(value.start)), .date)
    case .anyAttribute:
      if asCondition { return (.matchAll, .boolean) }
      throw error(Diagnostic("type.star-value", "'*' stands for any attribute in a comparison, not for a value", at: expression.span))
    case .variable(let name):
      guard let value = context.variables[name] else {
        throw error(Diagnostic("name.unknown-variable", "unknown variable '$\(name)'", at: expression.span,
                               help: "bind it first: let \(name) = search ... | select max-by count")
          .suggesting(closestMatch(to: name, in: context.variables.keys).map { "$" + $0 }))
      }
      return (.constant(value), Self.type(of: value))
    case .identifier(let name):
      return try bindIdentifier(name, expression.span, asCondition: asCondition)
    case .unary(.not, let operand):
      let (bound, type) = try bind(operand, asCondition: true)
      try expectCondition(type, operand.span)
      return (.not(bound), .boolean)
    case .unary(.negate, let operand):
      let (bound, type) = try bind(operand, asCondition: false)
      try expectNumber(type, operand.span, operation: "'-'")
      if case .constant(.number(let n)) = bound { return (.constant(.number(-n)), type) }
      return (.negate(bound), type == .duration ? .duration : .number)
    case .binary(let op, let lhs, let rhs):
      if op == .and || op == .or {
        // The whole chain of this operator at once, without recursing along it.
        var parts: [BoundExpression] = []
        for operand in Self.chain(op, expression) {
          let (bound, type) = try bind(operand, asCondition: true)
          try expectCondition(type, operand.span)
          switch (op, bound) {
          case (.and, .and(let inner)), (.or, .or(let inner)): parts.append(contentsOf: inner)
          default: parts.append(bound)
          }
        }
        return (op == .and ? .and(parts) : .or(parts), .boolean)
      }
      let (left, leftType) = try bind(lhs, asCondition: false)
      let (right, rightType) = try bind(rhs, asCondition: false)
      try expectNumber(leftType, lhs.span, operation: "'\(op.rawValue)'")
      try expectNumber(rightType, rhs.span, operation: "'\(op.rawValue)'")
      return (Self.fold(.arithmetic(op, left, right)), .number)
    case .comparison(let op, let lhs, let rhs, let bracket):
      return (try bindComparison(op, lhs, rhs, bracket: bracket, span: expression.span), .boolean)
    case .call(let name, let nameSpan, let arguments):
      return try bindCall(name, nameSpan, arguments, span: expression.span)
    case .similar(let similar):
      guard asCondition else {
        throw error(Diagnostic("type.similar-value", "'similar' is a condition, not a value", at: expression.span,
                               help: "use it in a search or where: search similar \"sun\" within 0.8"))
      }
      return (try bindSimilar(similar, expression.span), .boolean)
    }
  }

  private mutating func bindIdentifier(_ name: String, _ span: SourceSpan, asCondition: Bool) throws -> (BoundExpression, ValueType) {
    if let value = context.parameters[name] { return (.constant(value), Self.type(of: value)) }
    if name == "relevance" { return (.relevance, .number) }
    if name == "engagement" { return (.engagement, .number) }
    if name == "score" {
      guard context.scoreAvailable else {
        throw error(Diagnostic("name.score-unavailable", "'score' has no value here", at: span,
                               help: "add a score stage first: score 0.5 * relevance + 0.5 * rating / 5"))
      }
      return (.score, .number)
    }
    guard let target = resolveAttribute(name) else { throw error(unknownAttribute(name, span)) }
    if asCondition {
      // A Boolean attribute alone is a condition: `pinned` means `pinned == true`.
      if case .attribute(_, let type) = target, type.scalar == .bool {
        return (.test(AttributeTest(target: target, kind: .compare(.equal, 1), negated: false)), .boolean)
      }
      throw error(Diagnostic("type.not-a-condition", "'\(name)' is \(Self.describe(target)), not a condition", at: span,
                             help: "compare it, e.g. \(name) == \"*\" for items that have it"))
    }
    return (.attribute(target), Self.valueType(target))
  }

  // MARK: Comparisons

  private mutating func bindComparison(
    _ op: ComparisonOperator, _ lhs: Expression, _ rhs: Expression, bracket: String?, span: SourceSpan
  ) throws -> BoundExpression {
    // `3 < rating` reads as `rating > 3`.
    if attributeTarget(of: lhs) == nil, attributeTarget(of: rhs) != nil, !isStoredValueLiteralCandidate(lhs) {
      return try bindComparison(op.flipped, rhs, lhs, bracket: bracket, span: span)
    }
    if let target = attributeTarget(of: lhs) {
      return try bindAttributeComparison(op, target, lhs, rhs, bracket: bracket)
    }
    // A comparison of computed values (score >= 0.5, rating / 5 > 0.6).
    let (left, leftType) = try bind(lhs, asCondition: false)
    let (right, rightType) = try bind(rhs, asCondition: false)
    if op.isOrdering {
      try expectOrdered(leftType, lhs.span)
      try expectOrdered(rightType, rhs.span)
    }
    return .compare(op, left, right)
  }

  /// True when an expression is a literal that could also be read as a bare word.
  private func isStoredValueLiteralCandidate(_ expression: Expression) -> Bool {
    if case .identifier = expression.kind { return true }
    return false
  }

  /// The attribute an expression names when it is a plain attribute reference.
  private func attributeTarget(of expression: Expression) -> AttributeTarget? {
    switch expression.kind {
    case .anyAttribute(let deep): return deep ? .anyAttribute : .anyText
    case .identifier(let name):
      if context.parameters[name] != nil || name == "relevance" || name == "score" || name == "engagement" { return nil }
      return resolveAttribute(name)
    default: return nil
    }
  }

  private mutating func bindAttributeComparison(
    _ op: ComparisonOperator, _ target: AttributeTarget, _ lhs: Expression, _ rhs: Expression, bracket: String?
  ) throws -> BoundExpression {
    let negated = op == .notEqual
    let literal = try comparisonValue(rhs, for: target)
    // Modifiers: suffix letters on the string, or `[cd]` after the operator.
    var modifiers = Set<Character>()
    if let bracket {
      for letter in bracket {
        guard Lexer.modifierLetters.contains(letter) else {
          throw error(Diagnostic("modifier.unknown", "unknown modifier '\(letter)'", at: lhs.span.union(rhs.span),
                                 help: "modifiers are c (ignore case), d (ignore diacritics), w (words), t (tokens)"))
        }
        modifiers.insert(letter)
      }
    }
    if case .string(let s) = literal, let span = s.modifierSpan {
      for (offset, letter) in s.modifiers.enumerated() {
        guard Lexer.modifierLetters.contains(letter) else {
          let letterSpan = SourceSpan(span.start + offset, span.start + offset + 1)
          if letter == Lexer.stemModifier {
            throw error(Diagnostic("modifier.stem-comparison", "the s modifier (any form of a word) applies to text searches, not comparisons",
                                   at: letterSpan, help: "search the words instead (search \"\(s.text)\"s), or compare words with the w modifier"))
          }
          throw error(Diagnostic("modifier.unknown", "unknown modifier '\(letter)'", at: letterSpan,
                                 help: "modifiers are c (ignore case), d (ignore diacritics), w (words), t (tokens)"))
        }
        modifiers.insert(letter)
      }
    }
    // Presence and absence: `attr == "*"`, `attr != "*"`, whatever the attribute's type.
    if case .string(let s) = literal, s.text == "*", s.form != .singleQuoted, s.escapedWildcards.isEmpty {
      guard !op.isOrdering else {
        throw error(Diagnostic("type.ordering-presence", "'\(op.rawValue) \"*\"' has no meaning", at: rhs.span,
                               help: "use == \"*\" for items that have the attribute, != \"*\" for those without"))
      }
      return .test(AttributeTest(target: target, kind: .present, negated: negated))
    }
    switch target.scalarType {
    case .string, .url:
      if op.isOrdering {
        throw error(Diagnostic("type.ordering-string", "'\(op.rawValue)' needs a number or a date; '\(target.displayName)' is text", at: lhs.span.union(rhs.span),
                               help: "compare text with == or != and patterns such as \"june*\"cd"))
      }
      let text: StringLiteral
      switch literal {
      case .string(let s): text = s
      case .number(let n): text = StringLiteral(text: JSONValue.format(number: n), form: .singleQuoted, escapedWildcards: [], modifiers: "", modifierSpan: nil)
      case .time, .boolean:
        throw error(Diagnostic("type.mismatch", "'\(target.displayName)' is text; compare it with a quoted string", at: rhs.span))
      }
      return .test(AttributeTest(target: target, kind: .match(MatchPattern(literal: text, modifiers: modifiers)), negated: negated))
    case .number:
      guard case .number(let n) = literal else {
        throw error(Diagnostic("type.mismatch", "'\(target.displayName)' is a number; \(Self.describe(literal))", at: rhs.span,
                               help: "compare it with a number, e.g. \(target.displayName) > 3"))
      }
      return .test(Self.numericTest(target, op, n))
    case .bool:
      let value: Double
      switch literal {
      case .boolean(let b): value = b ? 1 : 0
      case .number(let n) where n == 0 || n == 1: value = n
      default:
        throw error(Diagnostic("type.mismatch", "'\(target.displayName)' is true or false; \(Self.describe(literal))", at: rhs.span))
      }
      guard !op.isOrdering else {
        throw error(Diagnostic("type.ordering-bool", "'\(op.rawValue)' needs a number or a date; '\(target.displayName)' is true or false", at: rhs.span))
      }
      return .test(AttributeTest(target: target, kind: .compare(.equal, value), negated: negated))
    case .date:
      let value: TimeValue
      switch literal {
      case .time(let t): value = t
      case .number(let seconds):
        value = TimeResolver.referenceDate(seconds: seconds)
        try expectRepresentable(value.start, rhs.span)
      case .string(let s):
        guard let parsed = TimeResolver.resolve(iso: s.text, clock: context.clock) else {
          var diagnostic = Diagnostic("type.mismatch", "'\(target.displayName)' is a date; \"\(s.text)\" is not an ISO-8601 date", at: rhs.span,
                                      help: "write a date such as 2026-05-01, $time.iso(2026-05-01T08:00:00Z) or $time.today(-7)")
          // "yesterday", "last week": the `$time` function of that name.
          let named = s.text.lowercased().split(whereSeparator: { $0 == " " || $0 == "_" }).joined(separator: "_")
          if named != "iso", TimeResolver.functionNames.contains(named) { diagnostic = diagnostic.suggesting("$time.\(named)") }
          throw error(diagnostic)
        }
        value = parsed
      case .boolean:
        throw error(Diagnostic("type.mismatch", "'\(target.displayName)' is a date; true/false is not", at: rhs.span))
      }
      return .test(Self.dateTest(target, op, value))
    }
  }

  /// A comparison's right side, resolved to a literal.
  private enum ComparisonLiteral {
    case string(StringLiteral)
    case number(Double)
    case time(TimeValue)
    case boolean(Bool)
  }

  private mutating func comparisonValue(_ expression: Expression, for target: AttributeTarget) throws -> ComparisonLiteral {
    switch expression.kind {
    case .string(let s):
      try rejectBoost(s, "a comparison")
      return .string(s)
    case .number(let n): return .number(n)
    case .duration(let seconds): return .number(seconds)
    case .boolean(let b): return .boolean(b)
    case .time(let literal): return .time(try resolveTime(literal, expression.span))
    case .unary(.negate, let inner):
      if case .number(let n) = inner.kind { return .number(-n) }
      if case .duration(let n) = inner.kind { return .number(-n) }
    case .identifier(let name):
      if let value = context.parameters[name] { return Self.literal(value) }
      // A bare word that is not a name: `keywords == waterfall`.
      if resolveAttribute(name) == nil { return .string(StringLiteral(text: name, form: .bare, escapedWildcards: [], modifiers: "", modifierSpan: nil)) }
      throw error(Diagnostic("type.attribute-comparison", "comparing two attributes needs a value on the right", at: expression.span,
                             help: "quote the text to compare with: \(target.displayName) == \"\(name)\""))
    case .variable(let name):
      guard let value = context.variables[name] else {
        throw error(Diagnostic("name.unknown-variable", "unknown variable '$\(name)'", at: expression.span,
                               help: "bind it first: let \(name) = search ... | select max-by count"))
      }
      if case .null = value {
        // While type checking, before the variable has a value: any literal fits.
        switch target.scalarType {
        case .number, .bool: return .number(0)
        case .date: return .time(TimeValue(start: context.clock.now, end: context.clock.now))
        default: return .string(StringLiteral(text: "", form: .singleQuoted, escapedWildcards: [], modifiers: "", modifierSpan: nil))
        }
      }
      return Self.literal(value)
    default: break
    }
    throw error(Diagnostic("type.expected-literal", "expected a quoted string, a number or a date to compare '\(target.displayName)' with",
                           at: expression.span))
  }

  private static func literal(_ value: Value) -> ComparisonLiteral {
    switch value {
    case .number(let n): .number(n)
    case .bool(let b): .boolean(b)
    case .date(let d): .time(TimeValue(start: d, end: d))
    case .string(let s): .string(StringLiteral(text: s, form: .singleQuoted, escapedWildcards: [], modifiers: "", modifierSpan: nil))
    case .null: .string(StringLiteral(text: "", form: .singleQuoted, escapedWildcards: [], modifiers: "", modifierSpan: nil))
    }
  }

  private static func numericTest(_ target: AttributeTarget, _ op: ComparisonOperator, _ value: Double) -> AttributeTest {
    switch op {
    case .notEqual: AttributeTest(target: target, kind: .compare(.equal, value), negated: true)
    default: AttributeTest(target: target, kind: .compare(op, value), negated: false)
    }
  }

  /// Dates compare as periods: `== today` is within today, `< today` before it starts,
  /// `<= today` up to its end, `> today` after it ends, `>= today` from its start.
  private static func dateTest(_ target: AttributeTarget, _ op: ComparisonOperator, _ value: TimeValue) -> AttributeTest {
    let start = value.start.timeIntervalSince1970, end = value.end.timeIntervalSince1970
    if value.isInstant { return numericTest(target, op, start) }
    switch op {
    case .equal: return AttributeTest(target: target, kind: .within(start: start, end: end), negated: false)
    case .notEqual: return AttributeTest(target: target, kind: .within(start: start, end: end), negated: true)
    case .less: return AttributeTest(target: target, kind: .compare(.less, start), negated: false)
    case .greaterEqual: return AttributeTest(target: target, kind: .compare(.greaterEqual, start), negated: false)
    case .lessEqual: return AttributeTest(target: target, kind: .compare(.less, end), negated: false)
    case .greater: return AttributeTest(target: target, kind: .compare(.greaterEqual, end), negated: false)
    }
  }

  // MARK: Text search and time

  private mutating func textSearch(_ literal: StringLiteral, _ span: SourceSpan) throws -> BoundExpression {
    if let modifierSpan = literal.modifierSpan {
      for (offset, letter) in literal.modifiers.enumerated() where !Lexer.modifierLetters.contains(letter) && letter != Lexer.stemModifier {
        throw error(Diagnostic("modifier.unknown", "unknown modifier '\(letter)'",
                               at: SourceSpan(modifierSpan.start + offset, modifierSpan.start + offset + 1),
                               help: "modifiers are c (ignore case), d (ignore diacritics), w (words), t (tokens), s (any form of a word)"))
      }
    }
    var terms = TextSearch.terms(of: literal.text)
    guard !terms.isEmpty else {
      throw error(Diagnostic("text.empty", "the search text has no words", at: span, help: "search for words, e.g. \"june launch\""))
    }
    // `"connected"s`: every form of each word, through the stems the tokenizer indexes.
    if literal.modifiers.contains(Lexer.stemModifier) { terms = terms.map(\.stemmed) }
    var weights: [Double]?
    if let boost = literal.boost, let boostSpan = literal.boostSpan {
      guard boost > 0, boost.isFinite else {
        throw error(Diagnostic("text.boost-zero", "a text search's weight must be greater than 0", at: boostSpan,
                               help: "leave the term out, or give it a small weight such as ^0.1"))
      }
      weights = Array(repeating: boost, count: terms.count)
    }
    return .textSearch(TextSearch(terms: terms, requireAll: true, columns: nil, weights: weights, phrase: literal.form == .singleQuoted))
  }

  /// A boost (`^2`) weighs the terms of a text search; on a value it would mean nothing.
  private mutating func rejectBoost(_ literal: StringLiteral, _ place: String) throws {
    guard let span = literal.boostSpan else { return }
    throw error(Diagnostic("text.misplaced-boost", "a weight (^) applies to text searches, not to \(place)", at: span,
                           help: "remove the ^ and its number"))
  }

  private mutating func bindSimilar(_ similar: SimilarSyntax, _ span: SourceSpan) throws -> BoundExpression {
    guard !TextSearch.terms(of: similar.phrase).isEmpty else {
      throw error(Diagnostic("similar.empty", "the text after 'similar' has no words", at: span, help: "write similar \"stars in the night sky\""))
    }
    let distance = similar.maxDistance ?? SimilarSearch.defaultMaxDistance
    guard distance >= 0 && distance <= 2 else {
      throw error(Diagnostic("similar.distance-range", "'within' is a cosine distance from 0 to 2, not \(JSONValue.format(number: distance))",
                             at: similar.maxDistanceSpan ?? span, help: "0 is identical, 1 unrelated, 2 opposite; try within 0.8"))
    }
    var count: Int?
    if let maxCount = similar.maxCount {
      guard maxCount >= 1, maxCount <= 1_000_000, maxCount.rounded() == maxCount else {
        throw error(Diagnostic("similar.count-range", "'limit' needs a whole number from 1 to 1000000", at: similar.maxCountSpan ?? span))
      }
      count = Int(maxCount)
    }
    // Items without a vector: explicit keywords match by any of them, the phrase by all its words.
    let keywords: TextSearch?
    if let words = similar.keywords {
      let terms = TextSearch.terms(of: words)
      keywords = terms.isEmpty ? nil : TextSearch(terms: terms, requireAll: false)
    } else {
      keywords = TextSearch(terms: TextSearch.terms(of: similar.phrase), requireAll: true)
    }
    return .similar(SimilarSearch(phrase: similar.phrase, maxDistance: distance, maxCount: count, keywords: keywords))
  }

  private mutating func resolveTime(_ literal: TimeLiteral, _ span: SourceSpan) throws -> TimeValue {
    if literal.function == "iso" {
      guard let text = literal.iso, let value = TimeResolver.resolve(iso: text, clock: context.clock) else {
        throw error(Diagnostic("time.invalid-iso", "'\(literal.iso ?? "")' is not an ISO-8601 date", at: span,
                               help: "write $time.iso(2026-10-01) or $time.iso(2026-10-01T08:00:00Z)"))
      }
      return value
    }
    guard let value = TimeResolver.resolve(function: literal.function, offset: literal.offset, clock: context.clock) else {
      if TimeResolver.functionNames.contains(literal.function) {
        throw error(Diagnostic("time.out-of-range", "the offset of $time.\(literal.function) is too large", at: span,
                               help: "dates must lie within about 100,000 years of today"))
      }
      throw error(Diagnostic("time.unknown-function", "unknown $time function '\(literal.function)'", at: literal.functionSpan)
        .suggesting(closestMatch(to: literal.function, in: TimeResolver.functionNames).map { "$time." + $0 }))
    }
    return value
  }

  // MARK: Calls

  private mutating func bindCall(
    _ name: String, _ nameSpan: SourceSpan, _ arguments: [Argument], span: SourceSpan
  ) throws -> (BoundExpression, ValueType) {
    if name == "InRange" || name == "inRange" {
      guard arguments.count == 3 else {
        throw error(Diagnostic("call.arity", "InRange takes an attribute, a low and a high value", at: span,
                               help: "write InRange(distance, 2, 8)"))
      }
      guard let target = attributeTarget(of: arguments[0].value) else {
        if case .identifier(let attribute) = arguments[0].value.kind { throw error(unknownAttribute(attribute, arguments[0].value.span)) }
        throw error(Diagnostic("call.expected-attribute", "InRange needs an attribute first", at: arguments[0].value.span))
      }
      let low = try comparisonValue(arguments[1].value, for: target)
      let high = try comparisonValue(arguments[2].value, for: target)
      func bound(_ literal: ComparisonLiteral, _ span: SourceSpan, upper: Bool) throws -> Double {
        switch (target.scalarType, literal) {
        case (.number, .number(let n)): return n
        case (.date, .time(let t)): return upper ? (t.isInstant ? t.end : t.end.addingTimeInterval(-0.001)).timeIntervalSince1970 : t.start.timeIntervalSince1970
        case (.date, .number(let n)):
          let date = TimeResolver.referenceDate(seconds: n).start
          try expectRepresentable(date, span)
          return date.timeIntervalSince1970
        case (.date, .string(let s)):
          guard let t = TimeResolver.resolve(iso: s.text, clock: context.clock) else { fallthrough }
          return upper ? (t.isInstant ? t.end : t.end.addingTimeInterval(-0.001)).timeIntervalSince1970 : t.start.timeIntervalSince1970
        default:
          throw error(Diagnostic("type.mismatch", "InRange needs numbers or dates matching '\(target.displayName)' (\(Self.describe(target)))", at: span))
        }
      }
      let lo = try bound(low, arguments[1].value.span, upper: false)
      let hi = try bound(high, arguments[2].value.span, upper: true)
      return (.test(AttributeTest(target: target, kind: .range(lo, hi), negated: false)), .boolean)
    }
    guard let function = ScoringFunction(rawValue: name) else {
      throw error(Diagnostic("call.unknown-function", "unknown function '\(name)'", at: nameSpan)
        .suggesting(closestMatch(to: name, in: ScoringFunction.allCases.map(\.rawValue) + ["InRange"])))
    }
    let signature = function.signature
    guard signature.arity.contains(arguments.count) else {
      throw error(Diagnostic("call.arity", "\(name) takes \(signature.arity.lowerBound == signature.arity.upperBound ? "\(signature.arity.lowerBound)" : "\(signature.arity.lowerBound) to \(signature.arity.upperBound)") arguments", at: span,
                             help: "write \(signature.usage)"))
    }
    var bound: [BoundExpression] = []
    var types: [ValueType] = []
    for (offset, argument) in arguments.enumerated() {
      let isCondition = function == .if && offset == 0
      let (expression, type) = try bind(argument.value, asCondition: isCondition)
      bound.append(expression)
      types.append(type)
    }
    switch function {
    case .year, .month, .dayOfMonth, .weekday, .weekOfYear, .hour:
      guard types[0] == .date || types[0] == .any else {
        throw error(Diagnostic("type.mismatch", "\(name) needs a date", at: arguments[0].value.span, help: "write \(signature.usage)"))
      }
    case .recency, .upcoming:
      guard types[0] == .date || types[0] == .any else {
        throw error(Diagnostic("type.mismatch", "\(name) needs a date attribute first", at: arguments[0].value.span,
                               help: "write \(signature.usage), e.g. \(name)(contentModificationDate, 30d)"))
      }
      try expectNumber(types[1], arguments[1].value.span, operation: name)
    case .if:
      try expectCondition(types[0], arguments[0].value.span)
      return (.function(function, bound), types[1] == types[2] ? types[1] : .number)
    case .coalesce:
      return (.function(function, bound), types.first(where: { $0 != .any }) ?? .any)
    case .similarity:
      guard case .constant(.string(let phrase)) = bound[0], !TextSearch.terms(of: phrase).isEmpty else {
        throw error(Diagnostic("type.mismatch", "similarity needs a quoted phrase", at: arguments[0].value.span,
                               help: "write similarity(\"stars in the night sky\")"))
      }
    default:
      for (offset, type) in types.enumerated() { try expectNumber(type, arguments[offset].value.span, operation: name) }
    }
    return (.function(function, bound), .number)
  }

  // MARK: Type helpers

  private mutating func expectCondition(_ type: ValueType, _ span: SourceSpan) throws {
    guard type == .boolean || type == .any else {
      throw error(Diagnostic("type.not-a-condition", "expected a condition, found a \(type.rawValue)", at: span))
    }
  }

  private mutating func expectNumber(_ type: ValueType, _ span: SourceSpan, operation: String) throws {
    guard [.number, .duration, .date, .any, .boolean].contains(type) else {
      throw error(Diagnostic("type.not-a-number", "\(operation) needs a number, found \(type == .string ? "text" : "a \(type.rawValue)")", at: span))
    }
  }

  /// Rejects a date no calendar can hold (a bare number of seconds far beyond any real date).
  private mutating func expectRepresentable(_ date: Date, _ span: SourceSpan) throws {
    guard date.timeIntervalSince1970.magnitude <= TimeResolver.maximumSeconds else {
      throw error(Diagnostic("time.out-of-range", "the date is too far from today", at: span,
                             help: "a number compared with a date counts seconds since 2001-01-01; dates must lie within about 100,000 years"))
    }
  }

  private mutating func expectOrdered(_ type: ValueType, _ span: SourceSpan) throws {
    guard [.number, .duration, .date, .any].contains(type) else {
      throw error(Diagnostic("type.not-ordered", "ordering needs numbers or dates, found \(type == .string ? "text" : "a \(type.rawValue)")", at: span))
    }
  }

  static func type(of value: Value) -> ValueType {
    switch value {
    case .null: .any
    case .bool: .boolean
    case .number: .number
    case .string: .string
    case .date: .date
    }
  }

  static func valueType(_ target: AttributeTarget) -> ValueType {
    switch target.scalarType {
    case .string, .url: .string
    case .number: .number
    case .date: .date
    case .bool: .boolean
    }
  }

  private static func describe(_ target: AttributeTarget) -> String {
    switch target.scalarType {
    case .string, .url: "text"
    case .number: "a number"
    case .date: "a date"
    case .bool: "true or false"
    }
  }

  private static func describe(_ literal: ComparisonLiteral) -> String {
    switch literal {
    case .string(let s): "\"\(s.text)\" is text"
    case .number(let n): "\(JSONValue.format(number: n)) is a number"
    case .time: "the value is a date"
    case .boolean(let b): "\(b) is a Boolean"
    }
  }

  /// `a && (b && c)` becomes `and([a, b, c])`.
  /// The operands of a chain of `op` (`a || b || c`, however the tree leans), left to right.
  static func chain(_ op: BinaryOperator, _ expression: Expression) -> [Expression] {
    var operands: [Expression] = []
    var pending = [expression]
    while let node = pending.popLast() {
      if case .binary(op, let lhs, let rhs) = node.kind {
        pending.append(rhs)
        pending.append(lhs)
      } else {
        operands.append(node)
      }
    }
    return operands
  }

  /// Folds arithmetic on constants.
  static func fold(_ expression: BoundExpression) -> BoundExpression {
    guard case .arithmetic(let op, .constant(.number(let a)), .constant(.number(let b))) = expression else { return expression }
    switch op {
    case .add: return .constant(.number(a + b))
    case .subtract: return .constant(.number(a - b))
    case .multiply: return .constant(.number(a * b))
    case .divide: return b == 0 ? expression : .constant(.number(a / b))
    default: return expression
    }
  }
}

extension ComparisonOperator {
  /// The operator with its sides swapped (`3 < x` is `x > 3`).
  var flipped: ComparisonOperator {
    switch self {
    case .less: .greater
    case .greater: .less
    case .lessEqual: .greaterEqual
    case .greaterEqual: .lessEqual
    default: self
    }
  }
}

extension TextSearch {
  /// The words of a search text: split at whitespace; a trailing `*` makes a prefix term.
  static func terms(of text: String) -> [Term] {
    var text = text
    return text.withUTF8(asciiTerms) ?? termsByCharacter(text)
  }

  /// `termsByCharacter` for ASCII text, byte by byte (every text search binds its words, and
  /// splitting by `Character` cost a fifth of preparing a short query); nil for other text.
  static func asciiTerms(_ bytes: UnsafeBufferPointer<UInt8>) -> [Term]? {
    guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
    // Whitespace as `Character.isWhitespace` has it in ASCII, and U+0001.
    func separates(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) || byte == 0x01 }
    func trimmed(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "*") }
    func alphanumeric(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") || (byte >= 0x30 && byte <= 0x39) }
    var terms: [Term] = []
    var index = 0
    while index < bytes.count {
      while index < bytes.count, separates(bytes[index]) { index += 1 }
      var end = index
      while end < bytes.count, !separates(bytes[end]) { end += 1 }
      var first = index, last = end
      var prefix = false
      while last > first, bytes[last - 1] == UInt8(ascii: "*") {
        last -= 1
        prefix = true
      }
      while first < last, trimmed(bytes[first]) { first += 1 }
      while last > first, trimmed(bytes[last - 1]) { last -= 1 }
      if bytes[first..<last].contains(where: alphanumeric) {
        terms.append(Term(text: String(decoding: UnsafeBufferPointer(rebasing: bytes[first..<last]), as: UTF8.self), isPrefix: prefix))
      }
      index = end
    }
    return terms
  }

  static func termsByCharacter(_ text: String) -> [Term] {
    // U+0001 asks the tokenizer for stems; only the s modifier may ask, never the text.
    text.split(whereSeparator: { $0.isWhitespace || $0 == "\u{1}" }).compactMap { word in
      var w = String(word)
      var prefix = false
      while w.hasSuffix("*") { w.removeLast(); prefix = true }
      let cleaned = w.trimmingCharacters(in: ["\"", "?", "*"])
      guard cleaned.contains(where: { $0.isLetter || $0.isNumber }) else { return nil }
      return Term(text: cleaned, isPrefix: prefix)
    }
  }
}
