/// Splits query text into tokens, collecting diagnostics instead of stopping at the first
/// problem (an unterminated string, a stray character, an unknown modifier letter).
public struct Lexer {
  let source: SourceText
  private let bytes: [UInt8]
  private var index = 0
  /// True right after a comparison operator, where `[cd]` modifiers may follow.
  private var afterComparison = false
  public private(set) var diagnostics: [Diagnostic] = []

  public init(_ source: SourceText) {
    self.source = source
    self.bytes = source.bytes
  }

  /// Every token, ending with `.endOfInput`.
  public static func tokenize(_ source: SourceText) -> (tokens: [Token], diagnostics: [Diagnostic]) {
    var lexer = Lexer(source)
    var tokens: [Token] = []
    tokens.reserveCapacity(source.bytes.count / 4 + 4)
    while true {
      let token = lexer.next()
      tokens.append(token)
      if case .endOfInput = token.kind { break }
    }
    return (tokens, lexer.diagnostics)
  }

  /// Modifier letters of Apple's query syntax.
  public static let modifierLetters: Set<Character> = ["c", "d", "w", "t"]
  /// Searchlight's own modifier for text searches: `"connected"s` finds every form of the word.
  public static let stemModifier: Character = "s"

  private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }
  private func peek(_ ahead: Int) -> UInt8? { index + ahead < bytes.count ? bytes[index + ahead] : nil }

  private static func isIdentifierStart(_ b: UInt8) -> Bool {
    (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 95 || b >= 0x80
  }

  private static func isIdentifierContinue(_ b: UInt8) -> Bool {
    isIdentifierStart(b) || (b >= 48 && b <= 57)
  }

  private static func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }

  /// Skips whitespace and `#` comments (to the end of the line); true when any was skipped.
  private mutating func skipTrivia() -> Bool {
    let start = index
    while let b = peek {
      if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D {
        index += 1
      } else if b == UInt8(ascii: "#") {
        while let c = peek, c != 0x0A { index += 1 }
      } else {
        break
      }
    }
    return index > start || start == 0
  }

  public mutating func next() -> Token {
    let wasAfterComparison = afterComparison
    afterComparison = false
    let spaced = skipTrivia()
    if wasAfterComparison, let modifiers = bracketModifiers() { return modifiers }
    let start = index
    guard let b = peek else { return Token(kind: .endOfInput, span: SourceSpan(start, start), precededBySpace: spaced) }
    func make(_ kind: Token.Kind, length: Int) -> Token {
      index += length
      return Token(kind: kind, span: SourceSpan(start, index), precededBySpace: spaced)
    }
    switch b {
    case UInt8(ascii: "("): return make(.leftParen, length: 1)
    case UInt8(ascii: ")"): return make(.rightParen, length: 1)
    case UInt8(ascii: ","): return make(.comma, length: 1)
    case UInt8(ascii: ";"): return make(.semicolon, length: 1)
    case UInt8(ascii: ":"): return make(.colon, length: 1)
    case UInt8(ascii: "."):
      if peek(1) == UInt8(ascii: "."), peek(2) == UInt8(ascii: ".") { return make(.ellipsis, length: 3) }
      if let next = peek(1), Self.isDigit(next) { return lexNumber(start: start, spaced: spaced) }
      return make(.dot, length: 1)
    case UInt8(ascii: "?"): return make(.question, length: 1)
    case UInt8(ascii: "*"):
      return peek(1) == UInt8(ascii: "*") ? make(.starStar, length: 2) : make(.star, length: 1)
    case UInt8(ascii: "|"):
      return peek(1) == UInt8(ascii: "|") ? make(.operator(.or), length: 2) : make(.pipe, length: 1)
    case UInt8(ascii: "&"):
      if peek(1) == UInt8(ascii: "&") { return make(.operator(.and), length: 2) }
      diagnostics.append(Diagnostic("lex.single-ampersand", "'&' is not an operator", at: SourceSpan(start, start + 1), help: "use '&&' for AND"))
      return make(.operator(.and), length: 1)
    case UInt8(ascii: "="):
      return peek(1) == UInt8(ascii: "=") ? lexComparison(.equal, start: start, length: 2, spaced: spaced)
        : lexComparison(.singleEqual, start: start, length: 1, spaced: spaced)
    case UInt8(ascii: "!"):
      return peek(1) == UInt8(ascii: "=") ? lexComparison(.notEqual, start: start, length: 2, spaced: spaced) : make(.operator(.not), length: 1)
    case UInt8(ascii: "<"):
      return peek(1) == UInt8(ascii: "=") ? lexComparison(.lessEqual, start: start, length: 2, spaced: spaced)
        : lexComparison(.less, start: start, length: 1, spaced: spaced)
    case UInt8(ascii: ">"):
      return peek(1) == UInt8(ascii: "=") ? lexComparison(.greaterEqual, start: start, length: 2, spaced: spaced)
        : lexComparison(.greater, start: start, length: 1, spaced: spaced)
    case UInt8(ascii: "+"): return make(.operator(.plus), length: 1)
    case UInt8(ascii: "-"):
      return peek(1) == UInt8(ascii: ">") ? make(.arrow, length: 2) : make(.operator(.minus), length: 1)
    case UInt8(ascii: "/"): return make(.operator(.slash), length: 1)
    case UInt8(ascii: "%"): return make(.operator(.percent), length: 1)
    case UInt8(ascii: "\""), UInt8(ascii: "'"): return lexString(start: start, spaced: spaced)
    case UInt8(ascii: "$"): return lexDollar(start: start, spaced: spaced)
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return lexNumber(start: start, spaced: spaced)
    default:
      if Self.isIdentifierStart(b) { return lexIdentifier(start: start, spaced: spaced) }
      // A stray character: report it and skip it (one whole UTF-8 scalar).
      index += 1
      while let c = peek, c & 0xC0 == 0x80 { index += 1 }
      let span = SourceSpan(start, index)
      diagnostics.append(Diagnostic("lex.unexpected-character", "unexpected character '\(source.slice(span))'", at: span))
      return next()
    }
  }

  /// A comparison operator, and the `[cd]` bracket modifiers that may follow it directly.
  private mutating func lexComparison(_ op: Token.Operator, start: Int, length: Int, spaced: Bool) -> Token {
    index += length
    afterComparison = true
    return Token(kind: .operator(op), span: SourceSpan(start, index), precededBySpace: spaced)
  }

  /// `[cd]` modifiers right after a comparison operator, if present.
  private mutating func bracketModifiers() -> Token? {
    guard peek == UInt8(ascii: "[") else { return nil }
    let start = index
    var end = index + 1
    while end < bytes.count, bytes[end] != UInt8(ascii: "]"), Self.isIdentifierContinue(bytes[end]) { end += 1 }
    guard end < bytes.count, bytes[end] == UInt8(ascii: "]") else {
      diagnostics.append(Diagnostic("lex.unterminated-modifiers", "modifier list is not closed by ']'", at: SourceSpan(start, end)))
      index = end
      return Token(kind: .bracketModifiers(""), span: SourceSpan(start, end), precededBySpace: false)
    }
    let letters = String(decoding: bytes[(start + 1)..<end], as: UTF8.self)
    index = end + 1
    return Token(kind: .bracketModifiers(letters), span: SourceSpan(start, index), precededBySpace: false)
  }

  private mutating func lexIdentifier(start: Int, spaced: Bool) -> Token {
    while let b = peek, Self.isIdentifierContinue(b) { index += 1 }
    var name = String(decoding: bytes[start..<index], as: UTF8.self)
    // `max-by` and `min-by` (select stage) read as one word.
    if (name == "max" || name == "min"), peek == UInt8(ascii: "-"), peek(1) == UInt8(ascii: "b"), peek(2) == UInt8(ascii: "y"),
      peek(3).map({ !Self.isIdentifierContinue($0) }) ?? true
    {
      index += 3
      name += "-by"
    }
    return Token(kind: .identifier(name), span: SourceSpan(start, index), precededBySpace: spaced)
  }

  private mutating func lexNumber(start: Int, spaced: Bool) -> Token {
    while let b = peek, Self.isDigit(b) { index += 1 }
    if peek == UInt8(ascii: "."), let next = peek(1), Self.isDigit(next) {
      index += 1
      while let b = peek, Self.isDigit(b) { index += 1 }
    }
    if let e = peek, e == UInt8(ascii: "e") || e == UInt8(ascii: "E"), let next = peek(1),
      Self.isDigit(next) || ((next == UInt8(ascii: "-") || next == UInt8(ascii: "+")) && peek(2).map(Self.isDigit) == true)
    {
      index += 2
      while let b = peek, Self.isDigit(b) { index += 1 }
    }
    let text = String(decoding: bytes[start..<index], as: UTF8.self)
    var value = Double(text) ?? 0
    if !value.isFinite {
      diagnostics.append(Diagnostic("lex.number-too-large", "the number '\(Self.clipped(text))' is too large", at: SourceSpan(start, index),
                                    help: "numbers must lie within ±1.7976931348623157e308"))
      value = 0
    }
    // A unit letter right after the number makes a duration: 30d, 2h, 15m, 45s, 1w.
    if let unit = peek, Self.isIdentifierStart(unit) {
      let unitStart = index
      while let b = peek, Self.isIdentifierContinue(b) { index += 1 }
      let unitText = String(decoding: bytes[unitStart..<index], as: UTF8.self)
      let seconds: Double? = switch unitText {
      case "s": 1
      case "m", "min": 60
      case "h": 3600
      case "d": 86400
      case "w": 604_800
      default: nil
      }
      guard let seconds else {
        // Not a duration: leave it as an adjacent identifier (bare values such as 2026-05-01T08).
        index = unitStart
        return Token(kind: .number(value), span: SourceSpan(start, index), precededBySpace: spaced)
      }
      if !(value * seconds).isFinite {
        diagnostics.append(Diagnostic("lex.number-too-large", "the duration '\(Self.clipped(text + unitText))' is too long", at: SourceSpan(start, index),
                                      help: "durations must lie within ±1.7976931348623157e308 seconds"))
        return Token(kind: .duration(0), span: SourceSpan(start, index), precededBySpace: spaced)
      }
      return Token(kind: .duration(value * seconds), span: SourceSpan(start, index), precededBySpace: spaced)
    }
    return Token(kind: .number(value), span: SourceSpan(start, index), precededBySpace: spaced)
  }

  /// A long literal shortened for a message.
  private static func clipped(_ text: String) -> String {
    text.count <= 40 ? text : String(text.prefix(37)) + "..."
  }

  private mutating func lexString(start: Int, spaced: Bool) -> Token {
    let quoteByte = bytes[index]
    index += 1
    var buffer: [UInt8] = []
    var escapedWildcards = Set<Int>()
    var characterCount = 0
    var terminated = false
    while let b = peek {
      if b == quoteByte { index += 1; terminated = true; break }
      if b == UInt8(ascii: "\\") {
        let escapeStart = index
        index += 1
        guard let e = peek else { break }
        index += 1
        switch e {
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "*"), UInt8(ascii: "?"):
          escapedWildcards.insert(characterCount)
          buffer.append(e)
        case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "\\"): buffer.append(e)
        case UInt8(ascii: "u"):
          var value: UInt32 = 0
          var digits = 0
          while digits < 4, let h = peek, let digit = Self.hexValue(h) {
            value = value * 16 + digit
            index += 1
            digits += 1
          }
          if digits == 4, let scalar = Unicode.Scalar(value) {
            buffer.append(contentsOf: Array(String(Character(scalar)).utf8))
          } else {
            diagnostics.append(Diagnostic("lex.invalid-escape", "invalid \\u escape; write four hex digits", at: SourceSpan(escapeStart, index)))
          }
        default:
          // Unknown escapes keep the character (Apple's parser is lenient here).
          buffer.append(e)
          if e >= 0x80 { while let c = peek, c & 0xC0 == 0x80 { buffer.append(c); index += 1 } }
        }
        characterCount += 1
        continue
      }
      buffer.append(b)
      index += 1
      if b & 0xC0 != 0x80 { characterCount += 1 }
    }
    if !terminated {
      let quote = quoteByte == UInt8(ascii: "\"") ? "\"" : "'"
      diagnostics.append(Diagnostic(
        "lex.unterminated-string", "unterminated string", at: SourceSpan(start, index),
        help: "add a closing \(quote)", fixIts: [Diagnostic.FixIt(span: SourceSpan(index, index), replacement: quote)]))
    }
    // Modifier letters written directly after the closing quote.
    var modifiers = ""
    var modifierSpan: SourceSpan?
    if terminated, let b = peek, Self.isIdentifierStart(b) {
      let modifierStart = index
      while let c = peek, Self.isIdentifierContinue(c) { index += 1 }
      modifiers = String(decoding: bytes[modifierStart..<index], as: UTF8.self)
      modifierSpan = SourceSpan(modifierStart, index)
    }
    // A boost written directly after the string and its modifiers: `"flutter"s^0.5`.
    var boost: Double?
    var boostSpan: SourceSpan?
    if terminated, peek == UInt8(ascii: "^") {
      let boostStart = index
      index += 1
      let digitsStart = index
      while let b = peek, Self.isDigit(b) { index += 1 }
      if peek == UInt8(ascii: "."), let next = peek(1), Self.isDigit(next) {
        index += 1
        while let b = peek, Self.isDigit(b) { index += 1 }
      }
      boostSpan = SourceSpan(boostStart, index)
      if index > digitsStart, let value = Double(String(decoding: bytes[digitsStart..<index], as: UTF8.self)) {
        boost = value
      } else {
        diagnostics.append(Diagnostic(
          "lex.boost", "'^' after a string must be followed by a number, its weight", at: SourceSpan(boostStart, index),
          help: "write a positive weight, e.g. \"glacier\"^2 or \"glacier\"^0.5"))
      }
    }
    let text = String(decoding: buffer, as: UTF8.self)
    return Token(
      kind: .string(StringToken(
        text: text, escapedWildcards: escapedWildcards, quote: quoteByte == UInt8(ascii: "\"") ? .double : .single,
        modifiers: modifiers, modifierSpan: modifierSpan, boost: boost, boostSpan: boostSpan)),
      span: SourceSpan(start, index), precededBySpace: spaced)
  }

  private static func hexValue(_ b: UInt8) -> UInt32? {
    switch b {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(b - 48)
    case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(b - 87)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(b - 55)
    default: nil
    }
  }

  /// `$time.name`, `$time.iso(...)` or `$variable`.
  private mutating func lexDollar(start: Int, spaced: Bool) -> Token {
    index += 1
    let nameStart = index
    while let b = peek, Self.isIdentifierContinue(b) { index += 1 }
    let name = String(decoding: bytes[nameStart..<index], as: UTF8.self)
    if name.isEmpty {
      diagnostics.append(Diagnostic("lex.empty-variable", "expected a name after '$'", at: SourceSpan(start, index),
                                    help: "write $time.today, $time.now(-3600) or a variable such as $maxState"))
      return Token(kind: .variable(""), span: SourceSpan(start, index), precededBySpace: spaced)
    }
    guard name == "time" else {
      return Token(kind: .variable(name), span: SourceSpan(start, index), precededBySpace: spaced)
    }
    guard peek == UInt8(ascii: ".") else {
      diagnostics.append(Diagnostic("lex.time-function-missing", "expected a function after '$time'", at: SourceSpan(start, index),
                                    help: "write $time.now, $time.today, $time.this_month, ... or $time.iso(2026-10-01)"))
      return Token(kind: .time(""), span: SourceSpan(start, index), precededBySpace: spaced)
    }
    index += 1
    let functionStart = index
    while let b = peek, Self.isIdentifierContinue(b) { index += 1 }
    let function = String(decoding: bytes[functionStart..<index], as: UTF8.self)
    if function == "iso", peek == UInt8(ascii: "(") {
      index += 1
      let textStart = index
      while let b = peek, b != UInt8(ascii: ")"), b != 0x0A { index += 1 }
      var text = String(decoding: bytes[textStart..<index], as: UTF8.self)
      if peek == UInt8(ascii: ")") {
        index += 1
      } else {
        diagnostics.append(Diagnostic("lex.unterminated-iso", "$time.iso( is not closed by ')'", at: SourceSpan(start, index)))
      }
      text = text.trimmingCharacters(in: [" ", "\"", "'"])
      return Token(kind: .timeISO(text), span: SourceSpan(start, index), precededBySpace: spaced)
    }
    return Token(kind: .time(function), span: SourceSpan(start, index), precededBySpace: spaced)
  }
}

extension String {
  func trimmingCharacters(in set: Set<Character>) -> String {
    var s = Substring(self)
    while let first = s.first, set.contains(first) { s = s.dropFirst() }
    while let last = s.last, set.contains(last) { s = s.dropLast() }
    return String(s)
  }
}
