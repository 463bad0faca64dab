import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex
@testable import Stages

@Suite struct TopStageTests {
  @Test func keepsTheBestScores() throws {
    guard case .scoredItems(let items) = try data(#"search domainIdentifier == "trails" | score distance | top 3"#) else { Issue.record(); return }
    let best = visibleSampleItems.compactMap { $0.attributeSet["distance"]?.numericValue }.sorted(by: >).prefix(3)
    #expect(items.map { $0.score ?? 0 } == Array(best))
  }

  @Test func keepsTheMostRelevantOfATextSearch() throws {
    let all = try data(#"search "budget""#).resultItems
    let top = try data(#"search "budget" | top 3"#).resultItems
    #expect(top.map(\.id) == all.prefix(3).map(\.id))
    #expect(top.map(\.relevance) == all.map(\.relevance).sorted(by: >).prefix(3).map { $0 })
  }

  @Test func keepsTheOrderOfAnUnrankedSearch() throws {
    #expect(try ids(#"search domainIdentifier == "trails" | sort rating desc, title | top 4"#)
      == Array(try ids(#"search domainIdentifier == "trails" | sort rating desc, title"#).prefix(4)))
  }

  @Test func theDefaultIsTen() throws {
    #expect(try ids("search * | top").count == 10)
    #expect(try ids("search * | top(3)").count == 3)
  }

  @Test func inSwiftAfterAScoreOrAWhere() throws {
    #expect(try inSwift(#"search "budget" | top 3"#).resultItems.map(\.id) == ids(#"search "budget" | top 3"#))
    #expect(try inSwift(#"search domainIdentifier == "trails" | score rating | top 5"#) == data(#"search domainIdentifier == "trails" | score rating | top 5"#))
  }

  @Test func edgeCases() throws {
    #expect(try data("search false | top 3") == .items([]))
    #expect(try ids(#"search domainIdentifier == "trails" | top 10000"#).count == 81)
  }

  @Test func typeErrors() {
    expectError("search * | top 0", id: "stage.out-of-range", message: "top must be between 1 and 10000", column: 16)
    expectError("search * | top 1e99", id: "stage.out-of-range", message: "top must be between 1 and 10000", column: 16)
    expectError("search * | top 2.5", id: "stage.expected-integer", message: "top needs a whole number", column: 16)
    expectError("search * | top x", id: "stage.expected-integer", message: "top needs a whole number", column: 16)
    expectError("search * | top 1 2", id: "stage.usage", message: "unexpected argument to 'top'", column: 12, help: "write top N")
    expectError("search * | top 5 by rating", id: "stage.usage", message: "unexpected argument to 'top'", column: 12,
                help: "top keeps the best by relevance or score; for the highest rating, write sort rating desc | limit 5")
    expectError("search * | group by title | top 1", id: "type.stage-input",
                message: "'top' needs items or scoredItems; 'group' produces groupedItems", column: 29,
                help: "for the first groups, write limit N (stages that accept groupedItems: count, extract, limit, select, table, text)")
    expectError("search * | group by title | count | top 1", id: "type.stage-input",
                message: "'top' needs items or scoredItems; 'count' produces table", column: 37,
                help: "for the first rows, write limit N (stages that accept table: limit, select, sort, table, text)")
  }
}

@Suite struct LimitStageTests {
  @Test func keepsTheFirstNInOrder() throws {
    let sorted = try ids(#"search domainIdentifier == "trails" | sort distance desc"#)
    #expect(try ids(#"search domainIdentifier == "trails" | sort distance desc | limit 3"#) == Array(sorted.prefix(3)))
    #expect(try ids(#"search domainIdentifier == "trails" | sort distance desc | limit 0"#) == [])
    #expect(try ids(#"search domainIdentifier == "trails" | limit 500"#).count == 81)
  }

  @Test func limitsGroupsAndTableRows() throws {
    guard case .groupedItems(let grouped) = try data(#"search domainIdentifier == "trails" | group by stateOrProvince | limit 2"#) else {
      Issue.record(); return
    }
    #expect(grouped.groups.map(\.key) == [.string("California"), .string("Arizona")])
    let rows = try table(#"search domainIdentifier == "trails" | group by keywords | count | limit 5"#).rows
    #expect(rows.count == 5)
    #expect(rows == Array(try table(#"search domainIdentifier == "trails" | group by keywords | count"#).rows.prefix(5)))
  }

  @Test func twoLimitsKeepTheSmaller() throws {
    #expect(try ids("search * | limit 5 | limit 9").count == 5)
    #expect(try ids("search * | limit 9 | limit 5").count == 5)
    #expect(try data("search * | limit 9 | limit 5 | count") == .count(5))
  }

  @Test func anOffsetSkipsItemsGroupsAndRows() throws {
    let sorted = #"search domainIdentifier == "trails" | sort title"#
    let all = try ids(sorted)
    #expect(try ids(sorted + " | limit 3 offset 2") == Array(all.dropFirst(2).prefix(3)))
    #expect(try ids(sorted + " | limit 3 offset 0") == Array(all.prefix(3)))
    #expect(try ids(sorted + " | limit 5 offset \(all.count)").isEmpty)
    #expect(try ids(sorted + " | limit 4 | limit 2 offset 1") == Array(all.dropFirst(1).prefix(2)), "after a LIMIT pushed into SQL")
    let rows = try table(#"search domainIdentifier == "trails" | group by keywords | count"#).rows
    #expect(try table(#"search domainIdentifier == "trails" | group by keywords | count | limit 2 offset 3"#).rows == Array(rows.dropFirst(3).prefix(2)))
    guard case .groupedItems(let grouped) = try data(#"search domainIdentifier == "trails" | group by stateOrProvince | limit 1 offset 1"#) else {
      Issue.record(); return
    }
    #expect(grouped.groups.map(\.key) == [.string("Arizona")])
  }

  @Test func inSwiftMatchesSQL() throws {
    #expect(try inSwift(#"search domainIdentifier == "trails" | sort title | limit 4"#) == data(#"search domainIdentifier == "trails" | sort title | limit 4"#))
  }

  @Test func typeErrors() {
    // -1 is a whole number, below the range.
    expectError("search * | limit 2000000", id: "stage.out-of-range", message: "limit must be between 0 and 1000000", column: 18)
    expectError("search * | limit", id: "stage.usage", message: "'limit' needs an argument", column: 12, help: "write limit N [offset M]")
    expectError("search * | limit 3 skip 2", id: "stage.usage", message: "unexpected argument to 'limit'", column: 20, help: "write limit N [offset M]")
    expectError("search * | limit 3 offset 2.5", id: "stage.expected-integer", message: "offset needs a whole number", column: 27)
    expectError("search * | limit -1", id: "stage.out-of-range", message: "limit must be between 0 and 1000000", column: 18)
    expectError("search * | limit -1.5", id: "stage.expected-integer", message: "limit needs a whole number", column: 18)
    expectError("search * | count | limit 1", id: "type.stage-input",
                message: "'limit' needs items or scoredItems or groupedItems or table; 'count' produces count", column: 20,
                help: "stages that accept count: text")
  }
}

@Suite struct SampleStageTests {
  let trails = #"search domainIdentifier == "trails""#

  @Test func theSameSeedGivesTheSameSample() throws {
    let first = try ids("\(trails) | sample 5 seed 7")
    #expect(first.count == 5)
    #expect(try ids("\(trails) | sample 5 seed 7") == first)
    #expect(try ids("\(trails) | sample 5 seed 8") != first)
    #expect(try ids("\(trails) | sample 5") == ids("\(trails) | sample 5 seed 1"))
  }

  @Test func theSampleKeepsTheInputOrder() throws {
    let all = try ids(trails)
    let sample = try ids("\(trails) | sample 10 seed 3")
    #expect(Set(sample).isSubset(of: all))
    #expect(sample == all.filter(sample.contains))
  }

  @Test func stratifiedSamplesAreProportional() throws {
    guard case .groupedItems(let grouped) = try data("\(trails) | sample 27 seed 4 by stateOrProvince | group by stateOrProvince") else {
      Issue.record(); return
    }
    let sizes = Dictionary(uniqueKeysWithValues: grouped.groups.map { ($0.key.displayText, $0.count) })
    // 81 trails, 27 picked: a third of each state, rounded by largest remainder.
    #expect(sizes["California"] == 4)
    #expect(sizes.values.reduce(0, +) == 27)
  }

  /// The positions a sample keeps are a Fisher-Yates shuffle's first steps, whatever holds
  /// the shuffled positions: the same as shuffling an array of all of them.
  @Test func thePickedPositionsAreAShufflesFirstSteps() {
    for (total, n, seed) in [(1, 1, 1), (10, 3, 2), (81, 27, 4), (1_000, 999, 5), (100_000, 3, 6), (5, 0, 7)] as [(Int, Int, UInt64)] {
      var generator = SplitMix64(seed: seed)
      var reference = SplitMix64(seed: seed)
      var indices = Array(0..<total)
      for i in 0..<min(n, total) { indices.swapAt(i, i + Int(reference.next() % UInt64(total - i))) }
      #expect(SampleStage.Bound.pickedPositions(total, n, &generator) == indices.prefix(n).sorted(), "\(total) \(n)")
    }
  }

  /// A sample from positions alone makes only the items it keeps, and keeps the ones a sample
  /// of all the items keeps.
  @Test func aSampleOfPositionsKeepsWhatASampleOfItemsKeeps() throws {
    for query in ["search * | sample 5 seed 3", "\(trails) | sample 1 seed 11", "search * | sample 40 seed 2", #"search "trail" | sample 2"#] {
      #expect(try data(query) == (try inSwift(query)), "\(query)")
    }
    let stage = try #require(try boundStages("search * | sample 5 seed 3").first)
    #expect(stage.keptPositions(among: 5) == nil && stage.keptPositions(among: 4) == nil)
    #expect(stage.keptPositions(among: 100)?.count == 5)
    #expect(try boundStages("search * | sample 5 by stateOrProvince").first?.keptPositions(among: 100) == nil)
  }

  @Test func aSampleAsLargeAsTheInputIsTheInput() throws {
    #expect(try ids("\(trails) | sample 81") == ids(trails))
    #expect(try ids("\(trails) | sample 1000") == ids(trails))
    #expect(try ids("\(trails) | sample 0") == [])
    #expect(try ids("search false | sample 3") == [])
  }

  @Test func typeErrors() {
    expectError("search * | sample", id: "stage.usage", message: "'sample' needs a size", column: 12, help: "write sample N [seed S] [by ATTRIBUTE]")
    expectError("search * | sample 3 foo 2", id: "stage.usage", message: "unexpected 'foo' in sample", column: 21,
                help: "write sample N [seed S] [by ATTRIBUTE]")
    expectError("search * | sample 3 seed 1e99", id: "stage.out-of-range", message: "seed must be between 0 and \(Int.max)", column: 26)
    expectError("search * | sample 3 by nosuch", id: "name.unknown-attribute", message: "unknown attribute 'nosuch'", column: 24)
  }
}
