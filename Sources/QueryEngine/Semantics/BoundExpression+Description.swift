import Foundation
import SearchIndex

extension BoundExpression {
  /// A readable form with resolved dates (`explain` shows what `$time` became), e.g.
  /// `contentModificationDate in [2026-11-01T00:00:00+01:00, 2026-12-01T00:00:00+01:00)`.
  public func explained(in zone: TimeZone) -> String {
    func date(_ seconds: Double) -> String { ISO8601.format(Date(timeIntervalSince1970: seconds), in: zone) }
    switch self {
    case .constant(let value): return value.jsonValue.compactText
    case .matchAll: return "every item"
    case .textSearch(let search):
      return "text \(search.phrase ? "phrase" : (search.requireAll ? "all of" : "any of")) " + search.terms.enumerated().map { offset, term in
        let weight = search.weights.map { offset < $0.count ? "^" + JSONValue.format(number: $0[offset]) : "" } ?? ""
        return "\"\(term.word)\"" + (term.isPrefix ? "*" : "") + (term.isStemmed ? "s" : "") + weight
      }.joined(separator: " ")
    case .similar(let search):
      var text = "similar to \(JSONValue.string(search.phrase).compactText) within distance \(JSONValue.format(number: search.maxDistance))"
      if let count = search.maxCount { text += ", at most \(count)" }
      if let keywords = search.keywords { text += "; items without a vector: " + BoundExpression.textSearch(keywords).explained(in: zone) }
      return text
    case .test(let test):
      let name = test.target.displayName
      let isDate = test.target.scalarType == .date
      func number(_ n: Double) -> String { isDate ? date(n) : JSONValue.format(number: n) }
      let body: String
      switch test.kind {
      case .present: body = test.negated ? "\(name) is absent" : "\(name) is present"
      case .compare(let op, let n):
        body = test.negated ? "\(name) != \(number(n))" : "\(name) \(op.rawValue) \(number(n))"
      case .within(let start, let end): body = "\(name) \(test.negated ? "not in" : "in") [\(date(start)), \(date(end)))"
      case .range(let low, let high): body = "\(name) in [\(number(low)), \(number(high))]"
      case .match(let pattern):
        let modifiers = pattern.modifierLetters
        body = "\(name) \(test.negated ? "!=" : "==") \(JSONValue.string(pattern.source).compactText)\(modifiers)"
      }
      return test.negated && !body.contains("!=") && !body.contains("not in") && !body.contains("absent") ? "not (\(body))" : body
    case .not(let inner): return "not (\(inner.explained(in: zone)))"
    case .and(let parts): return parts.map { "(\($0.explained(in: zone)))" }.joined(separator: " and ")
    case .or(let parts): return parts.map { "(\($0.explained(in: zone)))" }.joined(separator: " or ")
    case .attribute(let target): return target.displayName
    case .relevance: return "relevance"
    case .score: return "score"
    case .engagement: return "engagement"
    case .negate(let inner): return "-(\(inner.explained(in: zone)))"
    case .arithmetic(let op, let lhs, let rhs): return "(\(lhs.explained(in: zone)) \(op.rawValue) \(rhs.explained(in: zone)))"
    case .compare(let op, let lhs, let rhs): return "\(lhs.explained(in: zone)) \(op.rawValue) \(rhs.explained(in: zone))"
    case .function(let function, let arguments):
      return "\(function.rawValue)(\(arguments.map { $0.explained(in: zone) }.joined(separator: ", ")))"
    }
  }
}
