import QueryEngine
import SearchIndex

/// How the query language spells values a tool call gives: the text `QueryRenderer` writes
/// for the fragments it turns into parsed nodes.
enum QuerySpelling {
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
}
