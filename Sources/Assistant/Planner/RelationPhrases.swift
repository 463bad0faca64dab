import Foundation
import QueryEngine
import SearchIndex

/// Questions that name items by a relation one of their attributes holds: "which packages
/// depend on libssl3", "packages maintained by the Debian Python Team", "how many packages
/// recommend git". A verb whose stem is an attribute's (depend, depends; maintained,
/// maintainer) names the attribute, the words after it (past a preposition) its value, and
/// the rest of the question is planned as any question is, its items filtered by that value.
///
/// Such attributes have too many values for the vocabulary to know them (a catalogue's
/// dependencies, its maintainers), so the value is looked up in the index: as the whole value,
/// then as its start, then anywhere in it, then (a group named in other words) its words
/// anywhere; a value no item holds is no relation, and the question is read as before.
extension PlanBuilder {
  /// A relation found in a question; `verbPhrase` and `value` as written.
  struct Relation {
    var attribute: String
    var verbPhrase: String
    var value: String
    /// The question without the relation ("which packages").
    var rest: String
  }

  /// Words for a group of people, which a question may put where the value has another
  /// ("the GNOME team" for "GNOME Maintainers").
  static let groupNouns: Set<String> = ["team", "group", "maintainers", "packagers", "developers", "project", "people"]

  /// Words between a relation's verb and its value.
  static let relationPrepositions: Set<String> = ["on", "upon", "by", "with", "to", "from", "of", "for"]

  /// Words that end a relation's value: what follows them says something else.
  static let relationValueEnds: Set<String> = [
    "and", "or", "but", "that", "which", "who", "in", "since", "before", "after", "sorted", "ordered", "rated",
    "newest", "oldest", "larger", "smaller", "than", "with", "without",
  ]

  /// Attributes a relation never names: text, titles and the fields other phrases read.
  static let relationExcluded: Set<String> = ["title", "textContent", "contentDescription", "contentType", "domainIdentifier", "keywords"]

  /// The relation of `question`, if a word of it is a verb whose stem is a text attribute's
  /// and a value follows.
  static func relation(in question: String, vocabulary: IndexVocabulary) -> Relation? {
    // Words as written, hyphens and dots kept: a value such as `python3-yaml` is one word.
    let words = question.split(whereSeparator: \.isWhitespace).map { word in
      String(word).trimmingCharacters(in: CharacterSet(charactersIn: "?!.,;:\"\u{201C}\u{201D}()"))
    }.filter { !$0.isEmpty }
    let folded = words.map { TextFolding.fold($0) }
    let candidates = relationAttributes(vocabulary)
    // "what does the Debian Python Team maintain", "how many packages does the Debian Perl
    // Group maintain": an agent's attribute, its value between the auxiliary and the verb.
    if let auxiliary = folded.firstIndex(where: { ["does", "do", "did"].contains($0) }), auxiliary >= 1, folded.count >= auxiliary + 3 {
      var verb = folded.count - 1
      if relationPrepositions.contains(folded[verb]) { verb -= 1 }
      var valueStart = auxiliary + 1
      while valueStart < verb, ["the", "a", "an"].contains(folded[valueStart]) { valueStart += 1 }
      if valueStart < verb, let attribute = relationAttribute(of: folded[verb], among: candidates), isAgentNoun(attribute) {
        return Relation(
          attribute: attribute, verbPhrase: words[verb...].joined(separator: " "),
          value: words[valueStart..<verb].joined(separator: " "), rest: words[..<auxiliary].joined(separator: " "))
      }
    }
    for (position, word) in folded.enumerated() {
      guard let attribute = relationAttribute(of: word, among: candidates) else { continue }
      var start = position + 1
      if start < folded.count, relationPrepositions.contains(folded[start]) { start += 1 }
      var end = start
      while end < folded.count, end - start < 6, !relationValueEnds.contains(folded[end]) { end += 1 }
      // "the Debian Python Team": an article before the value is not part of it.
      var valueStart = start
      while valueStart < end, ["the", "a", "an"].contains(folded[valueStart]) { valueStart += 1 }
      guard valueStart < end else { continue }
      var before = Array(words[..<position])
      if let last = before.last, ["that", "which", "who"].contains(TextFolding.fold(last)) { before.removeLast() }
      return Relation(
        attribute: attribute, verbPhrase: words[position..<start].joined(separator: " "),
        value: words[valueStart..<end].joined(separator: " "), rest: (before + words[end...]).joined(separator: " "))
    }
    return nil
  }

  /// The text attributes a verb may name, sorted.
  static func relationAttributes(_ vocabulary: IndexVocabulary) -> [String] {
    vocabulary.attributes.filter { name, type in
      (type.scalar == .string) && !relationExcluded.contains(name) && !name.hasSuffix("Date")
    }.keys.sorted()
  }

  /// The attribute of `candidates` (`relationAttributes`) whose stem `word` (folded) shares,
  /// if any: the attribute a verb names.
  static func relationAttribute(of word: String, among candidates: [String]) -> String? {
    guard word.count >= 5 else { return nil }
    return candidates.first { sharesStem(word, $0.lowercased()) }
  }

  static func relationAttribute(of word: String, vocabulary: IndexVocabulary) -> String? {
    relationAttribute(of: word, among: relationAttributes(vocabulary))
  }

