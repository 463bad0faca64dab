import SearchIndex

/// Matches values against a `MatchPattern` the same way everywhere: in SQLite (through the
/// `sl_match` function) and in Swift (stages that filter after scoring).
///
/// Plain equality and prefixes compare strings directly; other wildcards run a PCRE2 regex
/// with match limits. Word-based patterns split the value into words first.
public final class PatternMatcher: Sendable {
  public let pattern: MatchPattern
  private let form: Form

  private enum Form: @unchecked Sendable {
    /// Whole value equal to a text (after folding).
    case equal(String)
    /// Whole value starting with a text (after folding).
    case prefix(String)
    /// Whole value matched by a regex.
    case regex(Regex)
    /// Whole value matched by literals between `*` wildcards, found one after the other.
    case glob(Glob)
    /// A run of consecutive words, each matched by one word pattern.
    case words([WordPattern])
  }

  private enum WordPattern: @unchecked Sendable {
    case equal(String)
    case prefix(String)
    case regex(Regex)
  }

  /// Literals with `*` between them (`"*Format:*Boost*"`), each its own regex: the first
  /// matched at the start unless the pattern starts with `*`, the last at the end unless it
  /// ends with `*`, the rest each at its first place after the one before (for literals the
  /// earliest match is always the one to take). One regex with `.*` between the literals
  /// would backtrack once per character of the value, and a document of a few hundred
  /// kilobytes ran into PCRE2's match limit and read as no match.
  struct Glob {
    var head: Regex?
    var middle: [Regex] = []
    var tail: Regex?

    func matches(_ subject: UnsafeBufferPointer<UInt8>) -> Bool {
      var position = 0
      if let head {
        guard let found = head.firstMatch(in: subject, from: 0, anchored: true) else { return false }
        position = found.upperBound
      }
      for literal in middle {
        guard let found = literal.firstMatch(in: subject, from: position, anchored: false) else { return false }
        position = found.upperBound
      }
      guard let tail else { return true }
      return tail.firstMatch(in: subject, from: position, anchored: false) != nil
    }
  }

  public init(_ pattern: MatchPattern) throws(QueryRuntimeError) {
    self.pattern = pattern
    if pattern.isWholeValue {
      if let glob = try Self.glob(pattern) {
        self.form = glob
      } else {
        self.form = try Self.wholeValueForm(pattern.pieces, pattern)
      }
    } else {
      var words: [WordPattern] = []
      for piecesOfWord in Self.splitIntoWords(pattern.pieces) {
        switch try Self.wholeValueForm(piecesOfWord, pattern) {
        case .equal(let text): words.append(.equal(text))
        case .prefix(let text): words.append(.prefix(text))
        case .regex(let regex): words.append(.regex(regex))
        case .words, .glob: break
        }
      }
      self.form = .words(words)
    }
  }

  /// The glob form of a whole-value pattern of literals and `*` that equality or a prefix
  /// does not already decide; nil for other patterns.
  private static func glob(_ pattern: MatchPattern) throws(QueryRuntimeError) -> Form? {
    let pieces = pattern.pieces
    guard pieces.contains(.anyRun), !pieces.contains(.anyCharacter) else { return nil }
    if pieces.count == 2, case .literal = pieces[0], pieces[1] == .anyRun { return nil }
    func regex(_ text: String, atEnd: Bool = false) throws(QueryRuntimeError) -> Regex {
      try Regex("(?:" + literalRegex(text, pattern) + ")" + (atEnd ? "$" : ""), caseless: pattern.caseInsensitive)
    }
    // Wildcards never stand side by side (`MatchPattern` merges them): literals alternate with them.
    var texts = pieces.compactMap { piece -> String? in
      if case .literal(let text) = piece { text } else { nil }
    }
    var glob = Glob()
    if case .literal = pieces.first { glob.head = try regex(texts.removeFirst()) }
    if case .literal = pieces.last, let last = texts.popLast() { glob.tail = try regex(last, atEnd: true) }
    for text in texts { glob.middle.append(try regex(text)) }
    return .glob(glob)
  }

  /// A literal of `pattern` as regex text: escaped, without diacritics for `d`.
  private static func literalRegex(_ text: String, _ pattern: MatchPattern) -> String {
    Regex.escape(pattern.diacriticInsensitive ? TextFolding.stripDiacritics(text) : text)
  }

  private static func wholeValueForm(_ pieces: [MatchPattern.Piece], _ pattern: MatchPattern) throws(QueryRuntimeError) -> Form {
    func fold(_ s: String) -> String { prepare(s, pattern) }
    if pieces.isEmpty { return .equal("") }
    if pieces.count == 1, case .literal(let text) = pieces[0] { return .equal(fold(text)) }
    if pieces.count == 2, case .literal(let text) = pieces[0], pieces[1] == .anyRun { return .prefix(fold(text)) }
    var regex = "^(?:"
    for piece in pieces {
      switch piece {
      case .literal(let text): regex += literalRegex(text, pattern)
      case .anyRun: regex += ".*"
      case .anyCharacter: regex += "."
      }
    }
    regex += ")$"
    return .regex(try Regex(regex, caseless: pattern.caseInsensitive))
  }

