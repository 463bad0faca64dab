import Foundation
import SearchIndex

/// Pseudo-relevance feedback (RM3): the best few items of a question's own ranked search
/// suggest more words for it.
///
/// Questions are short and often word a topic differently from the items that answer it.
/// The words of the first search's best items, each weighted by how strongly its item
/// matched and by how much of the item it makes up (Lavrenko and Croft's relevance model),
/// are mixed with the question's words, and the search runs again with the mixture as
/// term weights (`"flutter"^0.41 || "flutter"s^0.41 || "wing"s^0.12`). The added words
/// find answers that do not use the question's wording (recall), and the best items are
/// ranked by more evidence than two or three words (precision).
///
/// Words are compared by their Porter stems, so "models" in an item strengthens the
/// question's "model"; added words are searched in every form (`"word"s`). Stop words,
/// numbers, words of one or two letters and parts of addresses are never added.
///
/// A word is added only when at least `agreement` of the items use it. A word one item uses
/// and its neighbour does not is that item's own subject, which is a guess about the
/// question's subject only if that one item is relevant; a word both use is what they have
/// in common with each other and, through the first search, with the question. A question
/// with one relevant item (a scientific claim and the abstract that supports it) gets few
/// added words this way, a question with many (Cranfield's) keeps the words its answers share.
///
/// Only questions with at least `minimumQuestionTerms` content words are expanded. A
/// question that describes a topic in many words has many relevant items, which the
/// expansion finds; a short one usually names one thing ("when is my dentist
/// appointment"), whose best match the first search already has, and added words only
/// pull its neighbours above it.
public struct RelevanceFeedback: Sendable, Hashable {
  /// How many of the first search's best items suggest words.
  public var documents: Int
  /// How many suggested words are kept (the question's own words may be among them).
  public var terms: Int
  /// The share of the weight that stays with the question's words (RM3's lambda); the rest
  /// goes to the suggested words.
  public var questionWeight: Double
  /// The fewest content words (search terms) a question needs to be expanded.
  public var minimumQuestionTerms: Int
  /// Of the items that suggest words, how many must use a word for it to be added (at most
  /// `documents`; 1 adds every suggested word).
  public var agreement: Int

  public init(documents: Int, terms: Int, questionWeight: Double, minimumQuestionTerms: Int = 5, agreement: Int = 1) {
    self.documents = max(1, documents)
    self.terms = max(0, terms)
    self.questionWeight = min(max(questionWeight, 0), 1)
    self.minimumQuestionTerms = max(1, minimumQuestionTerms)
    self.agreement = min(max(1, agreement), self.documents)
  }

  /// The shipped parameters: words both of the first search's two best items use, at most
  /// 20, holding half the weight; questions of five content words or more. Chosen on
  /// Cranfield's 225 questions, SciFact's 809 training claims and the sample fixtures
  /// together (BENCHMARKS.md, issue 21, session 10).
  public static let standard = RelevanceFeedback(
    documents: 2, terms: 20, questionWeight: 0.5, minimumQuestionTerms: 5, agreement: 2)

  /// The parameters in effect: `standard`, or those of `SEARCHLIGHT_FEEDBACK` for relevance
  /// experiments (`"documents terms questionWeight [minimumQuestionTerms [agreement]]"`, or
  /// `off`); nil when off.
  public static let configured: RelevanceFeedback? = tuning(ProcessInfo.processInfo.environment["SEARCHLIGHT_FEEDBACK"])

  static func tuning(_ text: String?) -> RelevanceFeedback? {
    guard let text else { return standard }
    if text == "off" { return nil }
    let numbers = text.split(separator: " ").compactMap { Double($0) }
    guard (3...5).contains(numbers.count), numbers.allSatisfy(\.isFinite), numbers[0] >= 1, numbers[1] >= 0,
      (0...1).contains(numbers[2]), numbers.dropFirst(3).allSatisfy({ $0 >= 1 })
    else { return standard }
    return RelevanceFeedback(
      documents: Int(numbers[0]), terms: Int(numbers[1]), questionWeight: numbers[2],
      minimumQuestionTerms: numbers.count >= 4 ? Int(numbers[3]) : standard.minimumQuestionTerms,
      agreement: numbers.count == 5 ? Int(numbers[4]) : 1)
  }

