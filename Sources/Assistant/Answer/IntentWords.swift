import Foundation
import SearchIndex

/// Words that say what kind of answer a question wants, in two opposite groups: what went
/// wrong (problems, failures, delays) and what went well (successes). "What went wrong?" is
/// answered by a sentence about a failure even when it never says "wrong", and not by one
/// about what went well, although both share "went".
enum IntentWords {
  enum Polarity: Equatable {
    case negative, positive
  }

  static let negative: Set<String> = [
    "wrong", "bad", "badly", "worse", "worst", "fail", "fails", "failed", "failing", "failure", "failures", "problem",
    "problems", "issue", "issues", "broke", "broken", "error", "errors", "late", "delay", "delayed", "delays", "missed",
    "bug", "bugs", "mistake", "mistakes", "outage", "crash", "crashed", "incident", "incidents", "poorly", "complaint",
    "complaints", "risk", "risks", "blocker", "blockers",
  ]
  static let positive: Set<String> = [
    "well", "good", "great", "better", "best", "success", "successes", "successful", "succeeded", "win", "wins", "won",
    "worked", "highlight", "highlights", "positive",
  ]

  /// The polarity a question asks about: "what went wrong" is negative; nil when it asks
  /// about neither or both.
  static func polarity(of question: String) -> Polarity? {
    polarity(of: TextFolding.fold(question).split { !$0.isLetter }.map(String.init))
  }

  /// The polarity of a text's folded words: negative when it has only words of failure,
  /// positive when only words of success; nil otherwise.
  static func polarity(of words: [String]) -> Polarity? {
    let bad = words.contains(where: negative.contains)
    let good = words.contains(where: positive.contains)
    return bad == good ? nil : bad ? .negative : .positive
  }

  /// Words that ask for a sum of money: "how much was the quote", "what did it cost".
  static let amountWords: Set<String> = ["cost", "costs", "price", "prices", "priced", "paid", "pay", "spent", "spend", "fee", "fees", "total"]

  /// True when the question asks for a sum of money ("how much", "cost", "price", "paid").
  static func asksForAmount(_ question: String) -> Bool {
    let words = TextFolding.fold(question).split { !$0.isLetter }.map(String.init)
    if words.contains(where: amountWords.contains) { return true }
    return zip(words, words.dropFirst()).contains { $0 == "how" && $1 == "much" }
  }

  /// True when `sentence` states a sum of money: a currency sign or code next to a number
  /// ("$38,400", "€ 120", "1,200 CHF").
  static func statesAmount(_ sentence: String) -> Bool {
    // Neither form holds without a currency sign or a digit (a character is a number by its
    // first scalar), and most sentences have neither: they are not split into words.
    guard sentence.unicodeScalars.contains(where: { scalar in
      scalar.value < 0x80 ? scalar.value &- 0x30 < 10 || scalar == "$" : currencySigns.contains(scalar) || scalar.properties.numericType != nil
    }) else { return false }
    let scalars = Array(sentence.unicodeScalars)
    for (index, scalar) in scalars.enumerated() where currencySigns.contains(scalar) {
      var next = index + 1
      while next < scalars.count, scalars[next] == " " { next += 1 }
      if next < scalars.count, ("0"..."9").contains(scalars[next]) { return true }
    }
    let words = sentence.split { $0.isWhitespace }.map { $0.trimmingCharacters(in: .punctuationCharacters) }
    return zip(words, words.dropFirst()).contains { number, code in
      number.first?.isNumber == true && currencyCodes.contains(code.uppercased())
    }
  }

  private static let currencySigns: Set<Unicode.Scalar> = ["$", "€", "£", "¥", "₹", "₩", "₽", "₺", "₫", "₪"]
  private static let currencyCodes: Set<String> = ["USD", "EUR", "GBP", "CHF", "JPY", "CAD", "AUD", "SEK", "NOK", "DKK", "CNY", "INR"]
}
