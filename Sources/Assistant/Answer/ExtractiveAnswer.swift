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
  /// Each term's weight (its rarity in the index); a term not listed weighs 1.
  var weights: [String: Double] = [:]
  /// The question, for the words that say what kind of answer it wants ("went wrong" is
  /// not "went well", see `IntentWords`).
  var question = ""
  /// The attribute the items were ordered by ("the longest trail": `distance`), stated on
  /// each item's line: it is what the question asked for.
  var measure: String?

  init(terms: [String], listed: Int = 5, sentenceLength: Int = 180, weights: [String: Double] = [:], question: String = "") {
    self.terms = terms
    self.listed = listed
    self.sentenceLength = sentenceLength
    self.weights = weights
    self.question = question
  }

  /// "Found 3 items:" and a line per item: title (day): its best matching sentence.
  func describe(items: [ResultItem]) -> String {
    var lines = ["Found \(items.count) item\(items.count == 1 ? "" : "s"):"]
    for result in items.prefix(listed) {
      let attributes = result.item.attributeSet
      var line = "- " + (attributes.title ?? result.id)
      let day = TextStage.describeDate(attributes)
      if let stated = measure.flatMap({ Self.statedValue(of: $0, in: attributes, besides: day) }) {
        line += " (\(stated)\(day.map { ", " + $0 } ?? ""))"
      } else if let day {
        line += " (\(day))"
      }
      if let sentence = sentence(of: result.item) { line += ": " + sentence }
      lines.append(line)
    }
    if items.count > listed { lines.append("- and \(items.count - listed) more") }
    return lines.joined(separator: "\n")
  }

  /// "distance 16.3", "installedSize 412,311,552": an item's value of `attribute`, named; a
  /// date as its day. Nil when the item has none, or when it is the date its line shows
  /// anyway (`day`).
  static func statedValue(of attribute: String, in attributes: AttributeSet, besides day: String?) -> String? {
    guard let value = attributes[attribute] else { return nil }
    if case .date(let date) = value {
      let stated = String(ISO8601.format(date).prefix(10))
      return stated == day && TextStage.describeDateAttribute(attributes) == attribute ? nil : "\(attribute) \(stated)"
    }
    if case .number(let number) = value { return "\(attribute) \(groupingThousands(value.displayText, of: number))" }
    return "\(attribute) \(value.displayText)"
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
    switch reply.content {
    case .statistic(let statistic): text = Self.sentence(stating: statistic)
    case .count(let n) where n >= 10_000: text = "\(DigitGrouping.grouped(n)) items match."
    default: break
    }
    if reply.label != QueryExecutor.defaultLabel(reply.content.type) { text = "\(reply.label): \(text)" }
    return summary.body.isEmpty ? text : text + "\n" + summary.body
  }

  /// A statistic as a person reads it: "The average distance is 6.688.", "The total
  /// installedSize is 8,942,903,296.", "The latest contentCreationDate is …" (the `text`
  /// stage's `avg(distance) = 6.688` is for pipelines).
  static func sentence(stating statistic: Statistic) -> String {
    let attribute = statistic.attribute
    let value: String
    switch statistic.value {
    case .null: return attribute == "*" ? "No items match." : "No matching item has a \(attribute)."
    case .number(let number):
      value = Self.groupingThousands(statistic.value.displayText, of: number)
    default: value = statistic.value.displayText
    }
    let isDate = if case .date = statistic.value { true } else { false }
    let measure: String
    switch statistic.function {
    case "count":
      let one = statistic.value == .number(1)
      if attribute == "*" { return one ? "1 item matches." : "\(value) items match." }
      return one ? "1 matching item has a \(attribute)." : "\(value) matching items have a \(attribute)."
    case "avg": measure = "average"
    case "sum": measure = "total"
    case "min": measure = isDate ? "earliest" : "smallest"
    case "max": measure = isDate ? "latest" : "largest"
    case "median": measure = "median"
    case "stddev": measure = "standard deviation of"
    default: return "\(statistic.function)(\(attribute)) = \(value)"
    }
    return "The \(measure) \(attribute) is \(value)."
  }

  /// `text` (a number as `displayText` writes it) with commas between thousands when it has
  /// five digits or more before the point ("8,327,055.486"); years and small numbers as they are.
  static func groupingThousands(_ text: String, of number: Double) -> String {
    abs(number) >= 10_000 && !text.contains("e") ? DigitGrouping.grouped(text) : text
  }

  /// The sentence of the item's text that best covers the question: the most weight of its
  /// terms (rare terms weigh more), the question's intent words counted too (a sentence on
  /// what failed answers "what went wrong"; one on what went well does not; one with a sum of
  /// money answers "how much"), a salutation losing to a real sentence with as much (the
  /// earliest of equals); with no term in any, the description, else the first sentence. Markup and boilerplate (HTML, Markdown
  /// images, links and badges, lines of symbols) are never quoted. Clipped at a word.
  func sentence(of item: SearchableItem) -> String? {
    let attributes = item.attributeSet
    let description = attributes["contentDescription"]?.stringValue.map(Self.plainText)
    // A long text is read where the question's terms are (`TextExcerpt`).
    let needles = terms.map(TextExcerpt.needle(for:))
    let body = attributes["textContent"]?.stringValue.map { Self.plainText(TextExcerpt.excerpt(of: $0, around: needles).text) } ?? description ?? ""
    let sentences = Self.sentences(body).filter(Self.isProse)
    var best: (score: (weight: Double, words: Int), text: String)?
    let wanted = terms.map { (TermCoverage.analyzer.positions($0, mode: .query), weights[$0] ?? 1) }.filter { !$0.0.isEmpty }
    let wantedTokens = Set(wanted.flatMap { $0.0.joined() })
    let intent = IntentWords.polarity(of: question)
    let intentWeight = wanted.map(\.1).max() ?? 1
    let wantsAmount = IntentWords.asksForAmount(question)
    // More than any sentence's words can weigh: a sum outranks every sentence without one.
    let amountWeight = wanted.map(\.1).reduce(intentWeight, +)
    for sentence in sentences {
      let words = FoldedWords.of(sentence)
      var present = Set<String>()
      TermCoverage.collect(wantedTokens, in: sentence, into: &present)
      var weight = wanted.filter { TermCoverage.contains(present, $0.0) }.reduce(0) { $0 + $1.1 }
      if let intent {
        switch IntentWords.polarity(of: words) {
        case intent: weight += intentWeight
        case nil: break
        default: weight -= intentWeight
        }
      }
      // "How much was the quote": a sentence with a sum, not one that only shares the words;
      // of those the one with most of the words, then the first ("Our quote: $38,400." before
      // "Quartz adds $2,000 to it.").
      let statesAmount = wantsAmount && IntentWords.statesAmount(sentence)
      if statesAmount { weight += amountWeight }
      // Up to eight words, longer is better: "Hi Tom," says less than a sentence about Tom.
      let score = (weight: weight, words: statesAmount ? 8 : min(words.count, 8))
      if weight > 0, best.map({ score > $0.score }) ?? true { best = (score, sentence) }
    }
    guard let chosen = best?.text ?? description.flatMap({ $0.isEmpty ? nil : $0 }) ?? sentences.first else { return nil }
    return clip(chosen)
  }

  /// Text without markup: HTML tags and comments, Markdown images and badges dropped, links
  /// (Markdown's and reStructuredText's) reduced to their text, heading and emphasis marks,
  /// code fences and table rules removed.
  static func plainText(_ text: String) -> String {
    var result = text
    // The guard is a literal search of the text's bytes: a rule's pattern cannot match
    // without its literal (Foundation's `contains` compares canonical equivalents, slower).
    for rule in markupRules where rule.needs.map({ Self.containsBytes(result, $0) }) ?? true {
      result = rule.pattern.stringByReplacingMatches(
        in: result, range: NSRange(result.startIndex..., in: result), withTemplate: rule.template)
    }
    return result
  }

  /// True when `needle`'s UTF-8 bytes occur in `text`'s: a first-byte scan (the standard
  /// library's generic `firstRange(of:)` took 80 ms over one answer's megabyte of text).
  static func containsBytes(_ text: String, _ needle: String) -> Bool {
    var text = text
    var needle = needle
    return text.withUTF8 { haystack in
      needle.withUTF8 { needle in
        guard let first = needle.first else { return true }
        guard haystack.count >= needle.count else { return false }
        var index = 0
        let last = haystack.count - needle.count
        while index <= last {
          if haystack[index] == first {
            var matched = 1
            while matched < needle.count, haystack[index + matched] == needle[matched] { matched += 1 }
            if matched == needle.count { return true }
          }
          index += 1
        }
        return false
      }
    }
  }

  /// The rules of `plainText`, compiled once per process (compiling them for every answer
  /// cost more than choosing its sentences), each with a text it cannot match without, so a
  /// plain note skips it.
  private static let markupRules: [(pattern: NSRegularExpression, template: String, needs: String?)] = [
    (#"<!--[\s\S]*?-->"#, " ", "<!--"),
    (#"!\[[^\]]*\]\([^)]*\)"#, " ", "]("),
    (#"\[!\[[^\]]*\]\([^)]*\)\]\([^)]*\)"#, " ", "]("),
    (#"\[([^\]]*)\]\([^)]*\)"#, "$1", "]("),
    // reStructuredText links: `text <url>`_
    (#"`([^`<]+?)\s*<[^>`]*>`__?"#, "$1", ">`_"),
    (#"</?[A-Za-z][^>]*>"#, " ", "<"),
    (#"(?m)^\s*```.*$"#, " ", "```"),
    (#"(?m)^\s{0,3}#{1,6}\s+"#, "", "#"),
    (#"(?m)^\s*[-*+]\s+"#, "", nil),
    (#"(?m)^\s*\|?[\s:|-]+\|?\s*$"#, "", nil),
    (#"\*\*|__|`"#, "", nil),
    (#"https?://\S+"#, " ", "http"),
    (#"&nbsp;|&amp;|&lt;|&gt;|&quot;"#, " ", "&"),
  ].map { pattern, template, needs in
    // The patterns are constants: a failure to compile them is a programming error.
    (try! NSRegularExpression(pattern: pattern), template, needs)
  }

  /// True for a sentence worth quoting: a word of letters, and mostly letters and spaces
  /// (not a line of symbols, numbers or leftover markup), a sum of money counted as letters.
  static func isProse(_ sentence: String) -> Bool {
    if let prose = asciiIsProse(sentence) { return prose }
    guard sentence.split(whereSeparator: \.isWhitespace).contains(where: { $0.filter(\.isLetter).count >= 2 }) else { return false }
    let length = sentence.count
    func isMostlyLetters(countingAmounts amount: Bool) -> Bool {
      let letters = sentence.filter { $0.isLetter || $0 == " " || (amount && ($0.isNumber || $0.isCurrencySymbol || ",.".contains($0))) }.count
      return letters * 3 >= length * 2
    }
    // A sum of money is words too ("Total: $42,030"); looked for only when the letters alone
    // fall short, since counting it can only add to them.
    return isMostlyLetters(countingAmounts: false) || (IntentWords.statesAmount(sentence) && isMostlyLetters(countingAmounts: true))
  }

  /// `isProse` of an ASCII sentence without a carriage return (each byte a character), byte
  /// by byte; nil for any other sentence.
  private static func asciiIsProse(_ sentence: String) -> Bool? {
    var text = sentence
    let counts = text.withUTF8 { bytes -> (hasWord: Bool, letters: Int, amountCharacters: Int, length: Int)? in
      var wordLetters = 0
      var hasWord = false
      var letters = 0
      var amountCharacters = 0
      for byte in bytes {
        guard byte < 0x80, byte != 0x0D else { return nil }
        if FoldedWords.isWhitespaceByte(byte) {
          wordLetters = 0
        } else if FoldedWords.isLetterByte(byte) {
          wordLetters += 1
          if wordLetters >= 2 { hasWord = true }
        }
        if FoldedWords.isLetterByte(byte) || byte == 0x20 {
          letters += 1
        } else if byte &- 0x30 < 10 || byte == 0x24 || byte == 0x2C || byte == 0x2E {
          amountCharacters += 1
        }
      }
      return (hasWord, letters, amountCharacters, bytes.count)
    }
    guard let counts else { return nil }
    guard counts.hasWord else { return false }
    if counts.letters * 3 >= counts.length * 2 { return true }
    return IntentWords.statesAmount(sentence) && (counts.letters + counts.amountCharacters) * 3 >= counts.length * 2
  }

  /// Sentences: lines, split after `.`, `!` or `?` followed by a space. A long line that
  /// ends without punctuation and runs on into the next line is one line wrapped at a
  /// margin (a README, a licence, a mail at 72 columns): its sentence goes on ("Bash is
  /// distributed in the hope that it will be useful, but WITHOUT" was quoted as it stood).
  static func sentences(_ text: String) -> [String] {
    // Each line alone: an ASCII one byte by byte, any other character by character.
    var result: [String] = []
    TextLines.forEach(in: unwrapped(text)) { line, isASCII in
      if isASCII {
        appendASCIISentences(of: line, to: &result)
      } else {
        result += characterSentences(String(decoding: line, as: UTF8.self))
      }
    }
    return result
  }

  /// `sentences` of a text already unwrapped, read character by character.
  static func characterSentences(_ text: String) -> [String] {
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

  /// `characterSentences` of an ASCII text, byte by byte: a byte is a character, but for a
  /// carriage return and line feed, which end a sentence either way.
  static func appendASCIISentences(of bytes: UnsafeBufferPointer<UInt8>, to result: inout [String]) {
    var start = 0
    var previous: UInt8 = 0x20
    func cut(at end: Int) {
      var lower = start
      var upper = end
      // `.whitespaces` of ASCII: space and tab.
      while lower < upper, bytes[lower] == 0x20 || bytes[lower] == 0x09 { lower += 1 }
      while upper > lower, bytes[upper - 1] == 0x20 || bytes[upper - 1] == 0x09 { upper -= 1 }
      if lower < upper { result.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[lower..<upper]), as: UTF8.self)) }
    }
    for index in 0..<bytes.count {
      let byte = bytes[index]
      // Line feed, vertical tab, form feed, carriage return; a space after `.`, `!` or `?`.
      if byte &- 0x0A < 4 || (byte == 0x20 && (previous == 0x2E || previous == 0x21 || previous == 0x3F)) {
        cut(at: index)
        start = index + 1
      }
      previous = byte
    }
    cut(at: bytes.count)
  }

  /// Lines this long or longer, ending without punctuation, were wrapped at a margin.
  static let wrappedLineLength = 60

  /// `text` with each line break that wraps a sentence at a margin made a space: after a
  /// line of `wrappedLineLength` characters or more that ends in no `.!?:;` and before a
  /// line that is not blank.
  static func unwrapped(_ text: String) -> String {
    guard text.contains("\n") else { return text }
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    var result = ""
    result.reserveCapacity(text.utf8.count)
    for index in lines.indices {
      let line = lines[index]
      result += line
      guard index + 1 < lines.count else { break }
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      let next = lines[index + 1]
      let wraps = trimmed.count >= wrappedLineLength && !".!?:;".contains(trimmed.last ?? ".") && next.contains { !$0.isWhitespace }
      guard wraps else {
        result += "\n"
        continue
      }
      // One space where the margin was: no trailing blanks, and the next line's indent dropped.
      while result.last?.isWhitespace == true { result.removeLast() }
      result += " "
      lines[index + 1] = next.drop { $0.isWhitespace }
    }
    return result
  }

  private func clip(_ text: String) -> String {
    guard text.count > sentenceLength else { return text }
    let head = text.prefix(sentenceLength)
    let cut = head.lastIndex(of: " ").map { head[..<$0] } ?? head
    return cut.trimmingCharacters(in: .punctuationCharacters.union(.whitespaces)) + "…"
  }
}
