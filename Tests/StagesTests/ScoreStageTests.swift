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

  /// `score ... | top N` (and `limit N`) keeps the best N while the items are scored
  /// (`BoundStage.itemScorer`, `keepsFirstScored`): the same items, scores, terms and order as
  /// scoring every item and keeping the first N, ties in input order, whether the items
  /// come as numbers or as records.
  @Test(arguments: [
    #"search domainIdentifier == "trails" | score rating * 2"#,
    #"search domainIdentifier == "trails" | score 1"#,
    #"search domainIdentifier == "trails" | score if(rating > 3, 1, 0)"#,
    #"search "budget" | score 0.7 * relevance + 0.3 * recency(contentModificationDate, 30d) - 0.1 * rating"#,
    #"search * | score if(title == "*lake*"cd, 1, 0) + if(difficulty == "easy", 0.5, 0)"#,
    #"search "trail" || "budget" | score relevance"#,
  ])
  func keepingTheBestWhileScoringKeepsWhatScoringEveryItemKeeps(_ query: String) throws {
    func described(_ items: [ResultItem]) -> [String] {
      items.map { "\($0.id) \($0.score ?? -1) \($0.scoreTerms.map { "\($0.name)=\($0.value)" })" }
    }
    for readingNumbers in [true, false] {
      try ExecutionContext.$readsNumbersAlone.withValue(readingNumbers) {
        let every = described(try scored(query))
        #expect(every.count > 3)
        for count in [1, 3, 10, every.count, every.count + 5] {
          #expect(described(try scored("\(query) | top \(count)")) == Array(every.prefix(count)), "\(query) | top \(count)")
          #expect(described(try scored("\(query) | limit \(count)")) == Array(every.prefix(count)), "\(query) | limit \(count)")
        }
        // Only the first items of the order: skipping some is not keeping the best.
        #expect(described(try scored("\(query) | limit 2 offset 1")) == Array(every.dropFirst().prefix(2)))
      }
    }
  }

  /// The bounded heap keeps what a stable best-first sort keeps, on random scores with many ties.
  @Test func bestScoredKeepsTheFirstOfAStableBestFirstOrder() {
    var generator = SystemRandomNumberGenerator()
    for round in 0..<200 {
      let total = Int.random(in: 0...300, using: &generator)
      let distinct = Int.random(in: 1...20, using: &generator)
      let items = (0..<total).map { offset in
        ResultItem(rowid: Int64(offset), item: SearchableItem(uniqueIdentifier: "i\(offset)", domainIdentifier: nil, attributeSet: AttributeSet()),
                   score: round % 2 == 0 ? Double(Int.random(in: 0..<distinct, using: &generator)) : nil)
      }
      let expected = ScoreStage.Bound.bestFirst(items, by: { $0.score ?? 0 }).map(\.rowid)
      for count in [0, 1, 2, 7, total, total + 3] {
        var best = BestScored(keeping: count)
        for item in items { best.offer(item) }
        #expect(best.items.map(\.rowid) == Array(expected.prefix(count)), "\(total) items, \(distinct) scores, keeping \(count)")
      }
    }
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
