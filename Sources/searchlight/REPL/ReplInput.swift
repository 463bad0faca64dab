/// One complete REPL input, classified: nothing, a query, or a dot-command with its argument.
enum ReplInput: Equatable {
  /// Whitespace and comments only.
  case empty
  /// A query (a predicate or a pipeline).
  case query(String)
  /// A dot-command; `argumentColumn` is how many characters precede the argument on the first
  /// line, so a caret under the argument lines up with what was typed.
  case command(DotCommand, argument: String, argumentColumn: Int)
  /// A word after a dot that names no command.
  case unknownCommand(String)

  init(_ text: String) {
    guard !Self.isBlank(text) else { self = .empty; return }
    let leading = text.prefix(while: \.isWhitespace)
    let rest = text.dropFirst(leading.count)
    guard rest.first == "." else { self = .query(text); return }
    let name = String(rest.dropFirst().prefix(while: { !$0.isWhitespace }))
    guard let command = DotCommand.named(name) else { self = .unknownCommand(name); return }
    let afterName = rest.dropFirst(1 + name.count)
    let spaces = afterName.prefix(while: { $0 == " " || $0 == "\t" })
    var argument = String(afterName.dropFirst(spaces.count))
    while let last = argument.last, last.isWhitespace { argument.removeLast() }
    self = .command(command, argument: argument, argumentColumn: leading.count + 1 + name.count + spaces.count)
  }

  /// True when `text` holds only whitespace and `#` comments.
  static func isBlank(_ text: String) -> Bool {
    var inComment = false
    for character in text {
      if inComment {
        if character == "\n" { inComment = false }
      } else if character == "#" {
        inComment = true
      } else if !character.isWhitespace {
        return false
      }
    }
    return true
  }
}
