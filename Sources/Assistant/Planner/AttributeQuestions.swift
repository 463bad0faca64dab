import Foundation
import QueryEngine

/// Questions that ask for an attribute of the items they name: "what is the homepage of
/// tmux", "version of git", "what is the distance of the Mist Trail". The rest of the
/// question ("tmux") is planned as any question is (a known item ranks first), and the plan
/// shows the first items' titles and that attribute.
extension PlanBuilder {
  /// The attribute a question asks for and the words that name the items, as written; nil
  /// when the question does not start that way ("what is the average distance of trails" is
  /// a statistic, "which state has the most trails" ranks groups).
  static func attributeQuestion(
    _ question: String, vocabulary: IndexVocabulary, clock: QueryClock
  ) -> (attribute: String, rest: String, asked: String, subject: String?)? {
    let builder = PlanBuilder(question: question, vocabulary: vocabulary, clock: clock, resultLimit: 1)
    var index = 0
    if ["what", "which", "whats", "who", "whos"].contains(builder.word(index) ?? "") { index += 1 }
    if ["is", "are", "was", "s"].contains(builder.word(index) ?? "") { index += 1 }
    if builder.word(index) == "the" { index += 1 }
    // "the latest version of openssl" asks for the version, not for the newest item.
    if let word = builder.word(index), currentWords.contains(word), let next = builder.attributeName(at: index + 1),
      let attribute = next.attribute, vocabulary.type(of: attribute)?.scalar != .date
    {
      index += 1
    }
    guard let named = builder.attributeName(at: index), let attribute = named.attribute, named.period == nil,
      !unaskedAttributes.contains(attribute), vocabulary.has(attribute)
    else { return nil }
    let of = index + named.length
    guard ["of", "for"].contains(builder.word(of) ?? ""), ((of + 1)..<builder.count).contains(where: { !builder.isStopWord($0) }) else { return nil }
    let tokens = builder.tokens
    let rest = tokens[(of + 1)...].map(\.text).joined(separator: " ")
    let asked = tokens[..<(of + 1)].map(\.text).joined(separator: " ")
    return (attribute, rest, asked, builder.subject(after: of))
  }

  /// Attributes no question asks for or about by name: the text, and the type and domain that
  /// collection nouns name.
  static let unaskedAttributes: Set<String> = ["textContent", "contentType", "domainIdentifier"]

  /// Words before an attribute's name that ask for its value as it is now: "the latest
  /// version of", "the current maintainer of".
  static let currentWords: Set<String> = ["latest", "newest", "current", "present"]

  /// The attribute a question asks for by a verb whose stem is the attribute's, and the words
  /// that name the items: "what does nginx depend on" (depends), "who maintains nginx"
  /// (maintainer: a verb asks "who" for an agent's attribute, one named as the one who does
  /// it). Nil for other questions; "which packages depend on libssl3" names items by a value
  /// (`relation(in:vocabulary:)`).
  static func verbAttributeQuestion(
    _ question: String, vocabulary: IndexVocabulary, clock: QueryClock
  ) -> (attribute: String, rest: String, asked: String, subject: String?)? {
    let builder = PlanBuilder(question: question, vocabulary: vocabulary, clock: clock, resultLimit: 1)
    let tokens = builder.tokens
    guard tokens.count >= 3 else { return nil }
    let first = builder.word(0) ?? ""
    // "who maintains nginx": the verb right after "who", an agent's attribute, the rest names the items.
    if first == "who", let agent = agentVerb(builder.word(1) ?? "", vocabulary: vocabulary) {
      let start = objectPronouns.contains(builder.word(2) ?? "") ? 3 : 2
      guard (start..<builder.count).contains(where: { !builder.isStopWord($0) }), groupRanking(after: start, in: builder) == nil else { return nil }
      let rest = tokens[start...].map(\.text).joined(separator: " ")
      return (agent.attribute, rest, tokens[..<start].map(\.text).joined(separator: " "), nil)
    }
    // "what does nginx depend on": the verb last (a preposition may follow), what comes
    // between the auxiliary and it names the items.
    guard ["what", "which"].contains(first), ["does", "do", "did"].contains(builder.word(1) ?? "") else { return nil }
    var verb = builder.count - 1
    if relationPrepositions.contains(builder.word(verb) ?? "") { verb -= 1 }
    guard verb > 2, let attribute = relationAttribute(of: builder.word(verb) ?? "", vocabulary: vocabulary), !isAgentNoun(attribute),
      (2..<verb).contains(where: { !builder.isStopWord($0) })
    else { return nil }
    let rest = tokens[2..<verb].map(\.text).joined(separator: " ")
    let asked = (tokens[..<2] + tokens[verb...]).map(\.text).joined(separator: " ")
    return (attribute, rest, asked, nil)
  }

