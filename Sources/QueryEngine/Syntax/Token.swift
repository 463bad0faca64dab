/// A lexical token of the query language.
public struct Token: Sendable, Hashable {
  public enum Kind: Sendable, Hashable {
    /// An attribute, stage, parameter or keyword name (`title`, `kMDItemTitle`, `max-by`).
    case identifier(String)
    /// A number (`4.5`, `3`).
    case number(Double)
    /// A duration (`30d`, `2h`, `15m`, `45s`, `1w`) in seconds.
    case duration(Double)
    /// A quoted string with its suffix modifiers (`"june*"cdw`).
    case string(StringToken)
    /// `$time.today(-7)`: the function name; the offset follows as tokens.
    case time(String)
    /// `$time.iso(2026-10-01T00:00:00Z)`: the raw ISO text.
    case timeISO(String)
    /// `$name`, a variable bound by `let`.
    case variable(String)
    /// `[cd]` after a comparison operator (the older modifier form).
    case bracketModifiers(String)
    case `operator`(Operator)
    case leftParen, rightParen, comma, semicolon, pipe, colon, dot, question, star, starStar
    /// `...` (parameter ranges in `.stage` files) and `->` (stage signatures).
    case ellipsis, arrow
    case endOfInput
  }

  /// Punctuation operators.
  public enum Operator: String, Sendable, Hashable, CaseIterable {
    case equal = "=="
    case singleEqual = "="
    case notEqual = "!="
    case less = "<"
    case greater = ">"
    case lessEqual = "<="
    case greaterEqual = ">="
    case and = "&&"
    case or = "||"
    case not = "!"
    case plus = "+"
    case minus = "-"
    case slash = "/"
    case percent = "%"
  }

  public var kind: Kind
  public var span: SourceSpan
  /// True when whitespace or a comment precedes the token (bare values are runs of adjacent tokens).
  public var precededBySpace: Bool
}

/// A quoted string as written.
public struct StringToken: Sendable, Hashable {
  public enum Quote: Sendable, Hashable {
    /// `"..."`: wildcards `*` and `?` are active.
    case double
    /// `'...'`: the exact whole value; `*` and `?` are literal.
    case single
  }

  /// The unescaped text; `literalMask` marks characters that were escaped (`\*` is a literal star).
  public var text: String
  /// Offsets (in `Character`s of `text`) of wildcard characters that were escaped.
  public var escapedWildcards: Set<Int>
  public var quote: Quote
  /// Modifier letters written after the closing quote (`cdw`).
  public var modifiers: String
  /// Where the modifiers are, for diagnostics.
  public var modifierSpan: SourceSpan?
  /// The weight written after `^` (`"glacier"^2`), for a text search's terms.
  public var boost: Double? = nil
  /// Where `^` and the weight are, for diagnostics.
  public var boostSpan: SourceSpan? = nil
}
