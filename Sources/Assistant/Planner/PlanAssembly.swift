import Foundation
import QueryEngine

/// Verbs that name a date attribute, the text-search terms, and the query itself.
extension PlanBuilder {
  /// Verbs that say which date a question is about.
  static let dateVerbs: [(words: Set<String>, attribute: String, needsDate: Bool)] = [
    (["due", "deadline", "deadlines", "overdue"], "dueDate", false),
    (["modified", "changed", "change", "changes", "edited", "edit", "updated", "update", "touched"], "contentModificationDate", false),
    (["created", "wrote", "written", "added", "sent", "received"], "contentCreationDate", true),
    (["start", "starts", "starting", "begin", "begins", "beginning"], "startDate", true),
    (["end", "ends", "ending"], "endDate", true),
  ]
  static let completionWords: Set<String> = ["completed", "complete", "completing", "finished", "finish", "done", "hiked", "climbed", "walked"]

  mutating func recognizeDateAttributeCues() {
    // "completed", "have I done", "did I hike": the completion date, and only completed items.
    if vocabulary.has("completionDate") {
      for index in 0..<count {
        let name = tokens[index].word
        // "did I do", "did I hike" (the hike may already name the content type).
        let didDo = (name == "do" || name == "hike") && (0..<index).contains { tokens[$0].word == "did" }
        // "done" and "did I do" are about completion only when a content type is named:
        // "what did I do on Monday" is not.
        let generic = name == "done" || name == "do"
        guard Self.completionWords.contains(name) || didDo, isFree(index) || name == "hike",
          !generic || !contentTypes.isEmpty
        else { continue }
        completed = true
        dateAttributeCue = ("completionDate", index)
        if isFree(index) {
          claim(index..<index + 1)
          note(index, "\(quote(index..<index + 1)) -> completionDate")
        } else {
          note(index, "\(quote(index..<index + 1)) after \u{201C}did\u{201D} -> completionDate")
        }
        break
      }
    }
    guard dateAttributeCue == nil else { return }
    for (words, attribute, needsDate) in Self.dateVerbs where vocabulary.has(attribute) || attribute == "contentModificationDate" {
      guard let index = (0..<count).first(where: { isFree($0) && words.contains(tokens[$0].word) }) else { continue }
      // "created", "sent" name a date only beside one ("created in May") or a date order
      // ("when was the earliest note created"); else they are words searched.
      if needsDate && dates.isEmpty && !(superlative.map { $0.attribute == nil } ?? false) { continue }
      dateAttributeCue = (attribute, index)
      claim(index..<index + 1)
      note(index, "\(quote(index..<index + 1)) -> \(attribute)")
      return
    }
  }

  // MARK: Text terms

  /// The free content words: not a stop word, not taken by a recogniser, each once.
  var contentWords: [String] {
    var seen = Set<String>()
    var words: [String] = []
    for index in 0..<count where isFree(index) {
      let word = tokens[index].word
      guard !isStopWord(index), word.contains(where: { $0.isLetter || $0.isNumber }), seen.insert(word).inserted else { continue }
      words.append(word)
    }
    return words
  }

  /// The inverse document frequency of a term: rare terms weigh more (BM25's idf).
  static func weight(documentFrequency df: Int, documents n: Int) -> Double {
    log(1 + (Double(n) - Double(df) + 0.5) / (Double(df) + 0.5))
  }

  /// The content words as searched: stemmed when stemming (see `TermForms`).
  var searchTerms: [String] {
    var seen = Set<String>()
    return contentWords.map { TermForms.searchTerm($0, stemming: stemming) }.filter { seen.insert($0).inserted }
  }

  /// Chooses the text terms and their weights: terms the index never saw are dropped (they
  /// cannot match), and so are terms in more than half of the items when rarer ones remain
  /// (they add matches without ranking them). Heaviest first.
  mutating func chooseTextTerms(documentFrequencies: [String: Int]) -> [PlannedQuery.TermWeight] {
    let words = searchTerms
    let n = max(vocabulary.documentCount, 1)
    var weighted = words.map { word in
      PlannedQuery.TermWeight(term: word, weight: Self.weight(documentFrequency: documentFrequencies[word] ?? 0, documents: n))
    }
    let unseen = words.filter { (documentFrequencies[$0] ?? 0) == 0 }
    misspelt = unseen.map(TermForms.word).filter { $0.count >= 3 && $0.allSatisfy(\.isLetter) }
    if !unseen.isEmpty, unseen.count < words.count {
      weighted.removeAll { unseen.contains($0.term) }
      note(count, "not in the index, dropped: \(unseen.map(TermForms.display).joined(separator: ", "))")
    }
    let common = weighted.filter { (documentFrequencies[$0.term] ?? 0) * 2 > n }
    if !common.isEmpty, weighted.count - common.count >= 2 {
      weighted.removeAll { term in common.contains(term) }
      note(count, "in most items, dropped: \(common.map { TermForms.display($0.term) }.joined(separator: ", "))")
    }
    weighted.sort { $0.weight != $1.weight ? $0.weight > $1.weight : $0.term < $1.term }
    textTerms = weighted.map(\.term)
    return weighted
  }