  /// "Who maintains the most packages" asks which maintainer has the most: the question as
  /// the ranked groups of the attribute the verb names read it ("which maintainer has the
  /// most packages"); nil for other questions.
  static func rankedGroupsQuestion(
    _ question: String, vocabulary: IndexVocabulary, clock: QueryClock
  ) -> (question: String, attribute: String)? {
    let builder = PlanBuilder(question: question, vocabulary: vocabulary, clock: clock, resultLimit: 1)
    guard builder.word(0) == "who", let agent = agentVerb(builder.word(1) ?? "", vocabulary: vocabulary),
      let ranking = groupRanking(after: objectPronouns.contains(builder.word(2) ?? "") ? 3 : 2, in: builder)
    else { return nil }
    let rest = builder.tokens[ranking...].map(\.text).joined(separator: " ")
    return ("which \(agent.noun) has the \(rest)", agent.attribute)
  }

  /// Verbs that ask "who" for a person attribute (Apple's `authorNames`, `recipientNames`),
  /// with a noun that names it.
  static let personVerbs: [String: (noun: String, attribute: String)] = {
    var verbs: [String: (noun: String, attribute: String)] = [:]
    for verb in ["sent", "send", "sends", "wrote", "write", "writes", "authored", "emailed", "messaged"] { verbs[verb] = ("sender", "authorNames") }
    for verb in ["received", "receive", "receives", "got"] { verbs[verb] = ("recipient", "recipientNames") }
    return verbs
  }()

  /// Words after a verb that stand for the asker ("who sent me ..."): not part of the items' name.
  static let objectPronouns: Set<String> = ["me", "us"]

  /// The attribute a verb after "who" asks for, with a noun for it: a person verb ("sent" ->
  /// authorNames) or a verb whose stem is an agent's attribute ("maintains" -> maintainer).
  static func agentVerb(_ word: String, vocabulary: IndexVocabulary) -> (noun: String, attribute: String)? {
    if let known = personVerbs[word], vocabulary.has(known.attribute) { return known }
    guard let attribute = relationAttribute(of: word, vocabulary: vocabulary), isAgentNoun(attribute) else { return nil }
    return (nameWords(attribute).joined(separator: " "), attribute)
  }

  /// "How long is the Mist Trail", "how high is Angels Landing": a measure asked of the items
  /// the rest names, the attribute it is measured by (a distance, a height) and the words as
  /// written; nil for other questions.
  static func measureQuestion(
    _ question: String, vocabulary: IndexVocabulary, clock: QueryClock
  ) -> (attribute: String, rest: String, asked: String, subject: String?)? {
    let builder = PlanBuilder(question: question, vocabulary: vocabulary, clock: clock, resultLimit: 1)
    guard builder.word(0) == "how", let measure = builder.word(1), ["is", "are", "was", "were"].contains(builder.word(2) ?? ""),
      (3..<builder.count).contains(where: { !builder.isStopWord($0) })
    else { return nil }
    let attribute: String?
    switch measure {
    // Not "how big": a note's file size is rarely what "how big is the budget" asks.
    case "long", "far": attribute = builder.numericAttribute(["distance", "length"])
    case "high", "tall": attribute = builder.numericAttribute(["elevationGain", "altitude", "heightInches", "height"])
    default: attribute = nil
    }
    guard let attribute else { return nil }
    let tokens = builder.tokens
    return (attribute, tokens[3...].map(\.text).joined(separator: " "), tokens[..<3].map(\.text).joined(separator: " "), builder.subject(after: 2))
  }

