import QueryEngine

extension CommandFailure {
  /// A query diagnostic: `error: message`, ` --> query:LINE:COLUMN`, the line, the caret and
  /// the help; exit 65.
  init(_ error: DiagnosticsError) {
    let primary = error.primary
    let (line, column) = error.source.location(of: primary.span.start)
    self.init(.dataError, primary.message, location: "\(error.source.name):\(line):\(column)")
    self.excerpt = [DiagnosticRenderer.excerpt(primary.span, in: error.source).trimmingTrailingNewline]
    self.hints = primary.notes.map { "note: \($0.message)" } + (primary.help.map { ["help: \($0)"] } ?? [])
    self.line = line
    self.column = column
    self.file = error.source.name == "query" ? nil : error.source.name
    self.diagnosticID = primary.id
    self.others = error.diagnostics.filter { $0 != primary }.map { DiagnosticRenderer.render($0, in: error.source) }
  }
}

extension String {
  var trimmingTrailingNewline: String {
    var s = self
    while s.hasSuffix("\n") { s.removeLast() }
    return s
  }
}
