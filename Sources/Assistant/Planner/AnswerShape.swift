import Foundation

/// The shape of the answer: counting ("how many", "number of"), statistics ("average
/// distance", "total elevation gain"), grouping ("per state", "by month", "for each
/// project") and superlatives ("highest rated", "longest", "3 shortest", "most recent").
extension PlanBuilder {
  /// Words that name an attribute, for grouping and statistics (the first candidate in the
  /// index wins). Attribute names themselves also work ("elevation gain", "difficulty").
  static let attributeWords: [String: [String]] = {
    var words: [String: [String]] = [:]
    func add(_ names: [String], _ attributes: [String]) { for name in names { words[name] = attributes } }
    add(["state", "states", "province", "provinces", "region", "regions"], ["stateOrProvince"])
    add(["country", "countries"], ["country"])
    add(["city", "cities", "town", "towns"], ["city"])
    add(["location", "locations", "place", "places", "park", "parks", "area", "areas"], ["namedLocation", "city"])
    add(["author", "authors", "sender", "senders", "writer", "writers", "person", "people"], ["authorNames"])
    add(["recipient", "recipients"], ["recipientNames"])
    add(["project", "projects"], ["projects"])
    add(["tag", "tags", "keyword", "keywords", "topic", "topics", "label", "labels"], ["keywords"])
    add(["type", "types", "kind", "kinds"], ["contentType"])
    add(["domain", "domains", "folder", "folders", "mailbox", "mailboxes", "source", "sources", "app", "apps"], ["domainIdentifier"])
    add(["difficulty", "difficulties", "level", "levels"], ["difficulty"])
    add(["rating", "ratings", "stars", "score"], ["rating", "starRating"])
    add(["distance", "distances", "length", "km", "kilometers", "kilometres", "miles"], ["distance", "length"])
    add(["elevation", "climb", "climbing", "ascent"], ["elevationGain", "altitude"])
    add(["duration", "time"], ["duration"])
    add(["priority", "priorities"], ["priority"])
    return words
  }()

  static let periodWords: [String: String] = [
    "day": "day", "days": "day", "daily": "day", "week": "week", "weeks": "week", "weekly": "week",
    "month": "month", "months": "month", "monthly": "month", "year": "year", "years": "year", "yearly": "year",
    "annually": "year",
  ]

  static let statisticWords: [String: String] = [
    "average": "avg", "avg": "avg", "mean": "avg", "median": "median", "total": "sum", "sum": "sum", "combined": "sum",
    "maximum": "max", "max": "max", "minimum": "min", "min": "min", "stddev": "stddev",
  ]

  /// Superlative phrases: the attributes they order by (nil: the date attribute) and the
  /// direction.
  static let superlatives: [([String], [String]?, Bool)] = [
    (["most", "highly", "rated"], ["rating", "starRating"], true), (["highest", "rated"], ["rating", "starRating"], true),
    (["best", "rated"], ["rating", "starRating"], true), (["top", "rated"], ["rating", "starRating"], true),
    (["lowest", "rated"], ["rating", "starRating"], false), (["worst", "rated"], ["rating", "starRating"], false),
    (["most", "recently"], nil, true), (["most", "recent"], nil, true), (["least", "recent"], nil, false),
    (["longest"], ["distance", "length", "duration"], true), (["farthest"], ["distance"], true),
    (["furthest"], ["distance"], true), (["shortest"], ["distance", "length", "duration"], false),
    (["steepest"], ["elevationGain"], true), (["hilliest"], ["elevationGain"], true), (["flattest"], ["elevationGain"], false),
    (["newest"], nil, true), (["latest"], nil, true), (["oldest"], nil, false), (["earliest"], nil, false),
    (["best"], ["rating", "starRating"], true), (["worst"], ["rating", "starRating"], false),
    (["favorite"], ["rating", "starRating"], true), (["favourite"], ["rating", "starRating"], true),
  ]
  /// Superlatives of size alone ("largest packages"), and whether the largest come first.
  static let sizeWords: [String: Bool] = ["largest": true, "biggest": true, "smallest": false]

