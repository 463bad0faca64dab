import SearchIndex

/// Prints failures to standard error: `error: MESSAGE`, ` --> LOCATION`, the source excerpt
/// with its caret, then `help:`/`note:` lines; or, with `--format json`, one JSON object
/// `{"error":{"message","line","column","hint"}}`.
enum ErrorReporter {
  static func report(_ failure: CommandFailure, json: Bool) {
    if json {
      var error = JSONObject()
      error["message"] = .string(failure.message)
      if let file = failure.file { error["file"] = .string(file) }
      error["line"] = failure.line.map { .number(Double($0)) } ?? .null
      error["column"] = failure.column.map { .number(Double($0)) } ?? .null
      // The help line (the fix) is the hint; notes only when there is no help.
      let hint = failure.hints.first(where: { $0.hasPrefix("help: ") }) ?? failure.hints.first
      error["hint"] = hint.map { .string(stripPrefix($0)) } ?? .null
      if let id = failure.diagnosticID { error["id"] = .string(id) }
      error["exitCode"] = .number(Double(failure.code.rawValue))
      Terminal.err(JSONValue.object(JSONObject([("error", .object(error))])).compactText + "\n")
      return
    }
    var text = "error: \(failure.message)\n"
    if let location = failure.location { text += " --> \(location)\n" }
    for line in failure.excerpt { text += line + "\n" }
    for hint in failure.hints { text += hint + "\n" }
    for other in failure.others { text += "\n" + other }
    Terminal.err(text)
  }

  private static func stripPrefix(_ hint: String) -> String {
    for prefix in ["help: ", "note: "] where hint.hasPrefix(prefix) { return String(hint.dropFirst(prefix.count)) }
    return hint
  }

  static func report(_ usage: UsageError) {
    Terminal.err("error: \(usage.message)\nUsage: searchlight \(usage.command) ...\n  See 'searchlight \(usage.command) --help'.\n")
  }
}
