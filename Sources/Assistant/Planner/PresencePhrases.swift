import QueryEngine

/// Phrases that ask for items without an attribute: "packages with no homepage", "trails
/// without a rating", "notes missing keywords". The attribute is named as `attributeName`
/// reads names; the filter is the language's absence test, `homepage != "*"`. And flags: a
/// Boolean attribute's name, "pinned notes" (`pinned == true`), "notes not pinned".
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
        !Self.unaskedAttributes.contains(attribute), vocabulary.has(attribute)
      else {
        index += 1
        continue
      }
      let span = index..<(name + named.length)
      // "No elevation gain" is a gain of 0 as much as none recorded.
      let absent = PlanSyntax.compare(attribute, .notEqual, PlanSyntax.anyValue)
      let filter = vocabulary.type(of: attribute)?.scalar == .number
        ? PlanSyntax.or([absent, PlanSyntax.compare(attribute, .equal, PlanSyntax.number(0))]) : absent
      claim(span)
      absenceFilters.append(filter)
      note(index, "\(quote(span)) -> \(SyntaxPrinter.text(filter))")
      index = span.upperBound
    }
  }

  mutating func recognizeFlags() {
    let flags = vocabulary.attributes.filter { $0.value.scalar == .bool }.keys.sorted()
    guard !flags.isEmpty else { return }
    for index in 0..<count where isFree(index) {
      guard let word = word(index), let attribute = flags.first(where: { $0.lowercased() == word }) else { continue }
      let negated = index > 0 && isFree(index - 1) && self.word(index - 1) == "not"
      let span = (negated ? index - 1 : index)..<(index + 1)
      let filter = PlanSyntax.compare(attribute, negated ? .notEqual : .equal, Expression(.boolean(true), PlanSyntax.nowhere))
      claim(span)
      flagFilters.append(filter)
      note(span.lowerBound, "\(quote(span)) -> \(SyntaxPrinter.text(filter))")
    }
  }
}
