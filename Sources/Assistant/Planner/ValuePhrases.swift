import Foundation
import QueryEngine
import SearchIndex

/// Values the index knows ("in California", "by Sam Ortiz", "tagged waterfall", "hard
/// trails", "the Orion launch project") and content types ("trails", "hikes", "emails",
/// "notes").
///
/// A known value becomes a filter only when the question says which role it plays: a person
/// after "from", "by", "to" or "with" (a `people` stage); a place after "in", "at" or "near";
/// a tag after "tagged"; a project next to "project"; any value of an attribute the named
/// content type carries ("hard trails", "Oregon hikes"). Otherwise its words stay in the
/// text search, where they still rank the items that mention them ("When does Rahul Mehta
/// start?" finds the note about Rahul, not only mail addressed to him).
extension PlanBuilder {
  /// How a value's attribute is used.
  enum ValueRole {
    case person, place, tag, project, category
  }

  /// A known value found in the question, with every attribute that holds it.
  struct ValueMatch {
    var span: Range<Int>
    var values: [IndexVocabulary.KnownValue]
  }

  /// Verbs after a name that make it the author.
  static let authorVerbs: Set<String> = ["sent", "send", "sends", "wrote", "write", "writes", "emailed", "email", "said", "say", "says", "asked", "ask"]

  static func role(of attribute: String) -> ValueRole {
    switch attribute {
    case "keywords": return .tag
    case "projects": return .project
    case "stateOrProvince", "country", "city", "namedLocation", "subLocality", "region": return .place
    default:
      if attribute.hasSuffix("Names") || ["participants", "editors", "contributors", "creator", "organizations"].contains(attribute) {
        return .person
      }
      if attribute.lowercased().contains("location") || attribute.lowercased().contains("place") { return .place }
      return .category
    }
  }

  /// Words that name a content type by another name.
  static let typeSynonyms: [String: [String]] = [
    "hike": ["trail"], "hikes": ["trail"], "walk": ["trail"], "walks": ["trail"], "route": ["trail"], "routes": ["trail"],
    "message": ["email", "message"], "messages": ["email", "message"], "mail": ["email"], "mails": ["email"],
    "e-mail": ["email"], "memo": ["note"], "memos": ["note"], "doc": ["document"], "docs": ["document"],
    "documents": ["document"], "paper": ["document"], "papers": ["document"], "articles": ["document", "article"],
  ]

  // MARK: Values

  /// Finds known values (longest first, left to right) and takes their words; `decideValues`
  /// later turns each into a filter or gives its words back to the text search.
  mutating func recognizeValues() {
    var index = 0
    while index < count {
      guard isFree(index), let first = word(index), let candidates = vocabulary.valuesByFirstWord[first] else {
        index += 1
        continue
      }
      var best: [IndexVocabulary.KnownValue] = []
      var length = 0
      for candidate in candidates where matches(candidate.words, at: index) {
        // Single short or stop words ("IT", "home" as a tag) are too weak to recognise.
        if candidate.words.allSatisfy({ StopWords.contains($0) }) { continue }
        if candidate.words.count == 1, candidate.words[0].count < 3 { continue }
        if candidate.words.count > length {
          best = [candidate]
          length = candidate.words.count
        } else if candidate.words.count == length {
          best.append(candidate)
        }
      }
      guard length > 0 else {
        if let person = personByOneName(at: index) {
          valueMatches.append(ValueMatch(span: index..<index + 1, values: person))
          claim(index..<index + 1)
        }
        index += 1
        continue
      }
      valueMatches.append(ValueMatch(span: index..<index + length, values: best))
      claim(index..<index + length)
      index += length
    }
  }

  /// A person named by one capitalised word ("Lena") that starts exactly one person's name
  /// the index knows ("Lena Novak"), with every people attribute holding that name; nil
  /// when no name or several different ones start with it.
  func personByOneName(at index: Int) -> [IndexVocabulary.KnownValue]? {
    guard isFree(index), let first = word(index), first.count >= 3, !StopWords.contains(first),
      tokens[index].text.first?.isUppercase == true, let candidates = vocabulary.valuesByFirstWord[first]
    else { return nil }
    let people = candidates.filter { Self.role(of: $0.attribute) == .person && $0.words.count >= 2 }
    guard let name = people.first?.value, people.allSatisfy({ TextFolding.fold($0.value) == TextFolding.fold(name) }) else { return nil }
    return people
  }