  /// "largest packages", "the 5 biggest files": their size, and whether the largest come
  /// first; nil before a content type, whose items may have no size ("largest trails").
  func sizeSuperlative(at index: Int) -> (attribute: String, descending: Bool)? {
    guard let word = word(index), let descending = Self.sizeWords[word], contentTypes(named: self.word(index + 1) ?? "").isEmpty,
      let size = sizeAttribute
    else { return nil }
    return (size, descending)
  }

  /// The attribute "largest" and "smallest" order by when no attribute follows them: a
  /// file's size, or the one numeric attribute whose name ends in "size" (`installedSize`).
  var sizeAttribute: String? {
    if let size = numericAttribute(["fileSize", "size"]) { return size }
    let sized = vocabulary.attributes.filter { $0.value.scalar == .number && $0.key.lowercased().hasSuffix("size") }.keys.sorted()
    return sized.count == 1 ? sized[0] : nil
  }

  static let largestWords: Set<String> = ["highest", "most", "largest", "biggest", "greatest", "maximum", "max", "top"]
  static let smallestWords: Set<String> = ["lowest", "least", "smallest", "fewest", "minimum", "min"]

  mutating func recognizeAnswerShape() {
    recognizeRankedGroups()
    guard rankedGroups == nil else { return }
    recognizeCounting()
    recognizeStatistic()
    recognizeGrouping()
    if !counting && statistic == nil && superlative == nil { recognizeSuperlative() }
  }

  /// An attribute (or calendar period) named by the free words at `index`: its length in
  /// words and the attribute or period.
  func attributeName(at index: Int, numericOnly: Bool = false) -> (length: Int, attribute: String?, period: String?)? {
    guard isFree(index), let first = word(index) else { return nil }
    if !numericOnly, let period = Self.periodWords[first] { return (1, nil, period) }
    // An attribute's own name, split at case changes: "elevation gain", "state or province".
    var best: (Int, String)?
    for (name, type) in vocabulary.attributes {
      if numericOnly && type.scalar != .number { continue }
      let words = Self.nameWords(name)
      guard words.count > 1 || words.first == first || words.first.map({ $0 + "s" }) == first else { continue }
      var candidate = words
      if !matches(candidate, at: index) {
        candidate[candidate.count - 1] += "s"
        guard matches(candidate, at: index) else { continue }
      }
      if best == nil || candidate.count > best!.0 { best = (candidate.count, name) }
    }
    if let best { return (best.0, best.1, nil) }
    if let candidates = Self.attributeWords[first] {
      for candidate in candidates {
        if candidate == "contentType" || candidate == "domainIdentifier" {
          if !numericOnly { return (1, candidate, nil) }
          continue
        }
        guard let type = vocabulary.type(of: candidate) else { continue }
        if numericOnly && type.scalar != .number { continue }
        // "elevation gain" is one attribute in two words.
        if candidate == "elevationGain", word(index + 1) == "gain", isFree(index + 1) { return (2, candidate, nil) }
        return (1, candidate, nil)
      }
    }
    return nil
  }

  /// The folded words of an attribute name: `elevationGain` -> ["elevation", "gain"].
  static func nameWords(_ name: String) -> [String] {
    var words: [String] = []
    var current = ""
    for character in name {
      if character.isUppercase, !current.isEmpty {
        words.append(current)
        current = ""
      }
      if character.isLetter || character.isNumber { current.append(Character(character.lowercased())) }
    }
    if !current.isEmpty { words.append(current) }
    return words
  }

  private mutating func recognizeCounting() {
    let cues: [[String]] = [["how", "many"], ["total", "number", "of"], ["number", "of"], ["count", "of"], ["count"]]
    for index in 0..<count {
      for cue in cues where matches(cue, at: index) {
        if cue == ["count"], index != 0 { continue }
        // "how many km": a sum, not a count.
        if cue == ["how", "many"], let named = attributeName(at: index + 2, numericOnly: true),
          let attribute = named.attribute, ["km", "kilometers", "kilometres", "miles", "hours", "stars"].contains(word(index + 2) ?? "") {
          statistic = ("sum", attribute)
          claim(index..<index + 2 + named.length)
          note(index, "\(quote(index..<index + 2 + named.length)) -> stats sum(\(attribute)) (in the stored unit)")
          return
        }
        counting = true
        claim(index..<index + cue.count)
        note(index, "\(quote(index..<index + cue.count)) -> count")
        return
      }
    }
  }

