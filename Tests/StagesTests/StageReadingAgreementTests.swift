import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex
@testable import Stages

/// Stages that read part of their items (values from the value table, rowids, a group's
/// first items, a narrowed plan) give what the same stages give over every item read whole in
/// Swift (`inSwift`): every source crossed with every pipeline of such stages.
@Suite struct StageReadingAgreementTests {
  static let sources = [
    #"search *"#, #"search "trail""#, #"search domainIdentifier == "trails""#, #"search rating >= 4"#, #"search "lake" || "trail""#,
    #"search keywords == "lake""#,
  ]
  static let pipelines = [
    "score rating | where score > 3 | count", "select first", "select last", "select nth 2", "select max-by rating",
    "select min-by distance", "sort rating desc | select first", "group by stateOrProvince | select first",
    "group by keywords | select nth 2", #"group by stateOrProvince | extract "california""#, #"group by difficulty | extract "Easy""#,
    #"group by domainIdentifier | extract "TRAILS""#, "score relevance + rating | top 3", "text", "score rating | text",
    "where rating > 4.5 | count", "score if(difficulty == \"easy\", 1, 0) + rating / 10 | top 4",
    "score rating | select first", "sort distance | group by difficulty | select first", "limit 5 | text",
    "group by stateOrProvince | select nth 3 | count", "score relevance | where score > 0 | table title, rating",
  ]
  static let cases = sources.flatMap { source in pipelines.map { source + " | " + $0 } }

  @Test(arguments: cases)
  func partialReadingsAgreeWithWholeItems(_ query: String) throws {
    // Also where protected items are granted: partial readings see what the scope sees.
    for protection: Set<String> in [[], ["private", "finance"]] {
      try agree(query, protection: protection)
    }
  }

  func agree(_ query: String, protection: Set<String>) throws {
    let expected = try inSwift(query, protection: protection)
    let found = try data(query, protection: protection)
    switch (found, expected) {
    case (.items(let a), .items(let b)), (.scoredItems(let a), .scoredItems(let b)), (.items(let a), .scoredItems(let b)), (.scoredItems(let a), .items(let b)):
      #expect(a.map(\.id) == b.map(\.id), "\(query)")
      #expect(a.map { $0.score ?? 0 } == b.map { $0.score ?? 0 }, "\(query)")
      #expect(a.map(\.item) == b.map(\.item), "\(query): items not read whole")
    default:
      #expect(found == expected, "\(query)")
    }
  }
}
