import QueryEngine
import SearchIndex

/// Builds query text while remembering which JSON path produced each fragment, so a
/// diagnostic about the generated query can name the tool-call field it came from.
struct DSLWriter {
  private(set) var text = ""
  private var marks: [(range: Range<Int>, path: String)] = []

  /// Appends text produced by the field at `path`.
  mutating func write(_ fragment: String, path: String? = nil) {
    let start = text.utf8.count
    text += fragment
    if let path { marks.append((start..<text.utf8.count, path)) }
  }

  /// Runs `body`, recording everything it writes as produced by `path`.
  mutating func group<E: Error>(_ path: String, _ body: (inout DSLWriter) throws(E) -> Void) throws(E) {
    let start = text.utf8.count
    try body(&self)
    marks.append((start..<text.utf8.count, path))
  }

  /// The innermost path whose fragment contains `span`.
  func path(for span: SourceSpan) -> String? {
    marks.filter { $0.range.lowerBound <= span.start && span.start < max($0.range.upperBound, $0.range.lowerBound + 1) }
      .min { $0.range.count < $1.range.count }?.path
  }

  var pathMarks: [(range: Range<Int>, path: String)] { marks }

  /// Records that `range` of the text came from `path`.
  mutating func appendMark(_ range: Range<Int>, _ path: String) { marks.append((range, path)) }

  /// A string literal for an exact whole value: single-quoted, so `*` and `?` are literal.
  static func exact(_ value: String) -> String {
    "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
  }

  /// A double-quoted pattern whose own `*`, `?`, quotes and backslashes are escaped, with
  /// `prefix`/`suffix` wildcards added around it.
  static func pattern(_ value: String, leading: Bool = false, trailing: Bool = false) -> String {
    var escaped = ""
    for character in value {
      switch character {
      case "\\", "\"", "*", "?": escaped += "\\\(character)"
      case "\n": escaped += "\\n"
      default: escaped.append(character)
      }
    }
    return "\"" + (leading ? "*" : "") + escaped + (trailing ? "*" : "") + "\""
  }

  /// Text for a ranked text search: words only, quotes removed.
  static func searchText(_ value: String) -> String {
    "\"" + value.replacingOccurrences(of: "\\", with: " ").replacingOccurrences(of: "\"", with: " ") + "\""
  }

  /// A number literal.
  static func number(_ n: Double) -> String { JSONValue.format(number: n) }

  /// Replaces the attribute just written with `replacement` (InRange needs the attribute inside).
  mutating func rewriteLastAttribute(attributeLength: Int, as replacement: String) {
    let bytes = Array(text.utf8)
    text = String(decoding: bytes.dropLast(attributeLength), as: UTF8.self) + replacement
  }
}
