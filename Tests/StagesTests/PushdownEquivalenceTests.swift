import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex
@testable import Stages

/// What the planner pushes into SQL gives exactly what the same stages compute in Swift over
/// the materialized items.
@Suite struct PushdownEquivalenceTests {
  static let predicates = [
    "*",
    #"domainIdentifier == "trails""#,
    #"domainIdentifier == "mail*" && rating == "*""#,
    #""budget""#,
    #""trail*" && rating > 3"#,
    "false",
    #"keywords == "waterfall" || keywords == "views""#,
    // Text searches of an AND that aggregates are one match (`("trail") AND ("lake")`).
    #""trail" && "lake""#,
    #"("lake" || "river") && "trail" && domainIdentifier == "trails""#,
  ]

  /// The stages after the search run in SQL (checked with explain) and give the Swift answer.
  func expectEquivalent(_ query: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let pushed = try data(query, sourceLocation: sourceLocation)
    let swift = try inSwift(query)
    #expect(Self.same(pushed, swift), "\(query)\nSQL:   \(describe(pushed))\nSwift: \(describe(swift))", sourceLocation: sourceLocation)
    let explanation = try Explainer(executor: QueryExecutor(index: sampleIndex.index, registry: standardRegistry))
      .explain(try prepare(query), options: QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock))
    #expect(!explanation.contains("[Swift]"), "\(query) did not run in SQL:\n\(explanation)", sourceLocation: sourceLocation)
  }

  /// Equal, with numbers compared to a relative 1e-9 (sums in another order round differently).
  static func same(_ a: PipelineData, _ b: PipelineData) -> Bool {
    switch (a, b) {
    case (.items(let x), .items(let y)), (.scoredItems(let x), .scoredItems(let y)): return x == y
    case (.count(let x), .count(let y)): return x == y
    case (.statistic(let x), .statistic(let y)): return x.function == y.function && x.attribute == y.attribute && same(x.value, y.value)
    case (.table(let x), .table(let y)):
      return x.columns == y.columns && x.rows.count == y.rows.count
        && zip(x.rows, y.rows).allSatisfy { r, s in r.count == s.count && zip(r, s).allSatisfy { same($0, $1) } }
    default: return a == b
    }
  }

  static func same(_ a: Value, _ b: Value) -> Bool {
    switch (a, b) {
    case (.number(let x), .number(let y)): return x == y || abs(x - y) <= 1e-9 * max(abs(x), abs(y))
    case (.date(let x), .date(let y)): return abs(x.timeIntervalSince1970 - y.timeIntervalSince1970) < 1e-3
    default: return a == b
    }
  }

  func describe(_ data: PipelineData) -> String {
    switch data {
    case .items(let items), .scoredItems(let items): items.map(\.id).joined(separator: " ")
    default: data.jsonValue().compactText
    }
  }

  @Test(arguments: predicates)
  func count(predicate: String) throws {
    try expectEquivalent("search \(predicate) | count")
    try expectEquivalent("search \(predicate) | sort rating desc | limit 7 | count")
  }

  @Test(arguments: predicates)
  func groupAndCount(predicate: String) throws {
    for attribute in ["stateOrProvince", "keywords", "domainIdentifier", "rating", "authorNames", "contentType"] {
      try expectEquivalent("search \(predicate) | group by \(attribute) | count")
      try expectEquivalent("search \(predicate) | stats count by \(attribute)")
    }
  }

  @Test(arguments: predicates)
  func statistics(predicate: String) throws {
    for function in StatisticRequest.Function.allCases where function != .count {
      for attribute in ["rating", "contentCreationDate", "priority"] where !(function == .sum && attribute == "contentCreationDate") {
        try expectEquivalent("search \(predicate) | stats \(function.rawValue)(\(attribute))")
        try expectEquivalent("search \(predicate) | stats \(function.rawValue)(\(attribute)) by stateOrProvince")
        try expectEquivalent("search \(predicate) | stats \(function.rawValue)(\(attribute)) by keywords")
      }
    }
    try expectEquivalent("search \(predicate) | stats count")
    try expectEquivalent("search \(predicate) | stats count(rating), count")
    try expectEquivalent("search \(predicate) | stats count(rating) by domainIdentifier")
    try expectEquivalent("search \(predicate) | stats avg(distance), max(rating), min(rating), median(rating), stddev(distance), sum(distance), count by stateOrProvince")
  }

  @Test(arguments: predicates)
  func sort(predicate: String) throws {
    for keys in ["rating", "rating desc", "distance desc, title", "title", "title desc", "contentCreationDate desc", "stateOrProvince, rating desc",
                 "keywords", "domainIdentifier desc, contentModificationDate", "dueDate"] {
      try expectEquivalent("search \(predicate) | sort \(keys)")
      try expectEquivalent("search \(predicate) | sort \(keys) | limit 5")
    }
  }

  /// A text search run in Swift (a `where` after stages that stay in Swift) finds what
  /// FTS5 finds.
  @Test(arguments: [
    #""kitchen remodel""#, "'kitchen remodel'", "'remodel kitchen'", #""remod*""#, "'kitchen remod*'", #""Zürich""#, #""cafe muller""#,
    #""L'Étranger""#, #""orion launch*""#, #""kitchen" || "budget""#, #"!"kitchen""#, #""q3 budget" && !"2026""#, #""al*pha""#,
    #""MyWindowClass""#, #""window""#, #""NSWindow frames""#, "'restoring NSWindow frames'",
  ])
  func textSearchesInSwift(text: String) throws {
    let sql = try idSet("search \(text)")
    let swift = Set(try inSwift("search * | where \(text)").resultItems.map(\.id))
    #expect(sql == swift, "\(text): only in SQL \(sql.subtracting(swift).sorted()), only in Swift \(swift.subtracting(sql).sorted())")
    #expect(try idSet("search * | score 1 | where \(text)") == sql)
  }

  /// A predicate evaluated in Swift (a `where` after a score) keeps what the same predicate
  /// finds in SQL.
  @Test(arguments: [
    #"title == "Window"w"#, #"title == "window"cw"#, #"title == "*zurich*"cd"#, #"title ==[cd] "cafe*""#, #"title == 'Mist Trail'"#,
    #"title != "Mist*""#, #"keywords == "waterfall""#, #"keywords != "waterfall""#, #"keywords == "w?terfall"c"#,
    #"domainIdentifier == "mail*""#, #"domainIdentifier != "notes""#, #"contentType == "email""#, #"** == "trail-1*""#,
    #"** == "mail.inbox""#, #"* == "waterfall"cd"#, #"* == "*window*"c"#, #"completionDate == "*""#, #"completionDate != "*""#,
    "rating >= 4.5", "rating != 4.5", "rating < 3 || rating > 4.8", "InRange(distance, 2, 8)", "!InRange(distance, 2, 8)",
    "contentModificationDate == $time.yesterday", "contentModificationDate >= $time.this_month(-1)", "dueDate > $time.now",
    "dueDate <= $time.today(14)", "contentCreationDate < 2025-06-01", "pinned", "pinned == false", "priority != 1",
    #"authorNames == "alex*"cw"#, #"textContent == "*NSWindow*""#, #"title == "Q? budget*""#, #"kMDItemTitle == "*trail*"c"#,
  ])
  func predicatesInSwift(predicate: String) throws {
    let sql = try idSet("search \(predicate)")
    let swift = Set(try data("search * | score 1 | where \(predicate)").resultItems.map(\.id))
    #expect(sql == swift, "\(predicate): only in SQL \(sql.subtracting(swift).sorted()), only in Swift \(swift.subtracting(sql).sorted())")
  }

  @Test func sortByRelevanceAndTopOfATextSearch() throws {
    try expectEquivalent(#"search "budget review" | sort relevance desc"#)
    try expectEquivalent(#"search "trail*" | top 5"#)
    try expectEquivalent(#"search "budget" | where rating > 2 | top 3"#)
  }
}
