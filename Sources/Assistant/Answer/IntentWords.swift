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
}
