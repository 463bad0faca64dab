import SearchIndex

/// A string pattern of Apple's query syntax with its modifiers, e.g. `"june*"cdw`.
///
/// - `*` matches any run of characters and `?` one character (unless escaped or written in
///   single quotes);
/// - `c` ignores case, `d` ignores diacritics;
/// - `w` matches words: the value is split into words at spaces, punctuation and
///   lower-to-upper case changes (`MyWindowClass` has the words My, Window, Class), and the
///   pattern must match a run of whole words;
/// - `t` matches tokens: like `w`, without splitting at case changes;
/// - otherwise the pattern must match the whole value.
public struct MatchPattern: Sendable, Hashable {
  /// One piece of a pattern.
  public enum Piece: Sendable, Hashable {
    case literal(String)
    case anyRun
    case anyCharacter
  }

  public var pieces: [Piece]
  public var caseInsensitive: Bool
  public var diacriticInsensitive: Bool
  public var wordBased: Bool
  public var tokenized: Bool
  /// The pattern as written, for explain output.
  public var source: String

  public init(pieces: [Piece], caseInsensitive: Bool, diacriticInsensitive: Bool, wordBased: Bool, tokenized: Bool, source: String) {
    self.pieces = pieces
    self.caseInsensitive = caseInsensitive
    self.diacriticInsensitive = diacriticInsensitive
    self.wordBased = wordBased
    self.tokenized = tokenized
    self.source = source
  }

  /// Builds the pieces of `literal`: wildcards active unless escaped or single-quoted.
  public init(literal: StringLiteral, modifiers: Set<Character>) {
    var pieces: [Piece] = []
    var buffer = ""
    let wildcardsActive = literal.form != .singleQuoted
    for (offset, character) in literal.text.enumerated() {
      if wildcardsActive, !literal.escapedWildcards.contains(offset), character == "*" || character == "?" {
        if !buffer.isEmpty { pieces.append(.literal(buffer)); buffer = "" }
        if character == "*" {
          if pieces.last != .anyRun { pieces.append(.anyRun) }
        } else {
          pieces.append(.anyCharacter)
        }
      } else {
        buffer.append(character)
      }
    }
    if !buffer.isEmpty { pieces.append(.literal(buffer)) }
    self.init(
      pieces: pieces, caseInsensitive: modifiers.contains("c"), diacriticInsensitive: modifiers.contains("d"),
      wordBased: modifiers.contains("w"), tokenized: modifiers.contains("t"), source: literal.text)
  }

  /// The whole text when the pattern has no wildcard.
  public var exactText: String? {
    if pieces.isEmpty { return "" }
    guard pieces.count == 1, case .literal(let text) = pieces[0] else { return nil }
    return text
  }

  /// True when the pattern is exactly `*` (any value: presence).
  public var isAnyValue: Bool { pieces == [.anyRun] }

  /// The literal text before the first wildcard, for index range scans.
  public var literalPrefix: String {
    if case .literal(let text)? = pieces.first { return text }
    return ""
  }

  /// True when the pattern compares whole values (not words or tokens).
  public var isWholeValue: Bool { !wordBased && !tokenized }

  /// Modifier letters in canonical order, for explain output.
  public var modifierLetters: String {
    (caseInsensitive ? "c" : "") + (diacriticInsensitive ? "d" : "") + (wordBased ? "w" : "") + (tokenized ? "t" : "")
  }
}
