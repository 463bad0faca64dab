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
      return Self.holdsWords(wordPatterns, in: value, pattern)
    }
  }

  /// Whether consecutive words of `value` match `wordPatterns`, one each. The words stream
  /// past a window of the last few, as ranges of the value's bytes: a document of megabytes is
  /// not split into an array of strings first, and an ASCII word is compared byte by byte,
  /// without folding it into a new string.
  private static func holdsWords(_ wordPatterns: [WordPattern], in value: String, _ pattern: MatchPattern) -> Bool {
    let count = wordPatterns.count
    var window = [UnsafeBufferPointer<UInt8>](repeating: UnsafeBufferPointer(start: nil, count: 0), count: count)
    var seen = 0
    var found = false
    forEachWord(of: value, splitCamelCase: pattern.wordBased) { word in
      window[seen % count] = word
      seen += 1
      guard seen >= count else { return true }
      let first = seen - count
      for (offset, wordPattern) in wordPatterns.enumerated() where !matches(window[(first + offset) % count], wordPattern, pattern) {
        return true
      }
      found = true
      return false
    }
    return found
  }

  private static func matches(_ word: UnsafeBufferPointer<UInt8>, _ wordPattern: WordPattern, _ pattern: MatchPattern) -> Bool {
    switch wordPattern {
    case .equal(let text): return prepared(word, pattern, equals: text, asPrefix: false)
    case .prefix(let text): return prepared(word, pattern, equals: text, asPrefix: true)
    case .regex(let regex):
      let text = String(decoding: word, as: UTF8.self)
      return regex.matches(pattern.diacriticInsensitive ? TextFolding.stripDiacritics(text) : text).matched
    }
  }

  /// Whether `word` (UTF-8), prepared (`prepare`), equals `text` or starts with it. ASCII folds
  /// to ASCII by lowercasing alone, and ASCII strings are equal (or one starts the other)
  /// exactly when their bytes are; anything else is compared as `String`s, canonical
  /// equivalence and all.
  private static func prepared(_ word: UnsafeBufferPointer<UInt8>, _ pattern: MatchPattern, equals text: String, asPrefix: Bool) -> Bool {
    let textBytes = text.utf8
    guard word.allSatisfy({ $0 < 0x80 }), textBytes.allSatisfy({ $0 < 0x80 }) else {
      let folded = prepare(String(decoding: word, as: UTF8.self), pattern)
      return asPrefix ? folded.hasPrefix(text) : folded == text
    }
    guard asPrefix ? word.count >= textBytes.count : word.count == textBytes.count else { return false }
    let lower = pattern.caseInsensitive
    for (byte, expected) in zip(word, textBytes) {
      let folded = lower && byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
      if folded != expected { return false }
    }
    return true
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
    forEachWord(of: value, splitCamelCase: splitCamelCase) { words.append(String(decoding: $0, as: UTF8.self)); return true }
    return words
  }

  /// Calls `body` with the UTF-8 bytes of each word of `value` (see
  /// `words(of:splitCamelCase:)`), in order, until it returns false. The bytes of the words
  /// it was given stay valid until `forEachWord` returns.
  ///
  /// A word is made of characters (grapheme clusters), classified by their first scalar as
  /// `Character` does. An ASCII byte followed by another ASCII byte (or the end) is a character
  /// of its own, classified by its value; only elsewhere is the character read as a
  /// `Character` (a combining mark joins the letter before it: `e\u{301}` is one letter).
  /// Most text is ASCII, and decoding it character by character was most of a word
  /// pattern's time on long documents.
  static func forEachWord(of value: String, splitCamelCase: Bool, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) {
    var start: Int?
    var previousWasLower = false
    var contiguous = value
    contiguous.withUTF8 { bytes in
      func word(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[range]) }
      var offset = 0
      while offset < bytes.count {
        let here = offset
        let byte = bytes[offset]
        let isWordCharacter: Bool
        let upper: Bool, lower: Bool
        if byte < 0x80, offset + 1 == bytes.count || bytes[offset + 1] < 0x80 {
          offset += 1
          upper = byte >= 0x41 && byte <= 0x5A
          lower = byte >= 0x61 && byte <= 0x7A
          isWordCharacter = upper || lower || (byte >= 0x30 && byte <= 0x39)
        } else {
          let character = value[value.utf8.index(value.utf8.startIndex, offsetBy: here)]
          offset += character.utf8.count
          isWordCharacter = character.isLetter || character.isNumber
          upper = isWordCharacter && splitCamelCase && previousWasLower && character.isUppercase
          lower = isWordCharacter && character.isLowercase
        }
        if isWordCharacter {
          if splitCamelCase, previousWasLower, upper, let wordStart = start {
            guard body(word(wordStart..<here)) else { return }
            start = here
          }
          if start == nil { start = here }
          previousWasLower = lower
        } else {
          if let wordStart = start {
            guard body(word(wordStart..<here)) else { return }
            start = nil
          }
          previousWasLower = false
        }
      }
      if let wordStart = start { _ = body(word(wordStart..<offset)) }
    }
  }
}