  /// The free word before `index`, skipping articles and possessives.
  private func cueBefore(_ index: Int) -> (word: String, index: Int)? {
    var at = index - 1
    while at >= 0, ["the", "my", "our", "a", "an"].contains(word(at) ?? "") { at -= 1 }
    guard at >= 0, isFree(at), let word = word(at) else { return nil }
    return (word, at)
  }

  /// Turns each value match into a filter, a `people` stage, or text.
  mutating func decideValues() {
    let scope = Set(contentTypes)
    let shaped = isShaped
    for match in valueMatches {
      let cue = cueBefore(match.span.lowerBound)
      let after = isFree(match.span.upperBound) ? word(match.span.upperBound) : nil
      func carried(_ value: IndexVocabulary.KnownValue) -> Bool { !scope.isEmpty && !value.contentTypes.isDisjoint(with: scope) }
      var decided: (value: IndexVocabulary.KnownValue, span: Range<Int>, people: String?)?
      // Most specific role first: people with a cue, places, tags, projects, categories.
      let ordered = match.values.sorted { a, b in
        let ca = carried(a), cb = carried(b)
        return ca != cb ? ca : a.count > b.count
      }
      for value in ordered {
        let role = Self.role(of: value.attribute)
        switch role {
        case .person:
          // "did Sam Ortiz send", "what Lena Novak wrote": the author.
          if let after, Self.authorVerbs.contains(after), !value.attribute.hasPrefix("recipient") {
            decided = (value, match.span.lowerBound..<match.span.upperBound + 1, "from")
            break
          }
          guard let cue else { break }
          let isRecipient = value.attribute.hasPrefix("recipient")
          // "from Sam Ortiz and Lena Novak": the second takes the first one's role.
          if ["and", "or"].contains(cue.word), let previous = people.last, cue.index > 0, claimed[cue.index - 1] {
            decided = (value, cue.index..<match.span.upperBound, previous.role)
            break
          }
          let roleWord: String? = switch cue.word {
          case "from", "by": isRecipient ? nil : "from"
          case "to", "cc": isRecipient ? "to" : nil
          case "with", "and", "involving", "about": "any"
          default: nil
          }
          if let roleWord {
            decided = (value, cue.index..<match.span.upperBound, roleWord)
          }
        case .place:
          if let cue, ["in", "at", "near", "around", "inside", "within", "across"].contains(cue.word),
            carried(value) || (scope.isEmpty && !hasOtherContentWords(than: match.span)) {
            decided = (value, cue.index..<match.span.upperBound, nil)
          } else if carried(value) {
            decided = (value, match.span, nil)
          }
        case .tag:
          if let cue, ["tagged", "tag", "tags", "labeled", "labelled", "keyword", "keywords"].contains(cue.word) {
            decided = (value, cue.index..<match.span.upperBound, nil)
          } else if let after, ["tag", "tags", "keyword"].contains(after) {
            decided = (value, match.span.lowerBound..<match.span.upperBound + 1, nil)
          }
        case .project:
          if let cue, ["project", "projects"].contains(cue.word) {
            decided = (value, cue.index..<match.span.upperBound, nil)
          } else if let after, ["project", "projects"].contains(after) {
            decided = (value, match.span.lowerBound..<match.span.upperBound + 1, nil)
          }
        case .category:
          let names = Self.nameWords(value.attribute)
          if carried(value) {
            decided = (value, match.span, nil)
          } else if let cue, names.contains(cue.word) {
            decided = (value, cue.index..<match.span.upperBound, nil)
          } else if let after, names.contains(after) {
            decided = (value, match.span.lowerBound..<match.span.upperBound + 1, nil)
          }
        }
        if decided != nil { break }
      }
      // In a count, statistic, grouping or superlative the words would be required text:
      // a value the index knows is a predicate instead ("how many waterfall trails").
      if decided == nil, shaped, let value = ordered.first {
        if Self.role(of: value.attribute) == .person {
          decided = (value, match.span, "any")
        } else {
          decided = (value, match.span, nil)
        }
      }
      guard let decided else {
        // Its words go back to the text search.
        for index in match.span { claimed[index] = false }
        // A one-word value is a label the question names; a longer value's words are not
        // (the "trail" of "trail club" is in every trail).
        if match.span.count == 1, let index = match.span.first { labelWords.insert(tokens[index].word) }
        let attributes = match.values.map(\.attribute)
        note(match.span.lowerBound, "\(quote(match.span)) is a known \(attributes.joined(separator: ", ")) value; searched as text")
        continue
      }
      claim(decided.span)
      if let role = decided.people {
        people.append(PersonFilter(name: decided.value.value, role: role))
        note(decided.span.lowerBound, "\(quote(decided.span)) -> people \(DSLText.quoted(decided.value.value)) role \(role)")
      } else {
        valueFilters.append(ValueFilter(attribute: decided.value.attribute, value: decided.value.value, position: decided.span.lowerBound))
        note(decided.span.lowerBound, "\(quote(decided.span)) -> \(decided.value.attribute) == \(DSLText.quoted(decided.value.value))cd")
      }
    }
  }

