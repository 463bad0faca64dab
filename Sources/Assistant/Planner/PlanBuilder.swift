import Foundation
import QueryEngine
import SearchIndex

/// The planner's working state for one question: the words, which of them a recogniser has
/// taken, and everything recognised so far. Recognisers live in extensions, one file per
/// kind of phrase; `assemble` turns the result into a query.
struct PlanBuilder {
  let vocabulary: IndexVocabulary
  let clock: QueryClock
  let resultLimit: Int
  /// Search words of five letters or more as prefixes of their stems.
  var stemming = true
  /// Rank searches by fusing text and embedding retrieval (the index has embeddings).
  var hybrid = false
  /// Nouns that name a content type or a domain filter by it; false reads them as naming
  /// every item (the planner's second reading when the collection is what found nothing).
  var filtersByCollection = true
  let question: String
  var text: QuestionText
  /// True for words a recogniser has used; the rest may become text-search terms.
  var claimed: [Bool]
  /// Notes with the position of the phrase they explain, sorted at the end.
  var notes: [(position: Int, text: String)] = []

  // What was recognised.
  var contentTypes: [String] = []
  var domains: [String] = []
  /// Domains named by a noun ("notes"), each with its sub-domains (`notes.*`).
  var domainPrefixes: [String] = []
  /// The question's words that named those content types and domains ("work notes", "trails"),
  /// for an answer that must say the collection had none.
  var collectionWords: [String] = []
  var valueMatches: [ValueMatch] = []
  var valueFilters: [ValueFilter] = []
  var people: [PersonFilter] = []
  /// Comparisons and ranges on numeric attributes (`distance < 5`, `InRange(distance, 2, 8)`).
  var numericFilters: [Expression] = []
  /// Attributes the items must lack (`homepage != "*"`).
  var absenceFilters: [Expression] = []
  /// Boolean attributes the question names (`pinned == true`).
  var flagFilters: [Expression] = []
  /// Every test of an attribute's value the question makes: numbers, absences, flags.
  var attributeFilters: [Expression] { numericFilters + absenceFilters + flagFilters }
  var dates: [DateConstraint] = []
  var completed = false
  /// A date attribute named by a verb (`completed`, `due`, `created`).
  var dateAttributeCue: (attribute: String, position: Int)?
  var counting = false
  var statistic: (function: String, attribute: String)?
  var grouping: Grouping?
  var superlative: Superlative?
  /// The groups ranked by a count or a statistic: "which state has the most trails".
  var rankedGroups: RankedGroups?
  /// True when the answer has a shape (a count, a statistic, groups, a superlative): nouns
  /// and values then name the collection it applies to.
  var isShaped: Bool { counting || statistic != nil || superlative != nil || grouping != nil || rankedGroups != nil }
  var phrases: [QuestionText.Phrase] = []
  var textTerms: [String] = []
  /// Content words no visible item contains (folded words of letters, three or more).
  var misspelt: [String] = []
  /// The ranked search's terms and weights after relevance feedback (the question's terms
  /// and the words the first search's best items added); empty: `textTerms`, unweighted.
  var feedbackTerms: [RelevanceFeedback.WeightedTerm] = []
  /// Words of known values the question names without filtering on them ("Thanksgiving",
  /// a project): searched as text at twice the weight (`PlanBuilder.labelWeight`).
  var labelWords: Set<String> = []

  /// A filter on an attribute's value: `stateOrProvince == "California"cd`.
  struct ValueFilter {
    var attribute: String
    var value: String
    var position: Int
  }

  /// A `people` stage.
  struct PersonFilter {
    var name: String
    var role: String
  }

  /// Grouping by an attribute's values or by calendar periods of a date attribute.
  struct Grouping {
    var attribute: String?
    var period: String?
  }

  /// Items with the largest or smallest value of an attribute (nil: the date attribute).
  struct Superlative {
    var attribute: String?
    var descending: Bool
    var limit: Int?
  }

  /// The first `limit` groups of `attribute` by how many items they hold (`function` is
  /// "count", `measure` nil) or by a statistic of `measure`, largest first when `descending`.
  struct RankedGroups {
    var attribute: String
    var function: String
    var measure: String?
    var descending: Bool
    var limit: Int
  }

  /// A date range from a phrase: `== $time.last_week`, or `>= lower && < upper`.
  struct DateConstraint {
    var span: Range<Int>
    var period: Expression?
    var lower: (value: Expression, date: Date)?
    var upper: (value: Expression, date: Date)?
  }

  init(question: String, vocabulary: IndexVocabulary, clock: QueryClock, resultLimit: Int) {
    self.question = question
    self.vocabulary = vocabulary
    self.clock = clock
    self.resultLimit = resultLimit
    self.text = QuestionText(question)
    self.claimed = Array(repeating: false, count: text.tokens.count)
    self.phrases = text.phrases
  }

