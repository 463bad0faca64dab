/// Words that SQL and `NSPredicate` use as operators where this language writes symbols or
/// patterns (`and`, `or`, `not`, `like`, `contains`, `in`, `between`): a query that uses one
/// gets a diagnostic that says what to write instead, with a fix-it where one operator
/// replaces the word. Both the parser (a statement that ends at such a word) and the stages
/// that take one condition (`where rating > 3 and distance < 5`) ask here.
enum OperatorWords {
  /// The diagnostic for `word` (any case) at `span`; `attribute` and `text` (the string after
  /// the word) make the example concrete. Nil for a word that is not such an operator.
  static func diagnostic(_ word: String, at span: SourceSpan, attribute: String?, text: String?) -> Diagnostic? {
    let id = "parse.operator-word"
    let attribute = attribute ?? "title"
    let text = text ?? "text"
    switch word.lowercased() {
    case "and":
      return Diagnostic(id, "conditions are joined with '&&', not 'and'", at: span, help: "write '&&' (and '||' for or, '!' for not)",
                        fixIts: [.init(span: span, replacement: "&&")])
    case "or":
      return Diagnostic(id, "either condition is written with '||', not 'or'", at: span, help: "write '||' (and '&&' for and, '!' for not)",
                        fixIts: [.init(span: span, replacement: "||")])
    case "not":
      return Diagnostic(id, "a condition is negated with '!', not 'not'", at: span, help: "write '!' before the condition",
                        fixIts: [.init(span: span, replacement: "!")])
    case "like", "matches":
      return Diagnostic(
        id, "a pattern is compared with '=='", at: span,
        help: "write \(attribute) == \"\(text)\" (* and ? are wildcards; c, d or w after the string ignore case, diacritics, or match words)",
        fixIts: [.init(span: span, replacement: "==")])
    case "contains", "includes", "has":
      return Diagnostic(id, "text inside a value is a pattern with '*' around it", at: span, help: "write \(attribute) == \"*\(text)*\"c")
    case "beginswith", "startswith", "starts":
      return Diagnostic(id, "a value's start is a pattern that ends in '*'", at: span, help: "write \(attribute) == \"\(text)*\"c")
    case "endswith", "ends":
      return Diagnostic(id, "a value's end is a pattern that starts with '*'", at: span, help: "write \(attribute) == \"*\(text)\"c")
    case "in":
      return Diagnostic(id, "one of several values is written with '||'", at: span, help: "write \(attribute) == \"a\" || \(attribute) == \"b\"")
    case "between":
      return Diagnostic(id, "a range is written with InRange or two comparisons", at: span,
                        help: "write InRange(\(attribute), LOW, HIGH), or \(attribute) >= LOW && \(attribute) <= HIGH")
    default:
      return nil
    }
  }
}