  /// True when free content words remain outside `span` (words a text search would use).
  func hasOtherContentWords(than span: Range<Int>) -> Bool {
    (0..<count).contains { index in
      !span.contains(index) && isFree(index) && !isStopWord(index) && !(cueBefore(span.lowerBound)?.index == index)
    }
  }

  // MARK: Content types

  /// The content types a word names: "trails" -> trail, "hikes" -> trail, "emails" -> email.
  func contentTypes(named word: String) -> [String] {
    let known = vocabulary.contentTypes
    var candidates: [String] = []
    if let synonyms = Self.typeSynonyms[word] { candidates += synonyms }
    candidates.append(word)
    if word.hasSuffix("es") { candidates.append(String(word.dropLast(2))) }
    if word.hasSuffix("s") { candidates.append(String(word.dropLast())) }
    var result: [String] = []
    for candidate in candidates {
      for type in known.keys.sorted() where type.lowercased() == candidate && !result.contains(type) { result.append(type) }
    }
    return result
  }

  mutating func recognizeContentTypes() {
    let determiners: Set<String> = ["which", "what", "each", "every", "any", "a", "an", "the", "per", "one", "my", "all", "many"]
    let shaped = isShaped
    for index in 0..<count where isFree(index) {
      guard let name = word(index), !StopWords.contains(name) else { continue }
      let types = contentTypes(named: name)
      guard !types.isEmpty else {
        // "largest files", "files modified in 2025", "files over 2 MB", "files without
        // keywords", "how many records per type": a word for items in general names every item
        // when the question counts, orders, groups, dates, measures or filters them, not a
        // word their text must contain.
        if Self.itemWords.contains(name), shaped || !dates.isEmpty || !attributeFilters.isEmpty, domains(named: name).isEmpty {
          claim(index..<index + 1)
          note(index, "\(quote(index..<index + 1)) -> every item; no filter")
          continue
        }
        recognizeDomain(named: name, at: index, shaped: shaped)
        continue
      }
      let plural = Self.endsLikePlural(name)
      // A singular type word names the type only in "which trail", "the longest trail", ...
      let previous = index > 0 ? tokens[index - 1].word : ""
      guard plural || shaped || determiners.contains(previous) || (index > 0 && claimed[index - 1]) else { continue }
      var span = index..<index + 1
      // A type every item has ("documents" in a corpus) filters nothing.
      if types.reduce(0, { $0 + (vocabulary.contentTypes[$1] ?? 0) }) >= vocabulary.documentCount {
        claim(span)
        note(index, "\(quote(span)) -> every item is a \(types.joined(separator: " or ")); no filter")
        continue
      }
      guard filtersByCollection else {
        claim(span)
        note(index, "\(quote(span)) -> no filter, read over every item")
        continue
      }
      // "notes or emails": both.
      for type in types where !contentTypes.contains(type) { contentTypes.append(type) }
      // A domain component right before it: "work notes", "sent emails".
      if index > 0, isFree(index - 1), let component = word(index - 1),
        let domain = vocabulary.domains.keys.sorted().first(where: {
          $0.split(separator: ".").last.map(String.init)?.lowercased() == component && $0.contains(".")
        }) {
        domains.append(domain)
        span = (index - 1)..<index + 1
      }
      claim(span)
      collectionWords.append(words(of: span))
      let domainText = span.count > 1 ? " && domainIdentifier == \(DSLText.quoted(domains.last!))" : ""
      note(span.lowerBound, "\(quote(span)) -> contentType == \(types.map { DSLText.quoted($0) }.joined(separator: " || "))\(domainText)")
    }
  }