  // MARK: Words

  var tokens: [QuestionText.Token] { text.tokens }
  var count: Int { tokens.count }

  /// The folded word at `index`, nil past the end.
  func word(_ index: Int) -> String? { index >= 0 && index < count ? tokens[index].word : nil }

  /// True when `index` is a word no recogniser has taken.
  func isFree(_ index: Int) -> Bool { index >= 0 && index < count && !claimed[index] }

  mutating func claim(_ range: Range<Int>) {
    for index in range where index >= 0 && index < count { claimed[index] = true }
  }

  /// True when the free words from `index` on are `words`.
  func matches(_ words: [String], at index: Int) -> Bool {
    guard index >= 0, index + words.count <= count else { return false }
    for (offset, word) in words.enumerated() where !isFree(index + offset) || tokens[index + offset].word != word {
      return false
    }
    return true
  }

  /// The question's own words for a span, quoted for a note.
  func quote(_ range: Range<Int>) -> String {
    "\u{201C}" + words(of: range) + "\u{201D}"
  }

  /// The question's words in `range`, as written.
  func words(of range: Range<Int>) -> String {
    tokens[range.clamped(to: 0..<count)].map(\.text).joined(separator: " ")
  }

  mutating func note(_ position: Int, _ text: String) {
    notes.append((position, text))
  }

  /// True for a word of four letters or more that reads as a plural ("trails", "files", not
  /// "class", "bus", "status" or "analysis"): a superlative or a statistic before it asks for
  /// several.
  static func isPlural(_ word: String) -> Bool {
    word.count > 3 && endsLikePlural(word) && !word.hasSuffix("us") && !word.hasSuffix("is")
  }

  /// True for a word in "s" but not "ss": how the name of a collection the index knows
  /// ("notes", "pdfs", "ads") is told from its singular; `isPlural` asks more of other words.
  static func endsLikePlural(_ word: String) -> Bool { word.hasSuffix("s") && !word.hasSuffix("ss") }

  /// True when the question contains any of `words` (taken or not).
  func contains(_ words: Set<String>) -> Bool { tokens.contains { words.contains($0.word) } }

  /// The attribute dates refer to: one named by a verb, else the modification date.
  var dateAttribute: String {
    if let cue = dateAttributeCue { return cue.attribute }
    for name in ["contentModificationDate", "contentCreationDate"] where vocabulary.has(name) { return name }
    return vocabulary.attributes.filter { $0.value.scalar == .date }.keys.sorted().first ?? "contentModificationDate"
  }

  /// True when the question speaks of the past (`did`, `was`, `-ed` verbs, `ago`).
  var speaksOfPast: Bool {
    let past: Set<String> = [
      "did", "was", "were", "had", "ago", "wrote", "sent", "got", "went", "made", "said", "spent", "bought", "paid", "met",
      "saw", "took", "gave", "done", "ran", "read", "came", "left", "told", "found", "kept", "began",
    ]
    return tokens.contains { past.contains($0.word) || ($0.word.count >= 5 && $0.word.hasSuffix("ed") && !$0.isNumber) }
  }

  // MARK: Recognition

  /// True when the word at `index` says nothing about what to find: a stop word, or a verb of
  /// asking where the request starts ("show me", "please list"), unless the question asks how
  /// to do it ("how to find files by name", "how do I list a directory": the finding and
  /// the listing are what the items must explain).
  func isStopWord(_ index: Int) -> Bool {
    let word = tokens[index].word
    if StopWords.contains(word) { return true }
    // "what kind of trails", "which sort of notes": the trails and the notes.
    if ["kind", "kinds", "sort", "sorts", "type", "types"].contains(word), index > 0, ["what", "which"].contains(tokens[index - 1].word),
      index + 1 < count, tokens[index + 1].word == "of" {
      return true
    }
    // "what did I write about X", "what have we noted on Y": the asker's own writing, not a
    // word the items contain ("how do I write a cover letter" asks about writing).
    if index > 0, ["i", "we"].contains(tokens[index - 1].word) {
      if StopWords.pastWritingVerbs.contains(word) { return true }
      if StopWords.writingVerbs.contains(word), index > 1, tokens[index - 2].word == "did" { return true }
    }
    guard StopWords.requestVerbs.contains(word) else { return false }
    return tokens[0].word != "how" && (0..<index).allSatisfy { StopWords.contains(tokens[$0].word) }
  }

  /// Runs every recogniser, in the order that lets the most specific phrases win.
  mutating func recognize() {
    recognizeAbsentAttributes()
    recognizeFlags()
    recognizeNumericPhrases()
    recognizeDatePhrases()
    recognizeAnswerShape()
    recognizeValues()
    recognizeContentTypes()
    recognizeDateAttributeCues()
    decideValues()
    releaseFutureDates()
    releaseUnusedDateCue()
  }
}
