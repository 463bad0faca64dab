import Foundation
import QueryEngine

/// Spelling values in the query language.
enum DSLText {
  /// A double-quoted string whose text is taken literally: quotes, backslashes and the
  /// wildcards `*` and `?` are escaped.
  static func quoted(_ text: String) -> String { SyntaxPrinter.text(PlanSyntax.quoted(text)) }

  /// `text` with line breaks and tabs as spaces, as `quoted` and `singleQuoted` write it.
  static func flattened(_ text: String) -> String {
    String(text.map { character in character == "\n" || character == "\r" || character == "\t" ? " " : character })
  }

  /// A single-quoted text: a phrase when it stands alone as a search.
  static func singleQuoted(_ text: String) -> String { SyntaxPrinter.text(PlanSyntax.singleQuoted(text)) }

  /// A number as the language writes it: `4.5`, `5`, `-3`.
  static func number(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    var text = String(format: "%.6f", value)
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text
  }

  /// A term weight as a boost writes it (`^0.4127`): four decimals, never 0 (a boost must
  /// be positive), no exponent (the language's boosts have none).
  static func weight(_ value: Double) -> String { number(weightValue(value)) }

  /// The boost `weight` writes, as a number.
  static func weightValue(_ value: Double) -> Double { (max(value, 0.0001) * 10_000).rounded() / 10_000 }

  /// A date as a note shows it: `2026-11-16` for midnight in the clock's zone, else the
  /// ISO instant.
  static func dateText(_ date: Date, clock: QueryClock, utcInstant: Bool = false) -> String {
    let calendar = clock.calendar
    let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
    if parts.hour == 0, parts.minute == 0, parts.second == 0, let year = parts.year, let month = parts.month, let day = parts.day {
      return String(format: "%04d-%02d-%02d", year, month, day)
    }
    var utc = Calendar(identifier: .gregorian)
    utc.timeZone = TimeZone(identifier: "UTC")!
    let u = utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
    return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", u.year ?? 0, u.month ?? 0, u.day ?? 0, u.hour ?? 0, u.minute ?? 0, u.second ?? 0)
  }
}
