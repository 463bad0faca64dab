import SearchIndex

/// The coded relevance rule for plain ranked text searches: an item is evidence only when
/// its text contains enough of the question's terms, weighted by rarity.
///
/// A ranked search for any of the question's words returns the best partial matches even
/// when nothing answers the question; this rule, not a model, decides that such matches are
/// not evidence, so "nothing relevant was found" stays a coded answer.
struct TermCoverage {
  /// Each term's tokens as a query asks for them (one list of alternatives per position; a
  /// stemmed term's alternatives are its stem tokens) and its weight.
  let terms: [(term: String, positions: [[String]], weight: Double)]
  /// The smallest share of the total weight an item must contain.
  let minimum: Double

  static let analyzer = TextAnalyzer(stemming: true)

  init(_ weights: [PlannedQuery.TermWeight], minimum: Double) {
    terms = weights.map { ($0.term, Self.analyzer.positions($0.term, mode: .query), max($0.weight, 0)) }
      .filter { !$0.positions.isEmpty }
    self.minimum = minimum
  }

  /// The share of the terms' weight found in the item's text: a term is found when every one
  /// of its positions has a token among the item's tokens (its words, their stems and parts).
  func coverage(of item: SearchableItem) -> Double {
    let total = terms.reduce(0) { $0 + $1.weight }
    guard total > 0 else { return 1 }
    let wanted = Set(terms.flatMap { $0.positions.joined() })
    var present = Set<String>()
    Self.forEachText(of: item, around: terms.map { TextExcerpt.needle(for: $0.term) }) { text in
      Self.collect(wanted, in: text, into: &present)
    }
    let found = terms.filter { Self.contains(present, $0.positions) }.reduce(0) { $0 + $1.weight }
    return found / total
  }

  func isRelevant(_ item: SearchableItem) -> Bool {
    terms.isEmpty || coverage(of: item) >= minimum
  }

  /// True when every position of a term has one of its alternatives among `tokens`.
  static func contains(_ tokens: Set<String>, _ positions: [[String]]) -> Bool {
    positions.allSatisfy { alternatives in alternatives.contains { tokens.contains($0) } }
  }

  /// The tokens of `text` as the full-text index stores them (words, stems, camelCase parts).
  static func tokens(of text: String) -> Set<String> {
    var tokens = Set<String>()
    for position in analyzer.positions(text, mode: .document) { tokens.formUnion(position) }
    return tokens
  }

  /// Adds to `present` the tokens of `wanted` that `text` has (as the full-text index stores
  /// them): what `tokens(of:)` holds of them, without making a set of every token of a long
  /// text. Stops once all are found.
  static func collect(_ wanted: Set<String>, in text: String, into present: inout Set<String>) {
    struct AllFound: Error {}
    guard present.count < wanted.count else { return }
    do throws(AllFound) {
      try analyzer.tokenize(text, mode: .document) { (token) throws(AllFound) in
        let token = String(decoding: token.bytes, as: UTF8.self)
        guard wanted.contains(token), present.insert(token).inserted, present.count == wanted.count else { return }
        throw AllFound()
      }
    } catch {}
  }

  /// The distinct folded words of the item's title, description and text (no stems); of a
  /// long text, its beginning (`TextExcerpt`): two copies of a text begin alike.
  static func words(of item: SearchableItem) -> Set<String> {
    var words = Set<String>()
    for name in ["title", "contentDescription", "textContent"] {
      guard let whole = item.attributeSet[name]?.stringValue else { continue }
      let text = TextExcerpt.excerpt(of: whole, around: []).text
      words.formUnion(FoldedWords.of(text))
    }
    return words
  }

  /// True when two items' words are nearly the same (Jaccard similarity of 0.9 or more, and
  /// at least eight words): copies of one text, not two texts on one topic.
  static func isNearDuplicate(_ a: Set<String>, _ b: Set<String>) -> Bool {
    guard a.count >= 8, b.count >= 8 else { return false }
    let shared = a.intersection(b).count
    return Double(shared) >= 0.9 * Double(a.count + b.count - shared)
  }

  /// The tokens of every text value of the item, as the full-text index stores them; of a
  /// long text, those where `needles` are (`TextExcerpt`).
  static func tokens(of item: SearchableItem, around needles: [String]) -> Set<String> {
    var tokens = Set<String>()
    forEachText(of: item, around: needles) { tokens.formUnion(Self.tokens(of: $0)) }
    return tokens
  }

  /// Every text value of the item; of a long text, the parts where `needles` are.
  static func forEachText(of item: SearchableItem, around needles: [String], _ body: (String) -> Void) {
    func visit(_ value: AttributeValue) {
      switch value {
      case .string(let text), .url(let text):
        body(TextExcerpt.excerpt(of: text, around: needles).text)
      case .list(let values):
        values.forEach(visit)
      case .number, .date, .bool:
        break
      }
    }
    for name in item.attributeSet.names {
      if let value = item.attributeSet[name] { visit(value) }
    }
  }
}