  /// In the text reading (a structured reading found nothing), a plural that names a content
  /// type or a domain says which items were meant, not a word they contain: it is not
  /// searched while other words remain ("emails from Tom about the budget" searches "tom"
  /// and "budget", not "emails").
  mutating func releaseCollectionNouns() {
    let nouns = (0..<count).filter { index in
      guard isFree(index), !isStopWord(index), let word = word(index), Self.isPlural(word) else { return false }
      return !contentTypes(named: word).isEmpty || !domains(named: word).isEmpty
    }
    guard !nouns.isEmpty, contentWords.count > nouns.count else { return }
    for index in nouns {
      claim(index..<index + 1)
      note(index, "\(quote(index..<index + 1)) names the items, not a word to search for")
    }
  }

  // MARK: Domains

  /// The domains a word names, by the last component of their identifier ("notes" names
  /// `notes` and `com.example.notes`; "trail" names `trails`), singular or plural, any case,
  /// diacritics folded. A domain with sub-domains (`notes.work`) takes them along.
  func domains(named word: String) -> [String] {
    var forms: Set<String> = [word]
    if word.hasSuffix("es") { forms.insert(String(word.dropLast(2))) }
    if word.hasSuffix("s") { forms.insert(String(word.dropLast())) }
    forms.insert(word + "s")
    if let synonyms = Self.typeSynonyms[word] { for synonym in synonyms { forms.insert(synonym); forms.insert(synonym + "s") } }
    return vocabulary.domains.keys.sorted().filter { domain in
      guard let last = domain.split(separator: ".").last else { return false }
      return forms.contains(TextFolding.fold(String(last)))
    }
  }

  /// A word naming a domain ("trails", "notes") becomes a filter on it rather than a word the
  /// text must contain: a plural ("recipes"), or a singular after "which", "what", "each",
  /// "every" or "per", or in a count or superlative ("the work schedule" is not the `work`
  /// domain). A domain that every item is in filters nothing. Its sub-domains are included
  /// (`notes` and `notes.work`).
  mutating func recognizeDomain(named name: String, at index: Int, shaped: Bool) {
    guard domains.isEmpty else { return }
    let named = domains(named: name)
    guard !named.isEmpty else { return }
    let plural = Self.endsLikePlural(name)
    let previous = index > 0 ? tokens[index - 1].word : ""
    guard plural || shaped || ["which", "what", "each", "every", "per"].contains(previous) else { return }
    // Nested domains: "notes" also names "notes.work"; keep the outermost.
    let outer = named.filter { domain in !named.contains { domain.hasPrefix($0 + ".") } }
    let items = vocabulary.domains.filter { key, _ in outer.contains { key == $0 || key.hasPrefix($0 + ".") } }.values.reduce(0, +)
    let span = index..<index + 1
    claim(span)
    guard items < vocabulary.documentCount else {
      note(index, "\(quote(span)) -> every item is in \(outer.joined(separator: " or ")); no filter")
      return
    }
    guard filtersByCollection else {
      note(index, "\(quote(span)) -> no filter, read over every item")
      return
    }
    domainPrefixes += outer
    collectionWords.append(words(of: span))
    note(index, "\(quote(span)) -> (" + SyntaxPrinter.text(Self.domainPredicate(outer)) + ")")
  }

  /// `domainIdentifier == "notes" || domainIdentifier == "notes.*"` for each domain.
  static func domainPredicate(_ domains: [String]) -> Expression {
    PlanSyntax.or(domains.flatMap { domain in
      // The sub-domain pattern: the domain taken literally, then a wildcard.
      [PlanSyntax.compare("domainIdentifier", .equal, PlanSyntax.quoted(domain)),
       PlanSyntax.compare("domainIdentifier", .equal, PlanSyntax.prefixPattern(domain + "."))]
    })
  }
}
