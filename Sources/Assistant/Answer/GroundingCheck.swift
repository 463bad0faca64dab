import Foundation
import SearchIndex

/// Checks each sentence of a model's answer against the text of the sources it was given.
///
/// Sources are cited from search replies, never from prose, so a model cannot invent a
/// citation; it can still write a sentence that no source supports (a small model asked for
/// trails with waterfalls named a place no source mentions). This check finds such sentences
/// by their load-bearing words, which must appear in the sources (or the question):
/// - numbers, dates and words with digits (`4.5`, `1,900`, `July 9`, `Q3`): always;
/// - names: capitalised words after the first word of the sentence (not stop words; common
///   words count as rare words), and all-caps words;
/// - rare words (not stop words or common English, four letters or more, and the first word
///   of a sentence unless it is common): the sentence fails when two or more of them, and at
///   least half, are missing, so one paraphrased word does not fail it.
///
/// Words match case- and diacritic-insensitively, in any form with the same stem; numbers
/// match as values (`1,900` is `1900`, `09` is `9`, `9th` is `9`); a date in the sources also
/// supplies its year, month (number and name), day and weekday. The check is lexical: it
/// catches invented names, numbers and facts, not a wrong relation between true words.
package struct GroundingCheck: Sendable {
  /// Folded words and their stems, and normalised numbers, from the sources and question.
  private let vocabulary: Set<String>

  /// - Parameters:
  ///   - sources: the items the answer may rest on, with their stored attributes.
  ///   - question: the question, whose words the answer may repeat.
  ///   - timeZone: the zone dates are read in (the session's clock).
  package init(sources: [SearchableItem], question: String, timeZone: TimeZone) {
    var vocabulary = Set<String>()
    func add(_ text: String) {
      for token in Self.tokens(text) { vocabulary.formUnion(Self.forms(token)) }
    }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = timeZone
    formatter.dateFormat = "yyyy M d MMMM MMM EEEE EEE"
    func add(_ value: AttributeValue) {
      switch value {
      case .string(let text), .url(let text): add(text)
      case .number(let number):
        add(JSONValue.format(number: number))
        // "about 5 miles" for 5.4: whole numbers near the value are its too.
        add(String(Int(number.rounded())))
        add(String(Int(number.rounded(.down))))
      case .date(let date): add(formatter.string(from: date))
      case .bool: break
      case .list(let values): values.forEach(add)
      }
    }
    for item in sources {
      add(item.uniqueIdentifier)
      for (_, value) in item.attributeSet { add(value) }
    }
    add(question)
    self.vocabulary = vocabulary
  }

  /// The words of `sentence` the sources do not support, in order; empty when it is supported.
  package func missingTerms(in sentence: String) -> [String] {
    let tokens = Self.tokens(Self.withoutListMarker(sentence))
    var missingRequired: [String] = []
    var rare: [String] = []
    var missingRare: [String] = []
    for (position, token) in tokens.enumerated() {
      let folded = TextFolding.fold(token)
      switch Self.kind(of: token, folded: folded, first: position == 0) {
      case .ignored:
        continue
      case .required:
        if !supports(token) { missingRequired.append(token) }
      case .rare:
        rare.append(token)
        if !supports(token) { missingRare.append(token) }
      }
    }
    let rareFails = missingRare.count >= 2 && missingRare.count * 2 >= rare.count
    var missing = missingRequired
    if rareFails {
      missing += missingRare
    } else if !missingRequired.isEmpty {
      // The rest of a name that failed ("Falls" of "Yosemite Falls") is named with it.
      missing += missingRare.filter { $0.first?.isUppercase == true }
    }
    // In sentence order, each once.
    var seen = Set<String>()
    let ordered = tokens.filter { missing.contains($0) && seen.insert($0).inserted }
    return ordered
  }

  /// Whether any form of `token` is in the sources.
  private func supports(_ token: String) -> Bool {
    !vocabulary.isDisjoint(with: Self.forms(token))
  }

  // MARK: Words

  private enum Kind {
    case ignored
    case required
    case rare
  }

  private static func kind(of token: String, folded: String, first: Bool) -> Kind {
    if token.contains(where: \.isNumber) { return .required }
    let common = isCommon(folded)
    let letters = token.filter(\.isLetter)
    if letters.count >= 2, letters.allSatisfy(\.isUppercase) { return common && first ? .ignored : .required }
    if token.first?.isUppercase == true {
      // A capitalised stop word after a colon or a quote ("A: No.") starts a clause, and a
      // capitalised common word is phrasing more often than a name.
      if StopWords.contains(folded) { return .ignored }
      if first || common { return common ? (first ? .ignored : .rare) : .rare }
      return .required
    }
    if common || folded.count < 4 { return .ignored }
    return .rare
  }

  private static func isCommon(_ folded: String) -> Bool {
    StopWords.contains(folded) || commonWords.contains(folded) || commonWords.contains(PorterStemmer.stem(folded))
  }

  /// The forms a token matches by: the folded word and its stem; for numbers, the value.
  static func forms(_ token: String) -> Set<String> {
    let folded = TextFolding.fold(token)
    if folded.contains(where: \.isNumber) { return [normalizedNumber(folded)] }
    return [folded, PorterStemmer.stem(folded)]
  }

  /// `1,900` → `1900`, `09` → `9`, `4.50` → `4.5`, `9th` → `9`; other tokens with digits
  /// (`q3`, `v2`) unchanged.
  static func normalizedNumber(_ text: String) -> String {
    var value = text.replacingOccurrences(of: ",", with: "")
    for suffix in ["st", "nd", "rd", "th"] where value.hasSuffix(suffix) && value.dropLast(2).allSatisfy(\.isNumber) && value.count > 2 {
      value.removeLast(2)
    }
    guard value.allSatisfy({ $0.isNumber || $0 == "." }), value.first?.isNumber == true else { return value }
    var parts = value.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    let whole = parts[0].drop { $0 == "0" }
    parts[0] = whole.isEmpty ? "0" : String(whole)
    if parts.count == 2 {
      let fraction = parts[1].reversed().drop { $0 == "0" }
      return fraction.isEmpty ? parts[0] : parts[0] + "." + String(fraction.reversed())
    }
    return parts.joined(separator: ".")
  }

  /// Runs of letters and digits; `.` and `,` stay inside a number (`4.5`, `1,900`).
  static func tokens(_ text: String) -> [String] {
    var tokens: [String] = []
    var current = ""
    let characters = Array(text)
    for (index, character) in characters.enumerated() {
      if character.isLetter || character.isNumber {
        current.append(character)
      } else if character == "." || character == ",", current.last?.isNumber == true,
        index + 1 < characters.count, characters[index + 1].isNumber
      {
        current.append(character)
      } else if !current.isEmpty {
        tokens.append(current)
        current = ""
      }
    }
    if !current.isEmpty { tokens.append(current) }
    return tokens
  }

  /// A sentence without a leading `1.`, `2)`, `-`, `*` or `•` list marker, whose number
  /// is the list's, not a fact.
  static func withoutListMarker(_ sentence: String) -> String {
    let trimmed = sentence.drop { $0.isWhitespace }
    if let first = trimmed.first, "-*•".contains(first) { return String(trimmed.dropFirst()) }
    let digits = trimmed.prefix { $0.isNumber }
    let rest = trimmed.dropFirst(digits.count)
    if !digits.isEmpty, digits.count <= 2, let marker = rest.first, marker == "." || marker == ")",
      rest.dropFirst().first?.isWhitespace == true
    {
      return String(rest.dropFirst())
    }
    return String(trimmed)
  }

  /// Common English and the words answers are phrased in, folded; none of them needs a
  /// source. Number words are here too: "three items" is phrasing, "3 items" is checked.
  /// Built from an array: the list repeats a few words across its groups.
  static let commonWords = Set<String>([
    // answer phrasing
    "answer", "answers", "based", "result", "results", "following", "item", "items", "source", "sources", "found", "find",
    "note", "notes", "list", "listed", "include", "includes", "included", "including", "related", "information", "details",
    "detail", "according", "search", "searched", "searches", "show", "shows", "shown", "provided", "provide", "provides",
    "available", "relevant", "question", "questions", "data", "however", "therefore", "both", "either", "neither", "well",
    "like", "example", "above", "below", "first", "second", "third", "total", "number", "numbers", "several", "various",
    "summary", "overall", "general", "generally", "specific", "specifically", "unfortunately", "sorry", "happy", "help",
    "hope", "sure", "certainly", "yes", "okay", "thanks", "thank", "nothing", "none", "mentioned", "describes",
    "described", "describe", "discusses", "discussed", "called", "named", "known", "seems", "appears", "appear", "seem",
    "main", "key", "important", "following", "here", "titled", "title", "dated", "date", "dates", "entry", "entries",
    "record", "records", "document", "documents", "message", "messages", "email", "emails", "mail", "file", "files",
    // common verbs
    "make", "made", "makes", "take", "took", "taken", "takes", "come", "came", "comes", "went", "gone", "goes", "going",
    "seen", "look", "looks", "looked", "used", "using", "uses", "work", "worked", "works", "working", "keep", "kept",
    "start", "started", "starts", "end", "ended", "ends", "plan", "planned", "plans", "try", "tried", "need", "needed",
    "needs", "want", "wanted", "think", "thought", "feel", "felt", "become", "became", "leave", "left", "call", "put",
    "mean", "means", "meant", "bring", "brought", "begin", "began", "happen", "happened", "change", "changed", "turn",
    "turned", "move", "moved", "play", "played", "live", "lived", "believe", "hold", "held", "write", "wrote", "written",
    "read", "provide", "stand", "lose", "lost", "pay", "paid", "meet", "met", "run", "ran", "continue", "set", "learn",
    "learned", "lead", "led", "understand", "follow", "followed", "stop", "stopped", "create", "created", "speak",
    "allow", "allowed", "add", "added", "spend", "spent", "grow", "open", "opened", "walk", "walked", "offer", "offered",
    "remember", "consider", "considered", "appear", "buy", "bought", "wait", "serve", "send", "sent", "expect",
    "expected", "build", "built", "stay", "fall", "cut", "reach", "reached", "remain", "suggest", "suggests",
    "raise", "pass", "passed", "sell", "sold", "require", "required", "report", "reported", "decide", "decided",
    "contains", "contain", "give", "gave", "given", "gives", "tell", "told", "tells", "says", "said", "show", "ask",
    "asked", "seemed", "finish", "finished", "check", "checked", "visit", "visited", "discuss",
    // common nouns and adjectives
    "time", "times", "days", "week", "weeks", "month", "months", "year", "years", "today", "yesterday",
    "tomorrow", "morning", "evening", "night", "afternoon", "people", "person", "place", "places", "part", "parts",
    "way", "ways", "thing", "things", "kind", "type", "types", "group", "groups", "point", "points", "case", "cases",
    "fact", "facts", "area", "areas", "level", "levels", "line", "lines", "side", "sides", "home", "team", "teams",
    "issue", "issues", "problem", "problems", "idea", "ideas", "reason", "reasons", "word", "words", "name", "names",
    "good", "great", "best", "better", "high", "higher", "highest", "long", "longer", "longest", "short", "shorter",
    "large", "small", "little", "big", "bigger", "new", "newer", "newest", "old", "older", "oldest", "early", "earlier",
    "late", "later", "latest", "full", "able", "different", "similar", "possible", "real", "whole", "free", "clear",
    "easy", "hard", "difficult", "simple", "open", "closed", "true", "false", "right", "wrong", "other", "others",
    "least", "enough", "quite", "rather", "really", "even", "once", "twice", "often", "sometimes", "always", "never",
    "usually", "together", "away", "back", "instead", "though", "although", "because", "would", "could", "should",
    "might", "must", "shall", "will", "until", "unless", "within", "without", "another", "every", "each", "lot",
    "around", "also", "perhaps", "maybe", "likely", "almost", "about", "approximately", "roughly", "nearly", "exactly",
    "only", "including", "especially", "particularly", "mainly", "mostly", "total", "average", "overall", "current",
    "recently", "upcoming", "previous", "following", "several", "certain", "particular", "separate", "single",
    "both", "these", "those", "their", "there", "where", "which", "while", "what", "when", "whom", "whose",
    // number words
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "twenty", "thirty", "forty", "fifty", "hundred", "hundreds", "thousand", "thousands", "million", "once", "half",
    "dozen", "couple", "single", "double", "none",
  ])
}