  private mutating func recognizeStatistic() {
    guard statistic == nil else { return }
    for index in 0..<count where isFree(index) {
      guard let function = Self.statisticWords[word(index) ?? ""] else { continue }
      // "total number of" is a count.
      if function == "sum", word(index + 1) == "number" { continue }
      var next = index + 1
      while next < index + 3, ["the", "of", "my", "a", "an"].contains(word(next) ?? ""), isFree(next) { next += 1 }
      var function2 = function
      if function == "stddev" || (word(index) == "standard" && word(index + 1) == "deviation") { function2 = "stddev" }
      guard let named = attributeName(at: next, numericOnly: true), let attribute = named.attribute else { continue }
      statistic = (function2, attribute)
      claim(index..<next + named.length)
      note(index, "\(quote(index..<next + named.length)) -> stats \(function2)(\(attribute))")
      return
    }
  }

  private mutating func recognizeGrouping() {
    let cues: [[String]] = [
      ["sorted", "by"], ["ordered", "by"], ["sort", "by"], ["order", "by"],
      ["broken", "down", "by"], ["grouped", "by"], ["group", "by"], ["for", "each"], ["for", "every"], ["in", "each"],
      ["per"], ["by"], ["each"],
    ]
    for index in 0..<count {
      for cue in cues where matches(cue, at: index) {
        var next = index + cue.count
        if word(next) == "the", isFree(next) { next += 1 }
        guard let named = attributeName(at: next) else { continue }
        // "sorted by rating", and "by rating" without counting: an order, not groups.
        let ordered = ["sorted", "ordered", "sort", "order"].contains(cue[0])
        if let attribute = named.attribute, ordered || (cue == ["by"] && !counting && statistic == nil),
          let type = vocabulary.type(of: attribute), type.scalar == .number || type.scalar == .date {
          superlative = Superlative(attribute: attribute, descending: true, limit: resultLimit)
          claim(index..<next + named.length)
          note(index, "\(quote(index..<next + named.length)) -> sort \(attribute) desc")
          return
        }
        if ordered { continue }
        grouping = Grouping(attribute: named.attribute, period: named.period)
        claim(index..<next + named.length)
        let target = named.period.map { "each \($0) of the date" } ?? "group by \(named.attribute!)"
        note(index, "\(quote(index..<next + named.length)) -> \(target)")
        return
      }
    }
    // "monthly", "weekly" on their own.
    for index in 0..<count where isFree(index) {
      if let word = word(index), ["daily", "weekly", "monthly", "yearly", "annually"].contains(word), let period = Self.periodWords[word] {
        grouping = Grouping(attribute: nil, period: period)
        claim(index..<index + 1)
        note(index, "\(quote(index..<index + 1)) -> each \(period) of the date")
        return
      }
    }
  }

