import Foundation
import QueryEngine
import SearchIndex
import Stages

/// The offline answer: short, deterministic and made only of what the search returned
/// (titles, dates, a sentence of each item, the numbers of aggregates), so it cannot say
/// anything the items do not.
struct ExtractiveAnswer {
  /// Search terms that pick each item's sentence (words, or stemmed terms that match any
  /// form); empty picks its description or first sentence.
  var terms: [String]
  /// Items listed by name; the rest are counted.
  var listed = 5
  /// Longest sentence quoted, in characters.
  var sentenceLength = 180

  /// "Found 3 items:" and a line per item: title (day): its best matching sentence.
  func describe(items: [ResultItem]) -> String {
    var lines = ["Found \(items.count) item\(items.count == 1 ? "" : "s"):"]
    for result in items.prefix(listed) {
      let attributes = result.item.attributeSet
      var line = "- " + (attributes.title ?? result.id)
      if let day = TextStage.describeDate(attributes) { line += " (\(day))" }
      if let sentence = sentence(of: result.item) { line += ": " + sentence }
      lines.append(line)
    }
    if items.count > listed { lines.append("- and \(items.count - listed) more") }
    return lines.joined(separator: "\n")
  }

  /// The answer for a search's replies: its aggregates (counts, statistics, tables, groups)
  /// when it has any, else the list of `items`.
  func describe(replies: [Reply], items: [ResultItem]) -> String {
    let aggregates = replies.filter { !EvidenceQuery.producesItems($0.content.type) }
    return aggregates.isEmpty ? describe(items: items) : aggregates.map(describe(aggregate:)).joined(separator: "\n")
  }

  /// A count, statistic, table or group reply in the words of the `text` stage ("5 items
  /// match."), labelled when its label says more than its type.
  func describe(aggregate reply: Reply) -> String {
    let summary = TextStage.summary(of: reply.content)
    var text = summary.header
    if reply.label != QueryExecutor.defaultLabel(reply.content.type) { text = "\(reply.label): \(text)" }
    return summary.body.isEmpty ? text : text + "\n" + summary.body
  }

  /// The sentence of the item's text with the most terms, a salutation losing to a real
  /// sentence with as many (the earliest of equals); with no term in any, the description,
  /// else the first sentence. Clipped at a word.
  func sentence(of item: SearchableItem) -> String? {
    let attributes = item.attributeSet
    let description = attributes["contentDescription"]?.stringValue
    let body = attributes["textContent"]?.stringValue ?? description ?? ""
    let sentences = Self.sentences(body)
    var best: (score: (terms: Int, words: Int), text: String)?
    let wanted = terms.map { TermCoverage.analyzer.positions($0, mode: .query) }.filter { !$0.isEmpty }
    for sentence in sentences {
      let words = TextFolding.fold(sentence).split { !$0.isLetter && !$0.isNumber }
      let tokens = TermCoverage.tokens(of: sentence)
      let found = wanted.filter { TermCoverage.contains(tokens, $0) }.count
      // Up to eight words, longer is better: "Hi Tom," says less than a sentence about Tom.
      let score = (terms: found, words: min(words.count, 8))
      if found > 0, best.map({ score > $0.score }) ?? true { best = (score, sentence) }
    }
    guard let chosen = best?.text ?? description ?? sentences.first else { return nil }
    return clip(chosen)
  }

  /// Sentences: lines, split after `.`, `!` or `?` followed by a space.
  static func sentences(_ text: String) -> [String] {
    var result: [String] = []
    var current = ""
    var previous: Character = " "
    for character in text {
      if character.isNewline || (character == " " && ".!?".contains(previous)) {
        let trimmed = current.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty { result.append(trimmed) }
        current = ""
      } else {
        current.append(character)
      }
      previous = character
    }
    let trimmed = current.trimmingCharacters(in: .whitespaces)
    if !trimmed.isEmpty { result.append(trimmed) }
    return result
  }

  private func clip(_ text: String) -> String {
    guard text.count > sentenceLength else { return text }
    let head = text.prefix(sentenceLength)
    let cut = head.lastIndex(of: " ").map { head[..<$0] } ?? head
    return cut.trimmingCharacters(in: .punctuationCharacters.union(.whitespaces)) + "…"
  }
}