  // MARK: The query

  /// The attribute of the first numeric phrase and its natural order: "4.5 or more" best
  /// first, "under 5 km" smallest first.
  var numericOrder: (attribute: String, descending: Bool)? {
    switch numericFilters.first?.kind {
    case .call(_, _, let arguments)?:
      return arguments.first?.value.identifierName.map { ($0, false) }
    case .comparison(let op, let attribute, _, _)?:
      return attribute.identifierName.map { ($0, op == .greater || op == .greaterEqual || op == .equal) }
    default:
      return nil
    }
  }

  /// Dates on the creation or modification date that lie wholly in the future cannot be
  /// when an item was written or changed: they name an event ("the book club is reading in
  /// December"), so their words go back to the text search.
  mutating func releaseFutureDates() {
    let attribute = dateAttribute
    guard attribute == "contentModificationDate" || attribute == "contentCreationDate" else { return }
    var kept: [DateConstraint] = []
    for constraint in dates {
      guard let lower = constraint.lower?.date, lower > clock.now else {
        kept.append(constraint)
        continue
      }
      for index in constraint.span { claimed[index] = false }
      note(constraint.span.lowerBound, "\(quote(constraint.span)) is in the future: searched as text, not as \(attribute)")
    }
    dates = kept
  }

  /// A verb that names the modification date ("changes", "updated") says which date the
  /// question is about only when a date, a date order or a period uses it. In a plain search
  /// ("which notes mention changes to the budget") it is one of the words searched, not
  /// dropped; in a count or an order it stays out of the words every item must contain.
  mutating func releaseUnusedDateCue() {
    guard let cue = dateAttributeCue, cue.attribute == "contentModificationDate", dates.isEmpty, !counting,
      statistic == nil, grouping == nil, rankedGroups == nil, superlative == nil,
      (0..<count).contains(where: { $0 != cue.position && isFree($0) && !isStopWord($0) })
    else { return }
    claimed[cue.position] = false
    dateAttributeCue = nil
    notes.removeAll { $0.position == cue.position }
  }

  /// The predicate parts (ANDed) without the text search.
  var filterParts: [Expression] {
    var parts: [Expression] = []
    if !contentTypes.isEmpty {
      parts.append(PlanSyntax.or(contentTypes.map { PlanSyntax.compare("contentType", .equal, PlanSyntax.quoted($0)) }))
    }
    for domain in domains { parts.append(PlanSyntax.compare("domainIdentifier", .equal, PlanSyntax.quoted(domain))) }
    if !domainPrefixes.isEmpty { parts.append(Self.domainPredicate(domainPrefixes)) }
    for filter in valueFilters { parts.append(PlanSyntax.compare(filter.attribute, .equal, PlanSyntax.quoted(filter.value, modifiers: "cd"))) }
    parts += attributeFilters
    let attribute = dateAttribute
    for constraint in dates { parts += datePredicates(constraint, attribute: attribute) }
    if completed, dates.isEmpty || attribute != "completionDate" {
      parts.append(PlanSyntax.compare("completionDate", .lessEqual, PlanSyntax.time("now")))
    }
    if dateAttributeCue?.attribute == "dueDate", dates.isEmpty {
      parts.append(PlanSyntax.compare("dueDate", .greaterEqual, PlanSyntax.time("today")))
    }
    for phrase in phrases { parts.append(PlanSyntax.singleQuoted(phrase.words.joined(separator: " "))) }
    return parts
  }