  /// The index of "most", "fewest" or "least" when the words from `start` begin with it
  /// (after "the"): a question that ranks groups.
  private static func groupRanking(after start: Int, in builder: PlanBuilder) -> Int? {
    var index = start
    if builder.word(index) == "the" { index += 1 }
    return ["most", "fewest", "least"].contains(builder.word(index) ?? "") && index + 1 < builder.count ? index : nil
  }

  /// Words that end the name of the thing asked about and start what is said of it
  /// ("python3 is available", "git do you have").
  static let predicateWords: Set<String> = ["is", "are", "was", "were", "do", "does", "did", "has", "have", "can", "will"]

  /// The words between `of` and a verb that says something of them ("which version of
  /// python3 is available": "python3"), when there are such words and no "that" or "which"
  /// before the verb makes it part of the name ("the trail that is in Yosemite").
  func subject(after of: Int) -> String? {
    var end = of + 1
    while end < count, let word = word(end), !Self.predicateWords.contains(word) {
      if ["that", "which", "who", "where"].contains(word) { return nil }
      end += 1
    }
    guard end < count, ((of + 1)..<end).contains(where: { !isStopWord($0) }) else { return nil }
    return tokens[(of + 1)..<end].map(\.text).joined(separator: " ")
  }
}

extension BuiltinPlanner {
  /// The plan of an attribute question (`PlanBuilder.attributeQuestion`): the items the rest
  /// of the question names, those of their first three that have the attribute as a table
  /// of title and the attribute; the items themselves are the evidence. Nil when the rest
  /// plans to no list of items (a count, a statistic).
  func attributePlan(_ question: String) throws -> PlannedQuery? {
    let named = PlanBuilder.attributeQuestion(question, vocabulary: vocabulary, clock: clock)
      ?? PlanBuilder.verbAttributeQuestion(question, vocabulary: vocabulary, clock: clock)
    let measured = named == nil ? PlanBuilder.measureQuestion(question, vocabulary: vocabulary, clock: clock) : nil
    guard let asked = named ?? measured else { return nil }
    var plan = try readingPlan(asked.rest)
    // A measure names no attribute: it is one only when the first item the rest names has it
    // ("how long is the flight to Zurich" asks no trail's distance).
    if measured != nil {
      let present = PlanSyntax.compare(asked.attribute, .equal, PlanSyntax.anyValue)
      guard try findsAny(plan.itemsQuery.appending(PlanSyntax.stage("limit", words: "1"), PlanSyntax.stage("where", [[present]]))) else { return nil }
    }
    switch plan.intent {
    case .search, .list, .superlative: break
    default: return nil
    }
    // "Which version of python3 is available": an item titled as the words before the verb
    // ranks first, as one titled as the whole rest would.
    if let subject = asked.subject, plan.rankedSearch != nil {
      plan = try boostingKnownItem(plan, named: subject)
    }
    let items = plan.query
    let columns = asked.attribute == "title" ? ["title"] : ["title", asked.attribute]
    let table = PlanSyntax.stage("table", columns.map { [PlanSyntax.name($0)] })
    // "The longest trail in Utah" is one item already: no second limit.
    var shown = items
    if case .superlative(_, _, let limit) = plan.intent, limit <= 3 {} else {
      shown = items.appending(PlanSyntax.stage("limit", words: "3"))
    }
    // A table of blanks answers nothing ("who wrote grep" over documentation files, which have
    // no authors): one of the items shown must have the attribute.
    let present = PlanSyntax.compare(asked.attribute, .equal, PlanSyntax.anyValue)
    shown = shown.appending(PlanSyntax.stage("where", [[present]]))
    guard try findsAny(shown) else { return nil }
    // Of the items shown, those with the attribute: "how far is the Mist Trail" is its
    // distance, not two notes that mention a trail beside it with a blank.
    plan.query = shown.appending(table)
    plan.evidence = items
    plan.question = question
    plan.rankedSearch = nil
    // A plan the language rejects is no plan: the question is read as any other.
    guard (try? check(plan)) != nil else { return nil }
    plan.notes.insert("\u{201C}\(asked.asked)\u{201D} -> table title, \(asked.attribute) of the items \u{201C}\(asked.rest)\u{201D} names", at: 0)
    return plan
  }
}