  /// True for an attribute named as the one who does what its verb says (maintainer,
  /// author, creator): "who maintains X" asks for its value, "what does V maintain" names
  /// items by it.
  static func isAgentNoun(_ attribute: String) -> Bool {
    let name = attribute.lowercased()
    return ["er", "or", "ers", "ors"].contains { name.hasSuffix($0) }
  }

  /// True when `word` and `attribute` (both lower case) are forms of one stem of five letters
  /// or more: depend / depends, maintained / maintainer, recommended / recommends.
  static func sharesStem(_ word: String, _ attribute: String) -> Bool {
    let stems = relationStems(attribute)
    return relationStems(word).contains { $0.count >= 5 && stems.contains($0) }
  }

  private static func relationStems(_ word: String) -> Set<String> {
    var stems: Set<String> = [word]
    for suffix in ["s", "es", "d", "ed", "er", "ers", "ing"] where word.hasSuffix(suffix) && word.count > suffix.count {
      stems.insert(String(word.dropLast(suffix.count)))
    }
    return stems
  }
}

extension BuiltinPlanner {
  /// The plan of a question that names its items by a relation (`PlanBuilder.relation`):
  /// the rest of the question planned as any question, every search of it also testing the
  /// attribute's value. Nil when the question has no relation or no visible item holds the
  /// value in any of the forms below.
  func relationPlan(_ question: String) throws -> PlannedQuery? {
    guard let relation = PlanBuilder.relation(in: question, vocabulary: vocabulary) else { return nil }
    // The whole value first (a dependency named exactly), then its start ("libssl" for
    // libssl3 and libssl-dev), then anywhere in it (a maintainer's name before the address).
    let holds = { (value: Expression) in PlanSyntax.compare(relation.attribute, .equal, value) }
    var forms: [(test: Expression, how: String)] = [
      (holds(PlanSyntax.quoted(relation.value, modifiers: "cd")), "is \u{201C}\(relation.value)\u{201D}"),
      (holds(PlanSyntax.prefixPattern(relation.value, modifiers: "cd")), "starts with \u{201C}\(relation.value)\u{201D}"),
      (holds(PlanSyntax.containsPattern(relation.value, modifiers: "cd")), "contains \u{201C}\(relation.value)\u{201D}"),
    ]
    // Last, a group named in other words ("the Debian GNOME team" for "Debian GNOME
    // Maintainers"): each of its own words anywhere in the value, the word for a group left out.
    let words = relation.value.split(whereSeparator: \.isWhitespace).map(String.init)
    let named = words.filter { !PlanBuilder.groupNouns.contains(TextFolding.fold($0)) }
    if named.count < words.count, !named.isEmpty, named.allSatisfy({ $0.count >= 3 }) {
      let tests = named.map { holds(PlanSyntax.containsPattern($0, modifiers: "cd")) }
      forms.append((PlanSyntax.and(tests), "contains " + named.map { "\u{201C}\($0)\u{201D}" }.joined(separator: " and ")))
    }
    var found: (test: Expression, how: String)?
    for (test, how) in forms {
      if try findsAny(PlanSyntax.query(PlanSyntax.search(test, [PlanSyntax.stage("limit", words: "1")]))) {
        found = (test, how)
        break
      }
    }
    guard let found else { return nil }
    let rest = PlanBuilder(question: relation.rest, vocabulary: vocabulary, clock: clock, resultLimit: resultLimit)
    var plan: PlannedQuery
    if !rest.contentWords.isEmpty {
      plan = try readingPlan(relation.rest)
    } else {
      let every = Expression(.anyAttribute(deep: false), PlanSyntax.nowhere)
      let items = PlanSyntax.query(PlanSyntax.search(every, [PlanSyntax.stage("limit", words: "\(resultLimit)")]))
      plan = PlannedQuery(question: question, query: items, notes: [], intent: .list)
    }
    plan.query = plan.query.restricted(to: found.test)
    plan.evidence = plan.evidence?.restricted(to: found.test)
    plan.rankedSearch = plan.rankedSearch?.restricted(to: found.test)
    plan.question = question
    plan.isStructured = true
    guard (try? check(plan)) != nil else { return nil }
    plan.notes.insert(
      "\u{201C}\(relation.verbPhrase) \(relation.value)\u{201D} -> \(relation.attribute) \(found.how)", at: 0)
    return plan
  }
}

extension QuerySyntax {
  /// The query with every search also testing `test` (`search *` becomes `search test`).
  func restricted(to test: Expression) -> QuerySyntax {
    var query = self
    for index in query.statements.indices {
      query.statements[index].pipeline = query.statements[index].pipeline.restricted(to: test)
    }
    return query
  }
}

extension PipelineSyntax {
  /// The pipeline with its search also testing `test`; other sources unchanged.
  func restricted(to test: Expression) -> PipelineSyntax {
    guard case .search(let predicate, let keyword) = source else { return self }
    var pipeline = self
    if case .anyAttribute(deep: false) = predicate.kind {
      pipeline.source = .search(test, keywordSpan: keyword)
    } else {
      pipeline.source = .search(PlanSyntax.and([predicate, test]), keywordSpan: keyword)
    }
    return pipeline
  }
}