  /// The stages that filter by person. Several people ("from Sam Ortiz and Lena Novak") are
  /// any of them, which one `people` stage cannot say: they become one predicate on the
  /// attributes `people` reads.
  var peopleStages: [StageSyntax] {
    guard people.count > 1 else {
      return people.map { person in
        PlanSyntax.stage("people", [[PlanSyntax.quoted(person.name)] + (person.role == "any" ? [] : [PlanSyntax.name("role"), PlanSyntax.name(person.role)])])
      }
    }
    var tests: [Expression] = []
    for person in people {
      let attributes = person.role == "from" ? ["authorNames"] : person.role == "to" ? ["recipientNames"] : ["authorNames", "recipientNames"]
      for attribute in attributes where vocabulary.has(attribute) {
        tests.append(PlanSyntax.compare(attribute, .equal, PlanSyntax.quoted(person.name, modifiers: "cdw")))
      }
    }
    return tests.isEmpty ? [] : [PlanSyntax.stage("where", [[PlanSyntax.or(tests)]])]
  }

  /// The ranked spelling of a term: every form of a word (`"launches"s`), or a word with
  /// digits as written (`"ccl19"`); with `boost`, twice the boost (`"launches"s^0.82`).
  /// The form as written earns nothing extra: the ranked index scores every form of a word
  /// as one term, as the stemmed BM25 peers do, and asking for the written form beside it
  /// counted its items' matches twice, which cost ranking on every collection measured
  /// (BENCHMARKS.md, issue 21, session 9). A boost is doubled so the question's terms stay
  /// as heavy, next to the words relevance feedback adds, as when each was asked for in two
  /// forms.
  static func rankedText(_ term: String, boost: Double? = nil) -> Expression {
    TermForms.syntax(term, boost: boost.map { DSLText.weightValue(2 * $0) })
  }

  /// The ranked spelling of a weighted term: the question's terms as `rankedText`, with the
  /// weight; an added word in every form only (`"lift"s^0.12`).
  static func rankedText(_ term: RelevanceFeedback.WeightedTerm) -> Expression {
    term.added ? TermForms.syntax(term.term, boost: DSLText.weightValue(term.weight)) : rankedText(term.term, boost: term.weight)
  }

  /// How much more a word of a known value weighs than the question's other words. A value
  /// the collection itself uses as a label (a project, a tag, a place) that the question
  /// names is what the question is about, more surely than the words around it: "Where am I
  /// spending Thanksgiving" is about the items labelled Thanksgiving, not about spending.
  static let labelWeight = 2.0

  /// True when a question term is a word of a known value the question names.
  func isLabel(_ term: String) -> Bool { labelWords.contains(TermForms.word(term)) }

  /// A question term's ranked spelling in the plan: `rankedText`, with a known value's words
  /// at `labelWeight` times the weight of the others.
  func questionText(_ term: String) -> Expression {
    isLabel(term) ? Self.rankedText(term, boost: Self.labelWeight / 2) : Self.rankedText(term)
  }

  /// A weighted term's ranked spelling in the plan: `rankedText`, with a known value's words
  /// at `labelWeight` times their weight.
  func questionText(_ term: RelevanceFeedback.WeightedTerm) -> Expression {
    guard !term.added, isLabel(term.term) else { return Self.rankedText(term) }
    var heavier = term
    heavier.weight *= Self.labelWeight
    return Self.rankedText(heavier)
  }

  /// `search PREDICATE` with the text terms ranked (any term, best first) or required (all).
  func source(ranked: Bool) -> PipelineSyntax {
    var parts = filterParts
    if !textTerms.isEmpty {
      if ranked {
        parts.append(PlanSyntax.or(feedbackTerms.isEmpty ? textTerms.map { questionText($0) } : feedbackTerms.map { questionText($0) }))
      } else {
        // Every word required, each in any of its forms when stemmed.
        let stemmed = textTerms.contains(where: TermForms.isStemmed)
        parts.append(PlanSyntax.quoted(textTerms.map(TermForms.word).joined(separator: " "), modifiers: stemmed ? "s" : ""))
      }
    }
    let predicate = parts.isEmpty ? Expression(.anyAttribute(deep: false), PlanSyntax.nowhere) : PlanSyntax.and(parts)
    return PlanSyntax.search(predicate, peopleStages)
  }

  /// Hybrid retrieval: the ranked text search and a `similar` search of the question under
  /// the same filters, fused by reciprocal rank (`fuse`). Each list keeps `depth` items.
  func hybridQuery(limit: Int) -> QuerySyntax {
    let depth = max(50, limit * 5)
    let words = textTerms.map { $0.hasSuffix("*") ? String($0.dropLast()) : $0 } + phrases.flatMap(\.words)
    let phrase = question.contains(where: { $0.isLetter || $0.isNumber }) ? question : words.joined(separator: " ")
    let similar = SimilarSyntax(
      phrase: DSLText.flattened(phrase), maxDistance: 1, maxDistanceSpan: PlanSyntax.nowhere, maxCount: Double(depth),
      maxCountSpan: PlanSyntax.nowhere, keywords: words.isEmpty ? nil : DSLText.flattened(words.joined(separator: " ")))
    let vectors = PlanSyntax.search(PlanSyntax.and(filterParts + [Expression(.similar(similar), PlanSyntax.nowhere)]), peopleStages)
    return PlanSyntax.query([
      ("text", source(ranked: true).appending(PlanSyntax.stage("top", words: "\(depth)"))),
      ("vectors", vectors),
      (nil, PlanSyntax.merge(["text", "vectors"], [PlanSyntax.stage("fuse", words: "agreement"), PlanSyntax.stage("top", words: "\(limit)")])),
    ])
  }