  /// One of the first search's best items: the texts of its full-text attributes and its
  /// relevance (the BM25 score; larger is better).
  struct Evidence {
    var texts: [String]
    var relevance: Double
  }

  /// A term of the expanded search and its weight; `added` for a word the feedback
  /// suggested, false for one of the question's terms.
  struct WeightedTerm: Equatable {
    var term: String
    var weight: Double
    var added: Bool
  }

  private static let analyzer = TextAnalyzer(stemming: false)
  /// Which question terms keep at least the heaviest added word's weight: `rare` (the
  /// shipped rule: the rarer half), `added` (all), `one` (all, at the heaviest question
  /// term's weight) or `none` (plain RM3); `SEARCHLIGHT_FEEDBACK_FLOOR` for experiments
  /// (BENCHMARKS.md, issue 21).
  static let floor = ProcessInfo.processInfo.environment["SEARCHLIGHT_FEEDBACK_FLOOR"] ?? "rare"
  /// Parts of mail and web addresses (`sam@example.com`): frequent in notes and mail, about
  /// nothing.
  static let addressWords: Set<String> = ["com", "org", "net", "edu", "gov", "www", "http", "https", "html", "mailto", "example"]

  /// The expanded search: the question's `terms` (as the planner writes them: a stemmed
  /// term starts with the stem marker) in their order, then the added words as stemmed
  /// terms, heaviest first. Weights are scaled so the heaviest is 1. Returns the question's
  /// terms alone, each weighing 1, when the evidence suggests nothing.
  /// `rarity` gives each question term's weight in the index (its idf); the rarer half of
  /// the question's terms (at or above their mean rarity) keep at least the weight of the
  /// heaviest added word. Without it, every question term does.
  func expand(_ terms: [String], evidence: [Evidence], rarity: [String: Double] = [:]) -> [WeightedTerm] {
    guard !terms.isEmpty else { return [] }
    let plain = terms.map { WeightedTerm(term: $0, weight: 1, added: false) }
    let model = relevanceModel(evidence)
    guard !model.isEmpty, self.terms > 0 else { return plain }
    let kept = model.prefix(self.terms)
    let keptTotal = kept.reduce(0) { $0 + $1.probability }
    guard keptTotal > 0 else { return plain }
    // RM3: lambda * P(w | question) + (1 - lambda) * P(w | relevance model).
    var weights: [String: Double] = [:]
    let questionKeys = terms.map(Self.key(ofTerm:))
    for key in questionKeys { weights[key, default: 0] += questionWeight / Double(terms.count) }
    let questionKeySet = Set(questionKeys)
    // Fewer items than `documents` (a first search that found one) ask agreement of all of them.
    let agreement = min(self.agreement, Self.usable(evidence.prefix(documents)).count)
    let agreed = kept.filter { questionKeySet.contains($0.key) || $0.items >= agreement }
    for entry in agreed { weights[entry.key, default: 0] += (1 - questionWeight) * entry.probability / keptTotal }
    var result = zip(terms, questionKeys).map { WeightedTerm(term: $0, weight: weights[$1] ?? 0, added: false) }
    for entry in agreed where !questionKeySet.contains(entry.key) {
      result.append(WeightedTerm(term: TermForms.searchTerm(entry.word, stemming: true), weight: weights[entry.key] ?? 0, added: true))
    }
    // The question's rarest words stay at least as heavy as any added word: an added word
    // is a guess from a few items, a rare question word is the most specific thing asked,
    // and RM3 alone can leave it lighter than a common added word.
    let heaviestAdded = result.filter(\.added).map(\.weight).max() ?? 0
    let rarities = terms.compactMap { rarity[$0] }
    let meanRarity = rarities.isEmpty ? 0 : rarities.reduce(0, +) / Double(rarities.count)
    let heaviestQuestionTerm = result.filter { !$0.added }.map(\.weight).max() ?? 0
    for index in result.indices where !result[index].added {
      let term = result[index].term
      switch Self.floor {
      case "none": break
      case "added": result[index].weight = max(result[index].weight, heaviestAdded)
      case "one": result[index].weight = max(result[index].weight, heaviestAdded, heaviestQuestionTerm)
      default:
        if (rarity[term] ?? meanRarity) >= meanRarity { result[index].weight = max(result[index].weight, heaviestAdded) }
      }
    }
    let heaviest = result.map(\.weight).max() ?? 1
    guard heaviest > 0 else { return plain }
    for index in result.indices { result[index].weight /= heaviest }
    return result
  }

