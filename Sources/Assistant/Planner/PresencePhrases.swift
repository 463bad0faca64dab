import QueryEngine

/// Phrases that ask for items without an attribute: "packages with no homepage", "trails
/// without a rating", "notes missing keywords". The attribute is named as `attributeName`
/// reads names; the filter is the language's absence test, `homepage != "*"`.
extension PlanBuilder {
  /// Words before an attribute's name that say the item lacks it.
  static let absenceWords: Set<String> = ["no", "without", "missing", "lacking", "lack", "lacks"]

  mutating func recognizeAbsentAttributes() {
    var index = 0
    while index < count {
      guard isFree(index), let word = word(index), Self.absenceWords.contains(word) else {
        index += 1
        continue
      }
      var name = index + 1
      if ["a", "an", "any"].contains(self.word(name) ?? "") { name += 1 }
      guard let named = attributeName(at: name), let attribute = named.attribute, named.period == nil,
        !["textContent", "contentType", "domainIdentifier"].contains(attribute), vocabulary.has(attribute)
      else {
        index += 1
        continue
      }
      let span = index..<(name + named.length)
      let filter = PlanSyntax.compare(attribute, .notEqual, PlanSyntax.anyValue)
      claim(span)
      absenceFilters.append(filter)
      note(index, "\(quote(span)) -> \(SyntaxPrinter.text(filter))")
      index = span.upperBound
    }
  }
}