  /// A value prepared for comparison: diacritics stripped for `d`, case folded for `c`.
  static func prepare(_ s: String, _ pattern: MatchPattern) -> String {
    switch (pattern.caseInsensitive, pattern.diacriticInsensitive) {
    case (true, true): TextFolding.fold(s)
    case (true, false): TextFolding.caseFold(s)
    case (false, true): TextFolding.stripDiacritics(s)
    case (false, false): s
    }
  }

  /// True when `value` matches.
  public func matches(_ value: String) -> Bool {
    switch form {
    case .equal(let text): return Self.prepare(value, pattern) == text
    case .prefix(let text): return Self.prepare(value, pattern).hasPrefix(text)
    case .regex(let regex):
      return regex.matches(pattern.diacriticInsensitive ? TextFolding.stripDiacritics(value) : value).matched
    case .glob(let glob):
      var subject = pattern.diacriticInsensitive ? TextFolding.stripDiacritics(value) : value
      return subject.withUTF8 { glob.matches($0) }
    case .words(let wordPatterns):
      guard !wordPatterns.isEmpty else { return false }
      let words = Self.words(of: value, splitCamelCase: pattern.wordBased)
      guard words.count >= wordPatterns.count else { return false }
      let prepared = words.map { Self.prepare($0, pattern) }
      let raw = pattern.diacriticInsensitive ? words.map(TextFolding.stripDiacritics) : words
      for start in 0...(words.count - wordPatterns.count) {
        var all = true
        for (offset, wordPattern) in wordPatterns.enumerated() {
          let ok: Bool = switch wordPattern {
          case .equal(let text): prepared[start + offset] == text
          case .prefix(let text): prepared[start + offset].hasPrefix(text)
          case .regex(let regex): regex.matches(raw[start + offset]).matched
          }
          if !ok { all = false; break }
        }
        if all { return true }
      }
      return false
    }
  }

  /// True when any element matches.
  public func matchesAny(_ values: [String]) -> Bool { values.contains(where: matches) }

  /// Splits a pattern into word patterns at characters that are not letters, digits or
  /// wildcards.
  static func splitIntoWords(_ pieces: [MatchPattern.Piece]) -> [[MatchPattern.Piece]] {
    var result: [[MatchPattern.Piece]] = []
    var current: [MatchPattern.Piece] = []
    for piece in pieces {
      switch piece {
      case .anyRun, .anyCharacter: current.append(piece)
      case .literal(let text):
        var buffer = ""
        for character in text {
          if character.isLetter || character.isNumber || character == "_" {
            buffer.append(character)
          } else {
            if !buffer.isEmpty { current.append(.literal(buffer)); buffer = "" }
            if !current.isEmpty { result.append(current); current = [] }
          }
        }
        if !buffer.isEmpty { current.append(.literal(buffer)) }
      }
    }
    if !current.isEmpty { result.append(current) }
    return result
  }

  /// The words of a value: runs of letters and digits, also split at lower-to-upper case
  /// changes when `splitCamelCase` (Apple's `w`: `MyWindowClass` is My, Window, Class, while
  /// `NSWindow` stays one word).
  public static func words(of value: String, splitCamelCase: Bool) -> [String] {
    var words: [String] = []
    var current = ""
    var previousWasLower = false
    for character in value {
      // ASCII first: Unicode's property tables cost more than the rest of the split (two
      // thirds of `textContent == "Lake"w` over long documents).
      if let ascii = character.asciiValue {
        let upper = ascii >= 0x41 && ascii <= 0x5A
        let lower = ascii >= 0x61 && ascii <= 0x7A
        if upper || lower || (ascii >= 0x30 && ascii <= 0x39) {
          if splitCamelCase, previousWasLower, upper, !current.isEmpty {
            words.append(current)
            current = ""
          }
          current.append(character)
          previousWasLower = lower
        } else {
          if !current.isEmpty { words.append(current); current = "" }
          previousWasLower = false
        }
        continue
      }
      if character.isLetter || character.isNumber {
        if splitCamelCase, previousWasLower, character.isUppercase, !current.isEmpty {
          words.append(current)
          current = ""
        }
        current.append(character)
        previousWasLower = character.isLowercase
      } else {
        if !current.isEmpty { words.append(current); current = "" }
        previousWasLower = false
      }
    }
    if !current.isEmpty { words.append(current) }
    return words
  }
}
