/// Renders diagnostics for people:
///
/// ```
/// error: unknown attribute 'titel'
///  --> query:1:1
///   |
/// 1 | titel == "x"
///   | ^~~~~
/// help: did you mean 'title'?
/// ```
///
/// Plain text by default; ANSI colour only when asked (a terminal without NO_COLOR).
public enum DiagnosticRenderer {
  public static func render(_ error: DiagnosticsError, color: Bool = false) -> String {
    error.diagnostics.map { render($0, in: error.source, color: color) }.joined(separator: "\n")
  }

  public static func render(_ diagnostic: Diagnostic, in source: SourceText, color: Bool = false) -> String {
    let (red, blue, bold, reset) = color ? ("\u{1B}[31m", "\u{1B}[34m", "\u{1B}[1m", "\u{1B}[0m") : ("", "", "", "")
    let (line, column) = source.location(of: diagnostic.span.start)
    var out = "\(bold)\(red)\(diagnostic.severity.rawValue)\(reset)\(bold): \(diagnostic.message)\(reset)\n"
    out += " --> \(source.name):\(line):\(column)\n"
    out += excerpt(diagnostic.span, in: source, blue: blue, red: red, reset: reset)
    for note in diagnostic.notes {
      if let span = note.span {
        let (noteLine, noteColumn) = source.location(of: span.start)
        out += "note: \(note.message) (at \(noteLine):\(noteColumn))\n"
      } else {
        out += "note: \(note.message)\n"
      }
    }
    if let help = diagnostic.help { out += "help: \(help)\n" }
    return out
  }

  /// The source line(s) of a span with `^~~~` under it.
  public static func excerpt(_ span: SourceSpan, in source: SourceText, blue: String = "", red: String = "", reset: String = "") -> String {
    let (line, column) = source.location(of: span.start)
    let (endLine, endColumn) = source.location(of: max(span.start, span.end))
    let text = source.lineText(line)
    let gutter = String(repeating: " ", count: String(line).count)
    var width = endLine == line ? max(1, endColumn - column) : max(1, text.count - column + 1)
    width = min(width, max(1, text.count - column + 1))
    let marker = "^" + String(repeating: "~", count: max(0, width - 1))
    var out = "\(blue)\(gutter) |\(reset)\n"
    out += "\(blue)\(line) |\(reset) \(text)\n"
    out += "\(blue)\(gutter) |\(reset) " + String(repeating: " ", count: column - 1) + "\(red)\(marker)\(reset)\n"
    return out
  }
}