  /// The fork of one branch per calendar period: `fork (where d == $time.this_month(-1) | count as "2026-10") ...`.
  func periodFork(_ period: String, terminal: StageSyntax) -> StageSyntax {
    let attribute = dateAttribute
    let calendar = clock.calendar
    let (function, unit, defaultCount): (String, Calendar.Component, Int) = switch period {
    case "day": ("today", .day, 7)
    case "week": ("this_week", .weekOfYear, 8)
    case "year": ("this_year", .year, 5)
    default: ("this_month", .month, 12)
    }
    guard let current = calendar.dateInterval(of: unit, for: clock.now) else { return terminal }
    // The periods of a date phrase ("in 2025 by month"), else the last few up to now.
    var offsets = Array((1 - defaultCount)...0)
    if let constraint = dates.first, let lower = constraint.lower?.date {
      let upper = constraint.upper?.date ?? clock.now
      let first = calendar.dateComponents([unit], from: current.start, to: calendar.dateInterval(of: unit, for: lower)?.start ?? lower)
      let last = calendar.dateComponents([unit], from: current.start, to: calendar.dateInterval(of: unit, for: upper.addingTimeInterval(-1))?.start ?? upper)
      if let a = first.value(for: unit), let b = last.value(for: unit), a <= b, b - a < 36 { offsets = Array(a...b) }
    }
    let branches = offsets.map { offset -> [StageSyntax] in
      let start = calendar.date(byAdding: unit, value: offset, to: current.start) ?? current.start
      let parts = calendar.dateComponents([.year, .month, .day], from: start)
      let label = switch period {
      case "year": String(format: "%04d", parts.year ?? 0)
      case "month": String(format: "%04d-%02d", parts.year ?? 0, parts.month ?? 0)
      case "week": String(format: "week of %04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
      default: String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
      }
      var labelled = terminal
      labelled.label = label
      labelled.labelSpan = PlanSyntax.nowhere
      return [PlanSyntax.stage("where", [[PlanSyntax.compare(attribute, .equal, PlanSyntax.time(function, offset: offset))]]), labelled]
    }
    return PlanSyntax.fork(branches)
  }

  /// The query and its intent.
  mutating func assemble(documentFrequencies: [String: Int], feedbackTerms: [RelevanceFeedback.WeightedTerm] = []) -> PlannedQuery {
    let weights = chooseTextTerms(documentFrequencies: documentFrequencies)
    self.feedbackTerms = feedbackTerms
    let attribute = dateAttribute
    var stages: [StageSyntax] = []
    var intent: PlannedQuery.Intent
    var evidence: QuerySyntax?
    var ranked = false
    if let rankedGroups {
      let direction = PlanSyntax.name(rankedGroups.descending ? "desc" : "asc")
      if let measure = rankedGroups.measure {
        let call = PlanSyntax.call(rankedGroups.function, [PlanSyntax.name(measure)])
        stages.append(PlanSyntax.stage("stats", [[call, PlanSyntax.name("by"), PlanSyntax.name(rankedGroups.attribute)]]))
        stages.append(PlanSyntax.stage("sort", [[call, direction]]))
        intent = .statistic(function: rankedGroups.function, attribute: measure, by: rankedGroups.attribute)
      } else {
        stages.append(PlanSyntax.stage("group", words: "by", rankedGroups.attribute))
        stages.append(PlanSyntax.stage("count"))
        stages.append(PlanSyntax.stage("sort", [[PlanSyntax.name("count"), direction]]))
        intent = .groupCount(attribute: rankedGroups.attribute, period: nil)
      }
      stages.append(PlanSyntax.stage("limit", words: "\(rankedGroups.limit)"))
      evidence = PlanSyntax.query(source(ranked: false))
    } else if let statistic {
      let call = PlanSyntax.call(statistic.function, [PlanSyntax.name(statistic.attribute)])
      if let period = grouping?.period {
        stages.append(periodFork(period, terminal: PlanSyntax.stage("stats", [[call]])))
      } else {
        stages.append(PlanSyntax.stage("stats", [[call] + (grouping?.attribute.map { [PlanSyntax.name("by"), PlanSyntax.name($0)] } ?? [])]))
      }
      intent = .statistic(function: statistic.function, attribute: statistic.attribute, by: grouping?.attribute ?? grouping?.period)
      evidence = PlanSyntax.query(source(ranked: false))
    } else if counting || grouping != nil {
      if let period = grouping?.period {
        stages.append(periodFork(period, terminal: PlanSyntax.stage("count")))
        intent = .groupCount(attribute: dateAttribute, period: period)
      } else if let attribute = grouping?.attribute {
        stages.append(PlanSyntax.stage("group", words: "by", attribute))
        stages.append(PlanSyntax.stage("count"))
        intent = .groupCount(attribute: attribute, period: nil)
      } else {
        stages.append(PlanSyntax.stage("count"))
        intent = .count
      }
      evidence = PlanSyntax.query(source(ranked: false))
    } else if let superlative {
      let attribute = superlative.attribute ?? dateAttribute
      let limit = superlative.limit ?? 1
      stages.append(PlanSyntax.stage("sort", words: attribute, superlative.descending ? "desc" : "asc"))
      stages.append(PlanSyntax.stage("limit", words: "\(limit)"))
      intent = .superlative(attribute: attribute, descending: superlative.descending, limit: limit)
    } else if !textTerms.isEmpty || !phrases.isEmpty {
      ranked = true
      stages.append(PlanSyntax.stage("top", words: "\(resultLimit)"))
      intent = .search
    } else {
      // Newest first, or by the measure a numeric phrase filtered on ("rated 4.5 or more").
      if dates.isEmpty, let numeric = numericOrder {
        stages.append(PlanSyntax.stage("sort", words: numeric.attribute, numeric.descending ? "desc" : "asc"))
      } else {
        stages.append(PlanSyntax.stage("sort", words: attribute, attribute == "dueDate" ? "asc" : "desc"))
      }
      intent = .list
      if filterParts.isEmpty && people.isEmpty {
        stages.append(PlanSyntax.stage("limit", words: "\(resultLimit)"))
        note(count, "nothing to search for: the most recent items")
      }
    }
    if !weights.isEmpty {
      let listed = weights.map { "\(TermForms.display($0.term)) \(String(format: "%.2f", $0.weight))" }.joined(separator: ", ")
      note(count, (ranked ? "ranked text search, any of (rarest first): " : "text search, all of: ") + listed)
    }
    let dropped = (0..<count).filter { isFree($0) && isStopWord($0) }.map { tokens[$0].word }
    if !dropped.isEmpty {
      var seen = Set<String>()
      note(count + 1, "stop words dropped: " + dropped.filter { seen.insert($0).inserted }.joined(separator: ", "))
    }
    if hybrid, case .search = intent { note(count + 2, "hybrid retrieval: the ranked text search fused with the question's embedding neighbours") }
    var notes = self.notes
    for constraint in dates { notes.append((constraint.span.lowerBound, dateNote(constraint, attribute: attribute))) }
    for phrase in phrases { notes.append((-1, "\u{201C}\(phrase.text)\u{201D} -> phrase \(DSLText.singleQuoted(phrase.words.joined(separator: " ")))")) }
    let ordered = notes.enumerated().sorted { a, b in
      a.element.position != b.element.position ? a.element.position < b.element.position : a.offset < b.offset
    }.map(\.element.text)
    var query = PlanSyntax.query(source(ranked: ranked).appending(stages))
    if hybrid, case .search = intent { query = hybridQuery(limit: resultLimit) }
    var plan = PlannedQuery(question: question, query: query, evidence: evidence, notes: ordered, intent: intent)
    plan.termWeights = weights
    plan.misspelt = misspelt
    let n = max(vocabulary.documentCount, 1)
    plan.evidenceTerms = searchTerms.map { term in
      PlannedQuery.TermWeight(term: term, weight: Self.weight(documentFrequency: documentFrequencies[term] ?? 0, documents: n))
    }
    plan.isStructured = !filterParts.isEmpty || !people.isEmpty || intent != .search
    plan.collectionWords = collectionWords
    plan.asksForAbsence = !absenceFilters.isEmpty
    plan.rankedGroupAttribute = rankedGroups?.attribute
    if case .search = intent, !hybrid { plan.rankedSearch = source(ranked: true) }
    return plan
  }
}
