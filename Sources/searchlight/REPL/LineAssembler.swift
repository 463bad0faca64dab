/// Joins the physical lines a person types (or a script holds) into complete REPL inputs.
///
/// A query continues on the next line while it is unfinished: inside a string, inside
/// brackets, or after a trailing `|`, `&&`, `||`, `,` or `;` (comments ignored). A dot-command
/// is one line, except those that take a query (`.explain`, `.json`, `.parse`), which follow the
/// query rules for their argument.
///
/// ```
/// searchlight> search "launch" |
///         ...> top 5
/// ```
struct LineAssembler {
  private var lines: [String] = []

  /// True when no line is waiting for its continuation.
  var isEmpty: Bool { lines.isEmpty }

  /// The lines taken so far for the pending input.
  var pendingText: String { lines.joined(separator: "\n") }

  /// Adds a line; returns the complete input once nothing more is needed, else nil.
  mutating func add(_ line: String) -> String? {
    lines.append(line)
    let text = lines.joined(separator: "\n")
    if Self.needsMoreInput(text) { return nil }
    lines = []
    return text
  }

  /// The pending input at the end of the input (it runs as typed and reports what is missing).
  mutating func flush() -> String? {
    defer { lines = [] }
    return lines.isEmpty ? nil : lines.joined(separator: "\n")
  }

  /// Drops the pending lines (Ctrl-C at a continuation prompt).
  mutating func reset() { lines = [] }

  /// True when `text` is an unfinished query or query-taking dot-command.
  static func needsMoreInput(_ text: String) -> Bool {
    let trimmed = text.drop(while: \.isWhitespace)
    if trimmed.first == "." {
      guard let command = DotCommand.named(String(trimmed.dropFirst().prefix(while: { !$0.isWhitespace }))),
        command.argument == .query
      else { return false }
    }
    return scan(text).isUnfinished
  }

  /// What a scan of query text found at its end.
  struct ScanState: Equatable {
    /// The open quote (`"` or `'`) when the text ends inside a string.
    var openQuote: Character?
    /// Brackets opened and not yet closed.
    var openBrackets = 0
    /// True when the last line ends in a `#` comment.
    var inComment = false
    /// The last characters that are not whitespace or comment.
    var tail = ""

    var isUnfinished: Bool {
      if openQuote != nil || openBrackets > 0 { return true }
      return ["|", "&&", ",", ";"].contains { tail.hasSuffix($0) }
    }
  }

  /// Scans `text` the way the lexer reads it: strings in `"` or `'` with `\` escapes, `#`
  /// comments to the end of the line, and `(`/`[`/`{` brackets.
  static func scan(_ text: String) -> ScanState {
    var state = ScanState()
    var escaped = false
    var closedTooMany = false
    var tail = ""
    for character in text {
      if let quote = state.openQuote {
        if escaped {
          escaped = false
        } else if character == "\\" {
          escaped = true
        } else if character == quote {
          state.openQuote = nil
        }
        tail = "\""
        continue
      }
      if state.inComment {
        if character == "\n" { state.inComment = false }
        continue
      }
      switch character {
      case "\"", "'": state.openQuote = character
      case "#": state.inComment = true; continue
      case "(", "[", "{": state.openBrackets += 1
      case ")", "]", "}":
        if state.openBrackets > 0 { state.openBrackets -= 1 } else { closedTooMany = true }
      default: break
      }
      if !character.isWhitespace {
        tail.append(character)
        if tail.count > 2 { tail.removeFirst() }
      }
    }
    // A stray closing bracket is a mistake to report now, not a reason to wait for more.
    if closedTooMany { state.openBrackets = 0 }
    state.tail = tail
    return state
  }

  /// How a continued line joins the previous one in the history: a newline where it matters
  /// (inside a string, after a comment), a space elsewhere, so recalled inputs stay on one line.
  static func historyEntry(_ input: String) -> String {
    let lines = input.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard var entry = lines.first else { return input }
    for line in lines.dropFirst() {
      let state = scan(entry)
      entry += (state.openQuote != nil || state.inComment ? "\n" : " ") + line
    }
    while let last = entry.last, last == " " || last == "\t" { entry.removeLast() }
    return entry
  }
}
