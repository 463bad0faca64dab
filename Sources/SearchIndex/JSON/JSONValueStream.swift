import Foundation

/// The values of a JSON array (or of top-level values separated by white space, as `jq` writes
/// them) read from a file one at a time, in memory bounded by the largest value rather than
/// by the file: a scan that follows strings and brackets finds where each value ends, and
/// `JSONParser` parses that value alone. Values and syntax errors are those of parsing the
/// whole file (`JSONParser.parseArrayElementsWithLines`, `parseValuesWithLines`), at the same
/// lines; columns count Unicode scalars before a value that starts mid-line (the parser counts
/// characters: they differ only after combining marks on the same line).
package struct JSONValueStream {
  /// A value longer than the limit: the scan stops there instead of holding it.
  package struct ValueTooLong: Error, Sendable, Equatable {
    package var limit: Int
    package var line: Int
  }

  private let handle: FileHandle
  private let isArray: Bool
  private let maximumValueBytes: Int
  private let chunkSize: Int
  private var buffer: [UInt8] = []
  private var position = 0
  private var atEnd = false
  /// The line and the scalars before `position` on it (for error positions).
  private var line = 1
  private var column = 0
  private enum State { case start, element, afterElement, closed }
  private var state = State.start

  /// Reads `prefix` (bytes already read from the start of `handle`, a probe), then the rest of
  /// `handle`; a byte order mark at the start is skipped.
  package init(handle: FileHandle, isArray: Bool, maximumValueBytes: Int, chunkSize: Int = 1 << 20, prefix: [UInt8] = []) {
    self.handle = handle
    self.isArray = isArray
    self.maximumValueBytes = maximumValueBytes
    self.chunkSize = chunkSize
    self.buffer = prefix
  }

  /// The next value and the line it starts on, nil after the last.
  package mutating func next() throws -> (value: JSONValue, line: Int)? {
    while true {
      switch state {
      case .start:
        if try byte(at: 0) == 0xEF, try byte(at: 1) == 0xBB, try byte(at: 2) == 0xBF { position += 3 }
        try skipWhitespace()
        if isArray {
          guard try peek() == UInt8(ascii: "[") else { throw error("expected '['") }
          advance()
          try skipWhitespace()
          if try peek() == UInt8(ascii: "]") {
            advance()
            state = .closed
            continue
          }
        }
        state = .element
      case .element:
        try skipWhitespace()
        if !isArray, try peek() == nil { return nil }
        let startLine = line
        let value = try nextValue()
        state = isArray ? .afterElement : .element
        return (value, startLine)
      case .afterElement:
        try skipWhitespace()
        switch try peek() {
        case UInt8(ascii: ",")?:
          advance()
          state = .element
        case UInt8(ascii: "]")?:
          advance()
          state = .closed
        default:
          throw error("expected ',' or ']' in array")
        }
      case .closed:
        try skipWhitespace()
        guard try peek() == nil else { throw error("unexpected text after the JSON value") }
        return nil
      }
    }
  }

  /// The value at `position`: its bytes found by the scan, then parsed alone. The parser
  /// sees every value whole, so its errors inside one are the errors it gives on the file.
  private mutating func nextValue() throws -> JSONValue {
    let (startLine, startColumn) = (line, column)
    var bytes: [UInt8] = []
    func located(_ error: JSONParser.SyntaxError) -> JSONParser.SyntaxError {
      JSONParser.SyntaxError(
        message: error.message, line: startLine + error.line - 1, column: error.line == 1 ? startColumn + error.column : error.column)
    }
    func take() throws {
      if bytes.count >= maximumValueBytes {
        // A bracket or quote gone wrong early makes the rest of the file look like one value:
        // the parser's error inside what was read comes first.
        var parser = JSONParser(bytes: bytes)
        do { _ = try parser.parseValuePrefix(depth: isArray ? 1 : 0) } catch {
          let lastBreak = bytes.lastIndex(of: 0x0A)
          let endLine = 1 + bytes.lazy.filter { $0 == 0x0A }.count
          let endColumn = String(decoding: bytes[(lastBreak.map { $0 + 1 } ?? 0)...], as: UTF8.self).count + 1
          if (error.line, error.column) != (endLine, endColumn) { throw located(error) }
        }
        throw ValueTooLong(limit: maximumValueBytes, line: startLine)
      }
      bytes.append(buffer[position])
      advance()
    }
    if let first = try peek() {
      switch first {
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        // To the bracket that closes the first, strings followed so that their brackets
        // do not count; a value cut short by the end of the file is the parser's to report.
        var depth = 0
        var inString = false
        var escaped = false
        while let byte = try peek() {
          try take()
          if inString {
            if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
          } else if byte == UInt8(ascii: "\"") {
            inString = true
          } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
            depth += 1
          } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
            depth -= 1
            if depth == 0 { break }
          }
        }
      case UInt8(ascii: "\""):
        try take()
        var escaped = false
        while let byte = try peek() {
          try take()
          if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { break }
        }
      default:
        // A number or a literal: the characters they are made of (at least one, so that a
        // character that starts no value is the parser's "unexpected character"), looked at
        // but not taken: the parser takes what its value is made of, and what follows is
        // the next step's (`[1x]` is "expected ',' or ']'" at the `x`, as on the whole file).
        var length = 1
        while length < maximumValueBytes, let byte = try byte(at: length), Self.isScalarByte(byte) { length += 1 }
        var parser = JSONParser(bytes: Array(buffer[position..<min(position + length, buffer.count)]))
        let value: JSONValue
        let consumed: Int
        do {
          (value, consumed) = try parser.parseValuePrefix(depth: isArray ? 1 : 0)
        } catch {
          throw located(error)
        }
        for _ in 0..<consumed { advance() }
        return value
      }
    }
    var parser = JSONParser(bytes: bytes)
    do {
      return try parser.parseValuePrefix(depth: isArray ? 1 : 0).value
    } catch {
      throw located(error)
    }
  }

  private static func isScalarByte(_ byte: UInt8) -> Bool {
    (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
      || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "E")
  }

  private func error(_ message: String) -> JSONParser.SyntaxError {
    JSONParser.SyntaxError(message: message, line: line, column: column + 1)
  }

  private mutating func skipWhitespace() throws {
    while let byte = try peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { advance() }
  }

  private mutating func peek() throws -> UInt8? { try byte(at: 0) }

  /// The byte `offset` past `position`, reading more of the file when the buffer ends first.
  private mutating func byte(at offset: Int) throws -> UInt8? {
    while position + offset >= buffer.count {
      if atEnd { return nil }
      if position > 0 {
        buffer.removeFirst(position)
        position = 0
      }
      guard let chunk = try handle.read(upToCount: chunkSize), !chunk.isEmpty else {
        atEnd = true
        return nil
      }
      buffer.append(contentsOf: chunk)
    }
    return buffer[position + offset]
  }

  /// Moves past the byte at `position`, which `peek` has read.
  private mutating func advance() {
    let byte = buffer[position]
    position += 1
    if byte == 0x0A {
      line += 1
      column = 0
    } else if byte & 0xC0 != 0x80 {
      column += 1
    }
  }
}
