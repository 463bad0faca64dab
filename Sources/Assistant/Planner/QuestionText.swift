import Foundation
import SearchIndex

/// A question split into words, numbers and quoted phrases, the way the planner reads it.
///
/// Words are folded (lower case, no diacritics, as the index folds them), possessive `'s` is
/// dropped (`club's` -> `club`), and hyphens and other punctuation separate words as they do
/// in the full-text index (`follow-ups` -> `follow`, `ups`). Numbers keep their decimals
/// (`4.5`), a trailing `+` (`4+`) and a unit written against them (`5km` -> `5`, `km`).
/// ISO dates (`2026-11-03`) stay one token. Text in double quotes (straight or curly) is a
/// phrase.
struct QuestionText: Sendable {
  struct Token: Sendable, Hashable {
    /// As written (for notes).
    var text: String
    /// Folded: lower case, no diacritics, no possessive.
    var word: String
    /// The value of a number token.
    var number: Double?
    /// True for `4+`.
    var plus = false
    /// True when the token ends a clause (a comma or other punctuation follows it).
    var endsClause = false

    var isNumber: Bool { number != nil }
  }

  /// A quoted phrase of the question.
  struct Phrase: Sendable, Hashable {
    var text: String
    /// Its words, folded.
    var words: [String]
  }

  var tokens: [Token] = []
  var phrases: [Phrase] = []

  init(_ question: String) {
    var rest = ""
    var phrase: String?
    for character in question {
      if character == "\"" || character == "\u{201C}" || character == "\u{201D}" || character == "\u{201E}" {
        if let open = phrase {
          let words = Self.words(in: open).map(\.word)
          if !words.isEmpty { phrases.append(Phrase(text: open.trimmingCharacters(in: .whitespaces), words: words)) }
          phrase = nil
          rest.append(" , ")
        } else {
          phrase = ""
          rest.append(" , ")
        }
        continue
      }
      if phrase != nil { phrase!.append(character) } else { rest.append(character) }
    }
    // An unclosed quote: its text is ordinary words.
    if let open = phrase { rest.append(open) }
    tokens = Self.words(in: rest)
  }

  /// The question with its quotation marks taken out: quoted phrases read as words.
  static func withoutQuotes(_ question: String) -> String {
    String(question.map { "\"\u{201C}\u{201D}\u{201E}".contains($0) ? " " : $0 })
  }

  /// The question with each word whose folded form is a key of `replacements` replaced by
  /// its value; everything else as written.
  static func replacingWords(in question: String, _ replacements: [String: String]) -> String {
    var result = ""
    var word = ""
    func flush() {
      if !word.isEmpty { result += replacements[TextFolding.fold(word)] ?? word }
      word = ""
    }
    for character in question {
      if character.isLetter || character.isNumber {
        word.append(character)
      } else {
        flush()
        result.append(character)
      }
    }
    flush()
    return result
  }

  /// Unit and ordinal suffixes that separate from a number written against them.
  static let numberSuffixes: Set<String> = [
    "km", "kms", "mi", "m", "ft", "h", "hr", "hrs", "min", "mins", "s", "st", "nd", "rd", "th", "k",
  ]

  static func words(in text: String) -> [Token] {
    var tokens: [Token] = []
    var current = ""
    func flush(endsClause: Bool) {
      defer { current = "" }
      guard !current.isEmpty else {
        if endsClause, !tokens.isEmpty { tokens[tokens.count - 1].endsClause = true }
        return
      }
      var raw = current
      // Possessive: club's -> club; other apostrophes separate words (l'étranger).
      for suffix in ["'s", "\u{2019}s"] where raw.lowercased().hasSuffix(suffix) { raw.removeLast(2) }
      for piece in raw.split(whereSeparator: { $0 == "'" || $0 == "\u{2019}" }) {
        tokens.append(contentsOf: token(String(piece)))
      }
      if endsClause, !tokens.isEmpty { tokens[tokens.count - 1].endsClause = true }
    }
    let characters = Array(text)
    for (offset, character) in characters.enumerated() {
      let next = offset + 1 < characters.count ? characters[offset + 1] : " "
      let previous = offset > 0 ? characters[offset - 1] : " "
      if character.isLetter || character.isNumber {
        current.append(character)
      } else if (character == "." || character == ",") && previous.isNumber && next.isNumber && !current.isEmpty
        && current.allSatisfy({ $0.isNumber || $0 == "." }) {
        // 4.5 and 1,000 (a comma between digits groups thousands).
        if character == "." { current.append(character) }
      } else if character == "-" && previous.isNumber && next.isNumber && ISO8601Day.isPrefix(current + "-") {
        current.append(character)  // 2026-11-03
      } else if (character == "'" || character == "\u{2019}") && previous.isLetter && next.isLetter {
        current.append(character)
      } else if character == "+" && !current.isEmpty && current.allSatisfy({ $0.isNumber || $0 == "." }) {
        flush(endsClause: false)
        tokens[tokens.count - 1].plus = true
      } else {
        flush(endsClause: ",.;:!?()[]".contains(character))
      }
    }
    flush(endsClause: true)
    return tokens
  }

  /// One written word as tokens: a number with a unit written against it splits in two.
  private static func token(_ text: String) -> [Token] {
    let folded = TextFolding.fold(text)
    let numeric = !folded.isEmpty && folded.first!.isNumber && folded.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }
    if numeric, let value = Double(folded), value.isFinite, value < 1e15 {
      return [Token(text: text, word: folded, number: value)]
    }
    if folded.count == 10, ISO8601Day.parse(folded) != nil {
      return [Token(text: text, word: folded)]
    }
    // 5km, 3rd, 4.5k
    if let split = folded.firstIndex(where: { $0.isLetter }), split != folded.startIndex {
      let digits = String(folded[..<split])
      let suffix = String(folded[split...])
      if digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(digits), value.isFinite, value < 1e15, numberSuffixes.contains(suffix) || suffix.allSatisfy({ $0.isLetter }) && unitWords.contains(suffix) {
        let number = Token(text: String(text.prefix(digits.count)), word: digits, number: suffix == "k" ? value * 1000 : value)
        if ["st", "nd", "rd", "th", "k"].contains(suffix) { return [number] }
        return [number, Token(text: String(text.dropFirst(digits.count)), word: suffix)]
      }
    }
    return [Token(text: text, word: folded)]
  }

  static let unitWords: Set<String> = [
    "km", "kms", "kilometers", "kilometres", "mi", "miles", "mile", "m", "meters", "metres", "meter", "metre", "ft", "feet",
    "h", "hr", "hrs", "hour", "hours", "min", "mins", "minute", "minutes", "stars", "star",
  ]
}

/// `YYYY-MM-DD` recognition for question tokens.
enum ISO8601Day {
  static func parse(_ text: String) -> (year: Int, month: Int, day: Int)? {
    let parts = text.split(separator: "-")
    guard text.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
      let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
      (1...12).contains(month), (1...31).contains(day)
    else { return nil }
    return (year, month, day)
  }

  /// True for the start of an ISO date (`2026-`, `2026-11-`).
  static func isPrefix(_ text: String) -> Bool {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    switch parts.count {
    case 2: return parts[0].count == 4 && parts[0].allSatisfy(\.isNumber) && parts[1].isEmpty
    case 3: return parts[0].count == 4 && parts[1].count == 2 && parts[1].allSatisfy(\.isNumber) && parts[2].isEmpty
    default: return false
    }
  }
}