  /// A word's identity for feedback: its Porter stem (a term's word for a stemmed term,
  /// the term itself for a number or a word searched as written).
  static func key(ofTerm term: String) -> String {
    PorterStemmer.stem(TermForms.word(term))
  }

  /// The items whose relevance can weigh their words.
  static func usable(_ evidence: ArraySlice<Evidence>) -> [Evidence] {
    evidence.filter { $0.relevance.isFinite && $0.relevance > 0 }
  }

  /// P(w | R): each item's words as shares of its length, averaged with the items'
  /// relevance as weights. Sorted by probability, then by stem; `word` is the form the
  /// items use most for the stem, `items` how many of the items use the stem.
  func relevanceModel(_ evidence: [Evidence]) -> [(key: String, word: String, probability: Double, items: Int)] {
    let items = Self.usable(evidence.prefix(documents))
    let totalRelevance = items.reduce(0) { $0 + $1.relevance }
    guard totalRelevance > 0 else { return [] }
    var probability: [String: Double] = [:]
    var forms: [String: [String: Int]] = [:]
    var stems: [String: String] = [:]
    var itemsWith: [String: Int] = [:]
    for item in items {
      var counts: [String: Int] = [:]
      var length = 0
      for text in item.texts {
        Self.analyzer.tokenize(text, mode: .document) { token in
          // Positions only: camelCase parts share their word's position.
          guard !token.colocated else { return }
          length += 1
          let bytes = token.bytes
          guard bytes.count >= 3, bytes.allSatisfy({ $0 &- 0x61 < 26 }) else { return }
          let word = String(decoding: bytes, as: UTF8.self)
          guard !Self.addressWords.contains(word) else { return }
          counts[word, default: 0] += 1
        }
      }
      guard length > 0 else { continue }
      var seen: Set<String> = []
      let share = item.relevance / totalRelevance
      // In word order: the forms of one stem add up in the same order in every process
      // (a dictionary's order changes with its per-process seed, and so would the last bit
      // of a sum, and with it the order of tied words in the plan).
      for (word, count) in counts.sorted(by: { $0.key < $1.key }) where !StopWords.contains(word) {
        let key: String
        if let known = stems[word] { key = known } else {
          key = PorterStemmer.stem(word)
          stems[word] = key
        }
        probability[key, default: 0] += share * Double(count) / Double(length)
        if seen.insert(key).inserted { itemsWith[key, default: 0] += 1 }
        forms[key, default: [:]][word, default: 0] += count
      }
    }
    return probability.map { key, p in
      // The most used form, the shorter one on a tie, then the first alphabetically.
      let word = forms[key]!.max { a, b in
        a.value != b.value ? a.value < b.value : a.key.count != b.key.count ? a.key.count > b.key.count : a.key > b.key
      }!.key
      return (key, word, p, itemsWith[key, default: 0])
    }.sorted { $0.probability != $1.probability ? $0.probability > $1.probability : $0.key < $1.key }
  }
}