  private mutating func recognizeSuperlative() {
    for index in 0..<count where isFree(index) {
      var found: (length: Int, attribute: String?, descending: Bool)?
      for (words, attributes, descending) in Self.superlatives where matches(words, at: index) {
        // "best", "worst", "favorite" alone rank by rating only before a content type: "best
        // trails", not "the best way to ...".
        if words.count == 1, ["best", "worst", "favorite", "favourite"].contains(words[0]),
          contentTypes(named: word(index + 1) ?? "").isEmpty {
          continue
        }
        if let attributes {
          guard let attribute = numericAttribute(attributes) ?? attributes.first(where: { vocabulary.type(of: $0)?.scalar == .date }) else { continue }
          found = (words.count, attribute, descending)
        } else {
          found = (words.count, nil, descending)
        }
        break
      }
      if found == nil, let word = word(index), Self.largestWords.contains(word) || Self.smallestWords.contains(word) {
        var next = index + 1
        if self.word(next) == "of", isFree(next) { next += 1 }
        if let named = attributeName(at: next, numericOnly: true), let attribute = named.attribute {
          found = (next + named.length - index, attribute, Self.largestWords.contains(word))
        }
      }
      if found == nil, let size = sizeSuperlative(at: index) { found = (1, size.attribute, size.descending) }
      guard let found else { continue }
      // "the latest python version", "the newest release of openssl": the newest version of
      // what the question names, which no item's date orders (an attribute question reads a
      // `version` attribute first). Relevance answers it; the newest item that mentions the
      // words is any changelog that does.
      if found.attribute == nil, let version = versionNoun(after: index + found.length) {
        claim(index..<index + found.length)
        note(index, "\(quote(index..<index + found.length)) qualifies \(DSLText.quoted(version)), not an item's date: relevance order")
        return
      }
      var span = index..<index + found.length
      var limit: Int?
      // "3 longest", "top 5", "the five best"
      if let n = wholeNumber(index - 1), n > 0, n <= 1000, tokens[index - 1].isNumber || Self.numberWords[word(index - 1) ?? ""] != nil,
        word(index - 1) != "a" {
        limit = n
        span = (index - 1)..<span.upperBound
        // "top 3 longest", "the top five highest rated": "top" says no more than the number.
        if word(index - 2) == "top", isFree(index - 2) { span = (index - 2)..<span.upperBound }
      } else if word(index - 1) == "top", isFree(index - 1), let n = wholeNumber(index - 2), n > 0 {
        limit = n
        span = (index - 2)..<span.upperBound
      } else if word(index) == "top", let n = wholeNumber(index + found.length), n > 0 {
        limit = n
        span = index..<index + found.length + 1
      }
      if limit == nil {
        // A plural noun after it asks for several: "highest rated trails", "largest
        // documentation files" (the last word of the phrase after it is its noun).
        var next = span.upperBound
        while next + 1 < span.upperBound + 3, let following = word(next + 1), !StopWords.contains(following), !tokens[next].endsClause,
          !tokens[next + 1].isNumber, word(next).map({ !StopWords.contains($0) }) == true {
          next += 1
        }
        let notNouns: Set<String> = ["does", "was", "has", "is", "this"]
        // Its noun is the phrase's last word ("largest documentation files") or, before a
        // verb, its first ("the newest trails added").
        let nouns = [word(next), next > span.upperBound ? word(span.upperBound) : nil].compactMap { $0 }
        if nouns.contains(where: { Self.isPlural($0) && !notNouns.contains($0) }) {
          limit = resultLimit
        } else if index > 1, ["which", "what"].contains(word(0) ?? ""), let subject = word(1), Self.isPlural(subject), !notNouns.contains(subject) {
          // So does a plural subject before it: "which documents were changed most recently".
          limit = resultLimit
        } else {
          limit = 1
        }
      }
      superlative = Superlative(attribute: found.attribute, descending: found.descending, limit: limit)
      claim(span)
      let order = "sort \(found.attribute ?? "the date") \(found.descending ? "desc" : "asc") | limit \(limit!)"
      note(span.lowerBound, "\(quote(span)) -> \(order)")
      return
    }
    // "top 5 trails": the best rated.
    for index in 0..<count where matches(["top"], at: index) {
      guard let n = wholeNumber(index + 1), n > 0, let attribute = numericAttribute(["rating", "starRating"]) else { continue }
      superlative = Superlative(attribute: attribute, descending: true, limit: n)
      claim(index..<index + 2)
      note(index, "\(quote(index..<index + 2)) -> sort \(attribute) desc | limit \(n)")
      return
    }
  }

  /// Nouns for a version of something rather than an item: "latest version", "newest release".
  static let versionWords: Set<String> = [
    "version", "versions", "release", "releases", "revision", "revisions", "edition", "editions",
  ]

  /// The version noun of the phrase that starts at `index` ("python version", "release of
  /// openssl": at most three words, up to a stop word), nil when the phrase names no version.
  func versionNoun(after index: Int) -> String? {
    var next = index
    while next < index + 3, let word = word(next), !StopWords.contains(word), !tokens[next].isNumber {
      if Self.versionWords.contains(word) { return word }
      if tokens[next].endsClause { break }
      next += 1
    }
    return nil
  }

  // MARK: Ranked groups

  /// Verbs between the groups and what ranks them: "which state *has* the most trails".
  static let rankedGroupVerbs: Set<String> = ["has", "have", "had", "holds", "hold", "gets", "get", "got", "wrote", "sent", "received", "with"]

  /// Words for items in general, after "most": "which project has the most items".
  static let itemWords: Set<String> = [
    "items", "entries", "documents", "things", "files", "records", "item", "entry", "document", "thing", "file", "record",
  ]

