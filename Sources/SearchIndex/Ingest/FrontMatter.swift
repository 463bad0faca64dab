/// Reads the metadata block at the top of a Markdown note:
///
/// ```
/// ---
/// title: Sourdough starter
/// keywords: [baking, recipe, "flour, water"]
/// rating: 4
/// ---
/// ```
///
/// Each line is `key: value`; a value is a bare or double-quoted string, a number, true/false,
/// an ISO-8601 date, or a flow list `[a, b]`. Values stay text here; `NoteReader` converts them
/// by the attribute's type, so `title: 2026` stays the string "2026".
package struct FrontMatter {
  /// One `key: value` line.
  package struct Entry {
    package var key: String
    package var value: Value
    /// 1-based line in the file.
    package var line: Int
  }

  /// A raw value: text (and whether it was quoted) or a list of them.
  package enum Value {
    case scalar(String, quoted: Bool)
    case list([(String, quoted: Bool)])
  }

  package var entries: [Entry]
  /// The text after the block.
  package var body: Substring
  /// Lines the block occupied, so body line numbers can be reported.
  package var lineCount: Int

  /// Splits `text` into front matter and body; a text without a leading `---` line has no
  /// front matter.
  package static func parse(_ text: String) throws(IngestError.Message) -> FrontMatter {
    // "\r\n" is one Character, so split on it as well as on "\n". Lines are taken one at a
    // time: a text without front matter is read no further than its first line.
    var lines = TextLines(Substring(text), separatedBy: { $0 == "\n" || $0 == "\r\n" })
    guard var first = lines.next() else { return FrontMatter(entries: [], body: Substring(text), lineCount: 0) }
    if first.hasPrefix("\u{FEFF}") { first = first.dropFirst() }
    guard first.trimmingTrailingWhitespace == "---" else {
      return FrontMatter(entries: [], body: Substring(text), lineCount: 0)
    }
    var entries: [Entry] = []
    var index = 1
    while let next = lines.next() {
      let line = next.trimmingTrailingWhitespace
      if line == "---" || line == "..." {
        // The body starts after this line's separator (counting from the text itself, so a
        // byte order mark or "\r\n" separators do not shift it).
        let end = next.endIndex
        let body = end < text.endIndex ? text[text.index(after: end)...] : ""
        return FrontMatter(entries: entries, body: body, lineCount: index + 1)
      }
      let lineNumber = index + 1
      index += 1
      if line.isEmpty || line.hasPrefix("#") { continue }
      guard let colon = line.firstIndex(of: ":") else {
        throw .init(line: lineNumber, "expected 'key: value' in front matter")
      }
      let key = line[..<colon].trimming(" \t")
      guard !key.isEmpty else { throw .init(line: lineNumber, "empty key in front matter") }
      let rawValue = line[line.index(after: colon)...].trimming(" \t")
      entries.append(Entry(key: key, value: try parseValue(rawValue, line: lineNumber), line: lineNumber))
    }
    throw .init(line: 1, "front matter starting here is not closed by a '---' line")
  }

  private static func parseValue(_ raw: String, line: Int) throws(IngestError.Message) -> Value {
    if raw.hasPrefix("[") {
      guard raw.hasSuffix("]") else { throw .init(line: line, "list is not closed by ']'") }
      let inner = raw.dropFirst().dropLast()
      var items: [(String, quoted: Bool)] = []
      var current = ""
      var inQuotes = false
      var wasQuoted = false
      var escaped = false
      for character in inner {
        if escaped { current.append(character); escaped = false; continue }
        if inQuotes {
          if character == "\\" { escaped = true } else if character == "\"" { inQuotes = false } else { current.append(character) }
          continue
        }
        switch character {
        case "\"":
          // Spaces between the comma and the opening quote are not part of the value.
          if !wasQuoted, current.allSatisfy({ $0 == " " || $0 == "\t" }) { current = "" }
          inQuotes = true; wasQuoted = true
        case ",":
          let text = wasQuoted ? current : current.trimming(" \t")
          if !text.isEmpty || wasQuoted { items.append((text, wasQuoted)) }
          current = ""
          wasQuoted = false
        default:
          if !(wasQuoted && (character == " " || character == "\t")) { current.append(character) }
        }
      }
      if inQuotes { throw .init(line: line, "unterminated quoted string in list") }
      let text = wasQuoted ? current : current.trimming(" \t")
      if !text.isEmpty || wasQuoted { items.append((text, wasQuoted)) }
      return .list(items)
    }
    if raw.hasPrefix("\"") {
      guard raw.count >= 2, raw.hasSuffix("\"") else { throw .init(line: line, "unterminated quoted string") }
      var text = ""
      var escaped = false
      for character in raw.dropFirst().dropLast() {
        if escaped { text.append(character == "n" ? "\n" : character); escaped = false }
        else if character == "\\" { escaped = true }
        else { text.append(character) }
      }
      return .scalar(text, quoted: true)
    }
    return .scalar(raw, quoted: false)
  }
}

extension IngestError {
  /// A message with a line relative to the text being parsed; the reader adds the file.
  package struct Message: Error {
    package var line: Int
    package var text: String
    package init(line: Int, _ text: String) {
      self.line = line
      self.text = text
    }
  }
}

/// The lines of a text one at a time, as `split(omittingEmptySubsequences: false,
/// whereSeparator:)` would cut them, without cutting the rest of the text.
struct TextLines: IteratorProtocol {
  private var rest: Substring?
  private let isSeparator: (Character) -> Bool

  init(_ text: Substring, separatedBy isSeparator: @escaping (Character) -> Bool) {
    rest = text
    self.isSeparator = isSeparator
  }

  mutating func next() -> Substring? {
    guard let text = rest else { return nil }
    guard let separator = text.firstIndex(where: isSeparator) else {
      rest = nil
      return text
    }
    rest = text[text.index(after: separator)...]
    return text[..<separator]
  }
}

extension StringProtocol {
  var trimmingTrailingWhitespace: Substring {
    let s = Substring(self)
    return s[..<s.endOfTrimming { $0 == " " || $0 == "\t" || $0 == "\r" }]
  }

  /// Trims characters made only of scalars in `set`. (Comparing Characters would miss "\n" in
  /// " \t\r\n", whose "\r\n" is a single Character.)
  func trimming(_ set: String) -> String {
    let scalars = Set(set.unicodeScalars)
    let trimmable = { (character: Character) in character.unicodeScalars.allSatisfy(scalars.contains) }
    let s = Substring(self)
    let rest = s[(s.firstIndex { !trimmable($0) } ?? s.endIndex)...]
    return String(rest[..<rest.endOfTrimming(trimmable)])
  }
}

extension Substring {
  /// Where the characters at the end that `trimmable` accepts begin. Index arithmetic rather
  /// than `dropLast()`, which for a `Substring` here counted the whole text each time.
  fileprivate func endOfTrimming(_ trimmable: (Character) -> Bool) -> Index {
    var end = endIndex
    while end > startIndex {
      let before = index(before: end)
      guard trimmable(self[before]) else { break }
      end = before
    }
    return end
  }
}
