import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex
@testable import Stages

@Suite struct ScoreStageTests {
  func scored(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [ResultItem] {
    guard case .scoredItems(let items) = try data(text, sourceLocation: sourceLocation) else {
      Issue.record("\(text) gave no scored items", sourceLocation: sourceLocation)
      return []
    }
    return items
  }

  @Test func scoresAndOrdersBestFirst() throws {
    let items = try scored(#"search domainIdentifier == "trails" | score rating * 2"#)
    #expect(items.count == 81)
    for item in items {
      #expect(item.score == (item.item.attributeSet["rating"]?.numericValue ?? 0) * 2)
    }
    #expect(items.map { $0.score ?? 0 } == items.map { $0.score ?? 0 }.sorted(by: >))
  }

  @Test func tiesKeepTheirOrder() throws {
    let items = try scored(#"search domainIdentifier == "trails" | score 1"#)
    #expect(items.map(\.id) == (try ids(#"search domainIdentifier == "trails""#)))
  }

  @Test func aMissingAttributeScoresZero() throws {
    let items = try scored(#"search domainIdentifier == "notes*" | score priority"#)
    for item in items where item.item.attributeSet["priority"] == nil { #expect(item.score == 0) }
    #expect(items.contains { $0.item.attributeSet["priority"] == nil })
  }

  @Test func termsOfASumAreKeptForWhy() throws {
    let items = try scored(#"search "budget" | score 0.7 * relevance + 0.3 * recency(contentModificationDate, 30d) - 0.1 * rating"#)
    let first = try #require(items.first)
    #expect(first.scoreTerms.map(\.name) == ["0.7 * relevance", "0.3 * recency(contentModificationDate, 30d)", "-0.1 * rating"])
    #expect(abs(first.scoreTerms.map(\.value).reduce(0, +) - (first.score ?? 0)) < 1e-9)
    #expect(first.scoreTerms[0].value > 0)
  }

  @Test func recencyHalvesEveryHalfLife() throws {
    let index = try TemporaryIndex([
      item("now", [("contentModificationDate", .date(sampleNow))]),
      item("month", [("contentModificationDate", .date(sampleNow.addingTimeInterval(-30 * 86400)))]),
      item("two", [("contentModificationDate", .date(sampleNow.addingTimeInterval(-60 * 86400)))]),
      item("none"),
    ])
    guard case .scoredItems(let items) = try data("search * | score recency(contentModificationDate, 30d)", in: index.index) else {
      Issue.record(); return
    }
    #expect(items.map(\.id) == ["now", "month", "two", "none"])
    #expect(items.map { $0.score ?? -1 } == [1, 0.5, 0.25, 0])
  }

  @Test func emptyInput() throws {
    #expect(try data("search false | score rating") == .scoredItems([]))
  }

  @Test func typeErrors() {
    expectError("search * | score title", id: "type.score-not-number", message: "a score must be a number, found text", column: 18,
                help: "use if(condition, 1, 0) to score a condition")
    expectError("search * | score rating > 3", id: "type.score-not-number", message: "a score must be a number, found a condition", column: 18,
                help: "use if(condition, 1, 0) to score a condition")
    expectError("search * | score recency(title, 30d)", id: "type.mismatch", message: "recency needs a date attribute first", column: 26,
                help: "write recency(dateAttribute, halfLife), e.g. recency(contentModificationDate, 30d)")
    expectError("search * | score log(1, 2)", id: "call.arity", message: "log takes 1 arguments", column: 18, help: "write log(x)")
    expectError("search * | stats avg(rating) | score 1", id: "type.stage-input",
                message: "'score' needs items or scoredItems; 'stats' produces statistic", column: 32, help: "stages that accept statistic: text")
  }
}
