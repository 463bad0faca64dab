import Foundation

/// A strict JSON parser (RFC 8259) that reports the line and column of every error and can
/// tell where each element of a top-level array starts, so item files report bad items by line.
public struct JSONParser {
  /// A syntax error with its 1-based position.
  public struct SyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var line: Int
    public var column: Int
    public var description: String { "\(message) at line \(line), column \(column)" }
  }

  private let bytes: [UInt8]
  private var index = 0
  private var line = 1
  private var lineStart = 0
  /// Nesting limit, so hostile input cannot exhaust the stack.
  private let maximumDepth = 512

  public init(_ text: String) { bytes = Array(text.utf8) }
  public init(bytes: [UInt8]) { self.bytes = bytes }

  /// Parses one complete JSON document.
  public static func parse(_ text: String) throws(SyntaxError) -> JSONValue {
    var parser = JSONParser(text)
    return try parser.parseDocument()
  }

  /// Parses one complete JSON document from UTF-8 bytes, such as an HTTP body.
  package static func parse(_ data: Data) throws(SyntaxError) -> JSONValue {
    var parser = JSONParser(bytes: Array(data))
    return try parser.parseDocument()
  }

  /// Parses UTF-8 bytes holding one object, building only the members whose names `keep`
  /// accepts. The other members' values are checked for structure and passed over without
  /// being built or validated as UTF-8: for records this program wrote, of which a query
  /// reads a few attributes.
  package static func parseObject(_ bytes: [UInt8], keeping keep: (String) -> Bool) throws -> JSONObject {
    var object = JSONObject()
    try forEachMember(bytes, recognise: { _ in nil }, keeping: { name, _ in keep(name) }) { name, _, value in _ = object.insertNew(name, value) }
    return object
  }

  /// Parses `bytes` as one object and hands `body` each member `keep` accepts (asked with the
  /// name and its tag), in order, with the tag `recognise` gave its name; the object itself
  /// is never built. A name without escapes is first offered to `recognise` as raw bytes (a
  /// known name's string is then shared, not made again). A repeated name is an error, reported where the name ends, as
  /// `parseObject(_:keeping:)` reports it.
  package static func forEachMember(
    _ bytes: [UInt8], recognise: (UnsafeRawBufferPointer) -> (name: String, tag: Int)?, keeping keep: (String, Int?) -> Bool,
    _ body: (_ name: String, _ tag: Int?, _ value: JSONValue) throws -> Void
  ) throws {
    var parser = JSONParser(bytes: bytes)
    parser.skipWhitespace()
    guard parser.peek == UInt8(ascii: "{") else { throw parser.error("expected '{'") }
    parser.advance()
    parser.skipWhitespace()
    if parser.peek == UInt8(ascii: "}") {
      parser.advance()
    } else {
      // Names seen so far: known names as bits of their tags (no array to grow for every
      // record read), other names as strings.
      var seenTags = SIMD4<UInt64>()
      var seenNames: [String] = []
      while true {
        parser.skipWhitespace()
        guard parser.peek == UInt8(ascii: "\"") else { throw parser.error("expected a quoted member name") }
        let (name, tag) = try parser.parseName(recognise)
        // A known name written with escapes comes without a tag (and is handed on without
        // one); for finding repeats its text gives it its tag.
        var known = tag
        if known == nil { var text = name; known = text.withUTF8 { recognise(UnsafeRawBufferPointer($0)) }?.tag }
        let repeated: Bool
        if let known, known < 256 {
          let bit = UInt64(1) << UInt64(known & 63)
          repeated = seenTags[known >> 6] & bit != 0
          seenTags[known >> 6] |= bit
        } else {
          repeated = seenNames.contains { $0.utf8.count == name.utf8.count && $0 == name }
          seenNames.append(name)
        }
        if repeated { throw parser.error("duplicate member \"\(name)\"") }
        parser.skipWhitespace()
        guard parser.peek == UInt8(ascii: ":") else { throw parser.error("expected ':' after member name") }
        parser.advance()
        parser.skipWhitespace()
        if keep(name, tag) {
          try body(name, tag, try parser.parseValue(depth: 1))
        } else {
          try parser.skipValue(depth: 1)
        }
        parser.skipWhitespace()
        if parser.peek == UInt8(ascii: ",") { parser.advance(); continue }
        if parser.peek == UInt8(ascii: "}") { parser.advance(); break }
        throw parser.error("expected ',' or '}' in object")
      }
    }
    parser.skipWhitespace()
    if parser.index < bytes.count { throw parser.error("unexpected text after the JSON value") }
  }

  /// A member name at its opening quote: `recognise`'s string and tag when the name has no
  /// escape and it knows the bytes, otherwise the parsed string without a tag.
  private mutating func parseName(_ recognise: (UnsafeRawBufferPointer) -> (name: String, tag: Int)?) throws(SyntaxError) -> (String, Int?) {
    let start = index + 1
    let end = Self.firstSpecial(in: bytes, from: start)
    if end < bytes.count, bytes[end] == UInt8(ascii: "\""),
      let known = bytes.withUnsafeBytes({ recognise(UnsafeRawBufferPointer(rebasing: $0[start..<end])) })
    {
      index = end + 1
      return (known.name, known.tag)
    }
    return (try parseString(), nil)
  }

  /// Parses the whole input as one value followed only by whitespace.
  public mutating func parseDocument() throws(SyntaxError) -> JSONValue {
    skipWhitespace()
    let value = try parseValue(depth: 0)
    skipWhitespace()
    if index < bytes.count { throw error("unexpected text after the JSON value") }
    return value
  }

  /// Parses one value at the start of the input, nested `depth` deep (an array's element is
  /// 1), and returns it with the bytes it took; what follows it is not looked at
  /// (`JSONValueStream` finds each value of a file and hands it here).
  package mutating func parseValuePrefix(depth: Int) throws(SyntaxError) -> (value: JSONValue, consumed: Int) {
    let value = try parseValue(depth: depth)
    return (value, index)
  }

  /// Parses top-level values separated only by whitespace (one pretty-printed object, or a
  /// stream of them as `jq` writes) and returns each with the line it starts on.
  public mutating func parseValuesWithLines() throws(SyntaxError) -> [(value: JSONValue, line: Int)] {
    var result: [(JSONValue, Int)] = []
    skipWhitespace()
    while index < bytes.count {
      let startLine = line
      result.append((try parseValue(depth: 0), startLine))
      skipWhitespace()
    }
    return result
  }

  /// Parses a top-level array and returns each element with the line it starts on.
  public mutating func parseArrayElementsWithLines() throws(SyntaxError) -> [(value: JSONValue, line: Int)] {
    skipWhitespace()
    guard peek == UInt8(ascii: "[") else { throw error("expected '['") }
    advance()
    var result: [(JSONValue, Int)] = []
    skipWhitespace()
    if peek == UInt8(ascii: "]") {
      advance()
    } else {
      while true {
        skipWhitespace()
        let startLine = line
        result.append((try parseValue(depth: 1), startLine))
        skipWhitespace()
        if peek == UInt8(ascii: ",") { advance(); continue }
        if peek == UInt8(ascii: "]") { advance(); break }
        throw error("expected ',' or ']' in array")
      }
    }
    skipWhitespace()
    if index < bytes.count { throw error("unexpected text after the JSON value") }
    return result
  }

  private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

  private mutating func advance() {
    if bytes[index] == UInt8(ascii: "\n") {
      line += 1
      lineStart = index + 1
    }
    index += 1
  }

  private func error(_ message: String) -> SyntaxError {
    // Columns count characters, not bytes, so carets line up under non-ASCII text.
    let column = String(decoding: bytes[lineStart..<min(index, bytes.count)], as: UTF8.self).count + 1
    return SyntaxError(message: message, line: line, column: column)
  }

  private mutating func skipWhitespace() {
    while let b = peek, b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { advance() }
  }

  private mutating func parseValue(depth: Int) throws(SyntaxError) -> JSONValue {
    guard depth < maximumDepth else { throw error("JSON nested too deeply") }
    guard let b = peek else { throw error("unexpected end of input, expected a value") }
    switch b {
    case UInt8(ascii: "{"): return try parseObject(depth: depth)
    case UInt8(ascii: "["): return try parseArray(depth: depth)
    case UInt8(ascii: "\""): return .string(try parseString())
    case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
    case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
    case UInt8(ascii: "n"): try expectLiteral("null"); return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
    default:
      throw error("unexpected character '\(String(decoding: [b], as: UTF8.self))', expected a value")
    }
  }

  private mutating func expectLiteral(_ literal: String) throws(SyntaxError) {
    let start = index
    for expected in literal.utf8 {
      guard peek == expected else {
        index = start
        throw error("invalid literal, expected '\(literal)'")
      }
      advance()
    }
  }

  /// The object at `{`, every member built (`forEachMember` reads a record's chosen members).
  private mutating func parseObject(depth: Int) throws(SyntaxError) -> JSONValue {
    advance()
    var object = JSONObject()
    skipWhitespace()
    if peek == UInt8(ascii: "}") { advance(); return .object(object) }
    while true {
      skipWhitespace()
      guard peek == UInt8(ascii: "\"") else { throw error("expected a quoted member name") }
      let key = try parseString()
      let keyEnd = (index: index, line: line, lineStart: lineStart)
      skipWhitespace()
      guard peek == UInt8(ascii: ":") else { throw error("expected ':' after member name") }
      advance()
      skipWhitespace()
      let value = try parseValue(depth: depth + 1)
      guard object.insertNew(key, value) else {
        // Reported where the name ends, as when names were checked before their values.
        (index, line, lineStart) = keyEnd
        throw error("duplicate member \"\(key)\"")
      }
      skipWhitespace()
      if peek == UInt8(ascii: ",") { advance(); continue }
      if peek == UInt8(ascii: "}") { advance(); return .object(object) }
      throw error("expected ',' or '}' in object")
    }
  }

  /// Passes over one value, checking its structure but building nothing.
  private mutating func skipValue(depth: Int) throws(SyntaxError) {
    guard depth < maximumDepth else { throw error("JSON nested too deeply") }
    guard let b = peek else { throw error("unexpected end of input, expected a value") }
    switch b {
    case UInt8(ascii: "{"), UInt8(ascii: "["):
      let close = b == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
      advance()
      skipWhitespace()
      if peek == close { advance(); return }
      while true {
        skipWhitespace()
        if close == UInt8(ascii: "}") {
          guard peek == UInt8(ascii: "\"") else { throw error("expected a quoted member name") }
          try skipString()
          skipWhitespace()
          guard peek == UInt8(ascii: ":") else { throw error("expected ':' after member name") }
          advance()
          skipWhitespace()
        }
        try skipValue(depth: depth + 1)
        skipWhitespace()
        if peek == UInt8(ascii: ",") { advance(); continue }
        if peek == close { advance(); return }
        throw error(close == UInt8(ascii: "}") ? "expected ',' or '}' in object" : "expected ',' or ']' in array")
      }
    case UInt8(ascii: "\""): try skipString()
    default: _ = try parseValue(depth: depth)  // a number or a literal: short
    }
  }

  /// Passes over a string (at its opening quote) without building or validating it.
  private mutating func skipString() throws(SyntaxError) {
    var i = index + 1
    while true {
      i = Self.firstSpecial(in: bytes, from: i)
      guard i < bytes.count else { break }
      let b = bytes[i]
      if b == UInt8(ascii: "\"") {
        index = i + 1
        return
      }
      if b == UInt8(ascii: "\\") {
        i += 2
      } else {
        index = i
        throw error("control character in string")
      }
    }
    index = bytes.count
    throw error("unterminated string")
  }

  /// The position of the first byte at or after `start` that ends a plain run of string
  /// bytes (a quote, a backslash or a control character), or `bytes.count`.
  ///
  /// A stored record's long texts are mostly passed over (a partial read) or copied whole,
  /// so the scan goes eight bytes at a time: a word none of whose bytes is `"`, `\` or below
  /// 0x20 is stepped over at once (the zero-byte and less-than tests of Anderson's bit hacks,
  /// https://graphics.stanford.edu/~seander/bithacks.html#ValueInWord).
  @inline(__always)
  static func firstSpecial(in bytes: [UInt8], from start: Int) -> Int {
    bytes.withUnsafeBufferPointer { firstSpecial(in: $0, from: start) }
  }

  @inline(__always)
  static func firstSpecial(in buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
    let count = buffer.count
    guard let base = buffer.baseAddress else { return count }
    var i = start
    if count >= 8 {
      let ones: UInt64 = 0x0101_0101_0101_0101
      let highs: UInt64 = 0x8080_8080_8080_8080
      while i <= count - 8 {
        let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        let special =
          ((quotes &- ones) & ~quotes) | ((backslashes &- ones) & ~backslashes) | ((word &- ones &* 0x20) & ~word)
        if special & highs != 0 { break }
        i += 8
      }
    }
    while i < count {
      let b = base[i]
      if b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") || b < 0x20 { return i }
      i += 1
    }
    return count
  }

  /// The bytes of a string with escapes, whose text starts at `start` (after its opening
  /// quote), and the index after its closing quote; nil unless every escape is well formed
  /// (the caller then decodes it byte by byte, which says where it is wrong).
  ///
  /// A document's text has an escape on every line: its closing quote is found first (an
  /// escape's two bytes stepped over), so the text, never longer decoded than written, is
  /// decoded into one buffer a run at a time.
  static func decodeEscaped(_ source: UnsafeBufferPointer<UInt8>, start: Int) -> (bytes: [UInt8], end: Int)? {
    guard let base = source.baseAddress else { return nil }
    let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
    var close = start
    while true {
      close = firstSpecial(in: source, from: close)
      guard close < source.count else { return nil }
      if base[close] == quote { break }
      guard base[close] == backslash, close + 1 < source.count else { return nil }
      close += 2
    }
    /// Four hex digits at `at` (before the closing quote) as a number.
    func hex4(_ at: Int) -> UInt32? {
      guard at + 4 <= close else { return nil }
      var value: UInt32 = 0
      for b in UnsafeBufferPointer(start: base + at, count: 4) {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt32(b - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value << 4 | UInt32(b - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): value = value << 4 | UInt32(b - UInt8(ascii: "A") + 10)
        default: return nil
        }
      }
      return value
    }
    var wellFormed = true
    let bytes = [UInt8](unsafeUninitializedCapacity: close - start) { out, written in
      var (i, o) = (start, 0)
      decoding: while true {
        let next = firstSpecial(in: source, from: i)
        if next > i {
          (out.baseAddress! + o).initialize(from: base + i, count: next - i)
          o += next - i
          i = next
        }
        // Before the closing quote, `firstSpecial` stops only at escapes (found above).
        if i == close { break }
        let escaped = base[i + 1]
        i += 2
        switch escaped {
        case quote, backslash, UInt8(ascii: "/"): out[o] = escaped
        case UInt8(ascii: "b"): out[o] = 0x08
        case UInt8(ascii: "f"): out[o] = 0x0C
        case UInt8(ascii: "n"): out[o] = 0x0A
        case UInt8(ascii: "r"): out[o] = 0x0D
        case UInt8(ascii: "t"): out[o] = 0x09
        case UInt8(ascii: "u"):
          guard var code = hex4(i) else { wellFormed = false; break decoding }
          i += 4
          if (0xD800...0xDBFF).contains(code) {
            guard i + 1 < close, base[i] == backslash, base[i + 1] == UInt8(ascii: "u"), let low = hex4(i + 2), (0xDC00...0xDFFF).contains(low)
            else { wellFormed = false; break decoding }
            i += 6
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
          }
          guard let scalar = Unicode.Scalar(code) else { wellFormed = false; break decoding }
          for unit in UTF8.encode(scalar)! {
            out[o] = unit
            o += 1
          }
          continue decoding
        default:
          wellFormed = false
          break decoding
        }
        o += 1
      }
      written = o
    }
    return wellFormed ? (bytes, close + 1) : nil
  }

  private mutating func parseArray(depth: Int) throws(SyntaxError) -> JSONValue {
    advance()
    var elements: [JSONValue] = []
    skipWhitespace()
    if peek == UInt8(ascii: "]") { advance(); return .array(elements) }
    while true {
      skipWhitespace()
      elements.append(try parseValue(depth: depth + 1))
      skipWhitespace()
      if peek == UInt8(ascii: ",") { advance(); continue }
      if peek == UInt8(ascii: "]") { advance(); return .array(elements) }
      throw error("expected ',' or ']' in array")
    }
  }

  private mutating func parseString() throws(SyntaxError) -> String {
    advance()  // opening quote
    // Most strings have no escape: their bytes up to the closing quote are the string, made
    // in one validation instead of a byte-by-byte copy. (A string holds no raw newline, so
    // the line count needs no update.)
    let start = index
    let end = Self.firstSpecial(in: bytes, from: index)
    if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
      index = end + 1
      guard let s = UTF8Validation.string(bytes, start..<end) else { throw error("string is not valid UTF-8") }
      return s
    }
    if let decoded = bytes.withUnsafeBufferPointer({ Self.decodeEscaped($0, start: start) }) {
      index = decoded.end
      guard let s = UTF8Validation.string(decoded.bytes, decoded.bytes.indices) else { throw error("string is not valid UTF-8") }
      return s
    }
    var buffer = Array(bytes[start..<end])
    index = end
    while true {
      // The plain run up to the next quote, escape or control character, copied whole.
      let next = Self.firstSpecial(in: bytes, from: index)
      if next > index {
        buffer.append(contentsOf: bytes[index..<next])
        index = next
      }
      guard let b = peek else { throw error("unterminated string") }
      if b == UInt8(ascii: "\"") { advance(); break }
      if b == UInt8(ascii: "\\") {
        advance()
        guard let e = peek else { throw error("unterminated string") }
        advance()
        switch e {
        case UInt8(ascii: "\""): buffer.append(e)
        case UInt8(ascii: "\\"): buffer.append(e)
        case UInt8(ascii: "/"): buffer.append(e)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
          var code = try parseHex4()
          if (0xD800...0xDBFF).contains(code) {
            guard peek == UInt8(ascii: "\\") else { throw error("unpaired surrogate in \\u escape") }
            advance()
            guard peek == UInt8(ascii: "u") else { throw error("unpaired surrogate in \\u escape") }
            advance()
            let low = try parseHex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid low surrogate in \\u escape") }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
          } else if (0xDC00...0xDFFF).contains(code) {
            throw error("unpaired surrogate in \\u escape")
          }
          guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
          buffer.append(contentsOf: Array(String(Character(scalar)).utf8))
        default:
          throw error("invalid escape '\\\(String(decoding: [e], as: UTF8.self))'")
        }
      } else {
        // `firstSpecial` stopped at neither a quote nor an escape.
        throw error("control character in string")
      }
    }
    guard let s = UTF8Validation.string(buffer, buffer.indices) else { throw error("string is not valid UTF-8") }
    return s
  }

  /// 10^0 ... 10^15, each exact in a double.
  private static let powersOfTen: [Double] = (0...15).map { exponent in
    (0..<exponent).reduce(1.0) { product, _ in product * 10 }
  }

  private mutating func parseHex4() throws(SyntaxError) -> UInt32 {
    var value: UInt32 = 0
    for _ in 0..<4 {
      guard let b = peek else { throw error("unterminated \\u escape") }
      let digit: UInt32
      switch b {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
      default: throw error("invalid hex digit in \\u escape")
      }
      value = value * 16 + digit
      advance()
    }
    return value
  }

  private mutating func parseNumber() throws(SyntaxError) -> Double {
    let start = index
    let negative = peek == UInt8(ascii: "-")
    if negative { advance() }
    guard let first = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
      throw error("invalid number")
    }
    // The digits as an integer while they fit in a double's 53 bits exactly (15 digits do):
    // then digits / 10^k is the correctly rounded value (Clinger's fast path), without
    // making a string for `Double(_:)`.
    var mantissa: Int64 = 0
    var digits = 0
    var fractionDigits = 0
    if first == UInt8(ascii: "0") {
      advance()
    } else {
      while let d = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(d) {
        mantissa = mantissa &* 10 &+ Int64(d - UInt8(ascii: "0"))
        digits += 1
        advance()
      }
    }
    if peek == UInt8(ascii: ".") {
      advance()
      guard let d = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(d) else {
        throw error("invalid number: expected digits after '.'")
      }
      while let d = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(d) {
        mantissa = mantissa &* 10 &+ Int64(d - UInt8(ascii: "0"))
        digits += 1
        fractionDigits += 1
        advance()
      }
    }
    if digits <= 15, peek != UInt8(ascii: "e"), peek != UInt8(ascii: "E") {
      let magnitude = Double(mantissa) / Self.powersOfTen[fractionDigits]
      return negative ? -magnitude : magnitude
    }
    if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
      advance()
      if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { advance() }
      guard let d = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(d) else {
        throw error("invalid number: expected exponent digits")
      }
      while let d = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(d) { advance() }
    }
    let text = String(decoding: bytes[start..<index], as: UTF8.self)
    guard let value = Double(text), value.isFinite else {
      index = start
      throw error("number out of range")
    }
    return value
  }
}