  /// "which state has the most trails", "which 3 states have the longest trails on average",
  /// "what project has the highest average rating": the groups of an attribute ranked by
  /// how many items they hold or by a statistic, the first one (or the number asked for).
  /// The groups' attribute must be one the index has (or its types or domains), and a count
  /// needs a collection after "most" ("trails", "items") or nothing: "what type of wing has
  /// the most lift" in a collection of papers stays a text search.
  private mutating func recognizeRankedGroups() {
    for index in 0..<count where isFree(index) && ["which", "what"].contains(word(index) ?? "") {
      var next = index + 1
      var limit = 1
      if let n = wholeNumber(next), n > 1, n <= 1000, tokens[next].isNumber || Self.numberWords[word(next) ?? ""] != nil, word(next) != "a" {
        limit = n
        next += 1
      }
      guard let named = attributeName(at: next), named.period == nil, let group = named.attribute,
        group == "contentType" || group == "domainIdentifier" || vocabulary.has(group)
      else { continue }
      let verb = next + named.length
      guard isFree(verb), Self.rankedGroupVerbs.contains(word(verb) ?? "") else { continue }
      var cursor = verb + 1
      if word(cursor) == "the", isFree(cursor) { cursor += 1 }
      guard let measure = rankedMeasure(at: cursor) else { continue }
      let span = index..<cursor + measure.length
      var function = measure.function
      // "on average" anywhere asks for the mean.
      if let average = (0..<count).first(where: { matches(["on", "average"], at: $0) }) {
        if measure.measure != nil { function = "avg" }
        claim(average..<average + 2)
      }
      rankedGroups = RankedGroups(attribute: group, function: function, measure: measure.measure, descending: measure.descending, limit: limit)
      claim(span)
      let column = measure.measure.map { "\(function)(\($0))" } ?? "count"
      let ranking = measure.measure.map { "stats \(function)(\($0)) by \(group)" } ?? "group by \(group) | count"
      note(index, "\(quote(span)) -> \(ranking) | sort \(column) \(measure.descending ? "desc" : "asc") | limit \(limit)")
      return
    }
  }

  /// What ranks the groups, at `index`: "most" (a count, or the sum of a numeric attribute
  /// named after it), "highest average rating", "highest rating" (its mean), or a
  /// superlative of a numeric attribute ("longest", "highest rated": the mean before a
  /// plural, the largest or smallest value before a singular).
  private func rankedMeasure(at index: Int) -> (length: Int, function: String, measure: String?, descending: Bool)? {
    guard isFree(index), let first = word(index) else { return nil }
    let largest = Self.largestWords.contains(first) && first != "top"
    if largest || Self.smallestWords.contains(first) || first == "fewest" {
      var next = index + 1
      if let function = Self.statisticWords[word(next) ?? ""], isFree(next),
        let named = attributeName(at: next + 1, numericOnly: true), let attribute = named.attribute {
        return (2 + named.length, function, attribute, largest)
      }
      if let named = attributeName(at: next, numericOnly: true), let attribute = named.attribute {
        return (1 + named.length, first == "most" || first == "least" ? "sum" : "avg", attribute, largest)
      }
      if ["most", "fewest", "least"].contains(first) {
        if word(next) == "of", isFree(next) { next += 1 }
        guard let noun = word(next) else { return (1, "count", nil, largest) }
        guard Self.itemWords.contains(noun) || !contentTypes(named: noun).isEmpty || !domains(named: noun).isEmpty else { return nil }
        return (1, "count", nil, largest)
      }
    }
    // The mean before a plural or "average"; else the largest or smallest value.
    func statistic(after length: Int, descending: Bool) -> String {
      return Self.isPlural(word(index + length) ?? "") || contains(["average"]) ? "avg" : descending ? "max" : "min"
    }
    if let size = sizeSuperlative(at: index) {
      return (1, statistic(after: 1, descending: size.descending), size.attribute, size.descending)
    }
    for (words, attributes, descending) in Self.superlatives where matches(words, at: index) {
      guard let attributes, let attribute = numericAttribute(attributes) else { continue }
      return (words.count, statistic(after: words.count, descending: descending), attribute, descending)
    }
    return nil
  }
}
