import SearchIndex

/// The coded relevance rule for plain ranked text searches: an item is evidence only when
/// its text contains enough of the question's terms, weighted by rarity.
///
/// A ranked search for any of the question's words returns the best partial matches even
/// when nothing answers the question; this rule, not a model, decides that such matches are
/// not evidence, so "nothing relevant was found" stays a coded answer.
struct TermCoverage {
  /// Folded terms (a trailing `*` prefix marker removed) and their weights.
  let terms: [(term: String, weight: Double)]
  /// The smallest share of the total weight an item must contain.
  let minimum: Double

  init(_ weights: [PlannedQuery.TermWeight], minimum: Double) {
    terms = weights.map { (TextFolding.fold($0.term.hasSuffix("*") ? String($0.term.dropLast()) : $0.term), max($0.weight, 0)) }
      .filter { !$0.0.isEmpty }
    self.minimum = minimum
  }

  /// The share of the terms' weight found in the item's text: a term is found when a word of
  /// any text attribute begins with it (terms may be stems).
  func coverage(of item: SearchableItem) -> Double {
    let total = terms.reduce(0) { $0 + $1.weight }
    guard total > 0 else { return 1 }
    let words = Self.words(of: item)
    let found = terms.filter { term in words.contains { $0.hasPrefix(term.term) } }.reduce(0) { $0 + $1.weight }
    return found / total
  }

  func isRelevant(_ item: SearchableItem) -> Bool {
    terms.isEmpty || coverage(of: item) >= minimum
  }

  /// The folded words of every text value of the item.
  static func words(of item: SearchableItem) -> Set<Substring> {
    var words = Set<Substring>()
    func add(_ value: AttributeValue) {
      switch value {
      case .string(let text), .url(let text):
        words.formUnion(TextFolding.fold(text).split { !$0.isLetter && !$0.isNumber })
      case .list(let values):
        values.forEach(add)
      case .number, .date, .bool:
        break
      }
    }
    for name in item.attributeSet.names {
      if let value = item.attributeSet[name] { add(value) }
    }
    return words
  }
}
