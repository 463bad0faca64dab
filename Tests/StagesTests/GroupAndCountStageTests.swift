import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex
@testable import Stages

@Suite struct GroupStageTests {
  let trails = #"search domainIdentifier == "trails""#

  func grouped(_ text: String, in index: SearchIndex = sampleIndex.index, sourceLocation: SourceLocation = #_sourceLocation) throws -> GroupedItems {
    guard case .groupedItems(let grouped) = try data(text, in: index, sourceLocation: sourceLocation) else {
      Issue.record("\(text) gave no groups", sourceLocation: sourceLocation)
      return GroupedItems(attribute: "", groups: [])
    }
    return grouped
  }

  @Test func groupsBySizeThenKey() throws {
    let groups = try grouped("\(trails) | group by stateOrProvince")
    #expect(groups.attribute == "stateOrProvince")
    #expect(groups.groups.prefix(3).map(\.key) == [.string("California"), .string("Arizona"), .string("Colorado")])
    #expect(groups.groups.map(\.count) == [12, 8, 8, 8, 8, 8, 6, 6, 5, 4, 4, 3, 1])
    for group in groups.groups {
      #expect(group.items.count == group.count)
      #expect(group.items.allSatisfy { $0.item.attributeSet["stateOrProvince"]?.stringValue == group.key.displayText })
    }
  }

  @Test func anItemWithSeveralValuesJoinsEachGroup() throws {
    let index = try TemporaryIndex([
      item("a", [("keywords", .list([.string("x"), .string("y")]))]), item("b", [("keywords", .list([.string("y")]))]), item("c"),
    ])
    let groups = try grouped("search * | group by keywords", in: index.index)
    #expect(groups.groups.map(\.key) == [.string("y"), .string("x")])
    #expect(groups.groups.map { $0.items.map(\.id) } == [["a", "b"], ["a"]])
    // Without the attribute, an item is in no group.
    #expect(!groups.groups.flatMap(\.items).contains { $0.id == "c" })
    #expect(try table("search * | group by keywords | count", in: index.index).rows == [[.string("y"), .number(2)], [.string("x"), .number(1)]])
  }

  @Test func groupByIsOptionalAndItemFieldsGroupToo() throws {
    #expect(try grouped("\(trails) | group stateOrProvince") == grouped("\(trails) | group by stateOrProvince"))
    let domains = try grouped(#"search domainIdentifier == "mail*" | group by domainIdentifier"#)
    #expect(Set(domains.groups.map(\.key)) == [.string("mail.inbox"), .string("mail.sent"), .string("mail.archive")])
  }

  @Test func numbersGroupByValue() throws {
    let groups = try grouped("\(trails) | group by rating")
    #expect(groups.groups.allSatisfy { if case .number = $0.key { return true } else { return false } })
    #expect(groups.groups.map(\.count).reduce(0, +) == 81)
  }

  @Test func emptyInputHasNoGroups() throws {
    #expect(try grouped("search false | group by keywords").groups.isEmpty)
    #expect(try table("search false | group by keywords | count").rows.isEmpty)
  }

  @Test func typeErrors() {
    expectError("search * | group by nosuch", id: "name.unknown-attribute", message: "unknown attribute 'nosuch'", column: 21)
    expectError("search * | group by titel", id: "name.unknown-attribute", message: "unknown attribute 'titel'", column: 21,
                help: "did you mean 'title'?")
    expectError("search * | group stateOrProvince, title", id: "stage.usage", message: "'group' needs one attribute", column: 12,
                help: "write group by ATTRIBUTE")
    expectError("search * | group by 3", id: "stage.expected-attribute", message: "group by needs an attribute name", column: 21)
    expectError("search * | count | group by title", id: "type.stage-input",
                message: "'group' needs items or scoredItems; 'count' produces count", column: 20, help: "stages that accept count: text")
  }
}

@Suite struct CountStageTests {
  @Test func countsItems() throws {
    #expect(try data(#"search domainIdentifier == "trails" | count"#) == .count(81))
    #expect(try data("search * | count") == .count(visibleSampleItems.count))
    #expect(try data("search false | count") == .count(0))
    #expect(try data(#"search domainIdentifier == "trails" | score rating | count"#) == .count(81))
  }

  @Test func afterGroupByItGivesAKeyAndCountTable() throws {
    let counts = try table(#"search domainIdentifier == "trails" | group by stateOrProvince | count"#)
    #expect(counts.columns == ["stateOrProvince", "count"])
    #expect(counts.rows.first == [.string("California"), .number(12)])
    #expect(counts.rows.last == [.string("Zürich"), .number(1)])
    #expect(counts.rows.count == 13)
    let byKeyword = try table(#"search domainIdentifier == "trails" | group by keywords | count"#)
    #expect(byKeyword.columns == ["keywords", "count"])
    let oracle = Dictionary(grouping: visibleSampleItems.filter { $0.domainIdentifier == "trails" }.flatMap {
      $0.attributeSet["keywords"]?.elements.compactMap(\.stringValue) ?? []
    }, by: { $0 }).mapValues(\.count)
    #expect(Dictionary(uniqueKeysWithValues: byKeyword.rows.map { ($0[0].displayText, Int($0[1].number ?? 0)) }) == oracle)
  }

  @Test func typeErrors() {
    expectError("search * | count 3", id: "stage.usage", message: "'count' takes no arguments", column: 18,
                help: "to count per value, write group by ATTRIBUTE | count")
    expectError("search * | count | count", id: "type.stage-input",
                message: "'count' needs items or scoredItems or groupedItems; 'count' produces count", column: 20,
                help: "stages that accept count: text")
  }
}

/// `QueryExecutor.groupCounts`: the group counts of several attributes over one search (a
/// search page's facets) from one statement, equal to each query's own table.
@Suite struct GroupCountsTests {
  static let attributes = ["domainIdentifier", "contentType", "keywords", "stateOrProvince", "rating", "authorNames"]

  func graphs(_ search: String, _ attributes: [String] = Self.attributes, in index: SearchIndex = sampleIndex.index) throws -> [QueryGraph] {
    try attributes.map { try prepare("search (\(search)) | group by \($0) | count", in: index) }
  }

  func options(_ protection: Set<String>, log: StatementLog? = nil) -> QueryOptions {
    var options = QueryOptions(scope: AccessScope(now: sampleNow, protectionClasses: protection), clock: sampleClock)
    options.statementLog = log
    return options
  }

  /// Searches and how many full-text matches their statement runs.
  @Test(arguments: [
    (#""password""#, 1), (#""trail""#, 1), (#""lake" && rating >= 4"#, 1), (#""kitchen" || "remodel""#, 1),
    (#""launch" && domainIdentifier == "notes*""#, 1), (#""nothingmatchesthis""#, 1),
    (#"domainIdentifier == "trails""#, 0), (#"domainIdentifier == "notes*" && rating >= 4"#, 0), (#"domainIdentifier == "trails" && title == "*lake*"cd"#, 0),
  ])
  func eachTableIsTheQuerysOwn(_ search: String, _ fullTextMatches: Int) throws {
    let executor = QueryExecutor(index: sampleIndex.index, registry: standardRegistry)
    // Values looked up in each match, walked in their index, and as the statement decides;
    // without and with the protection class: hidden items count in no group.
    for factor in [0, SQLCompiler.valueWalkFactor, 1_000_000] {
    for protection: Set<String> in [[], ["private"]] {
      let log = StatementLog()
      let tables = try #require(
        try SQLCompiler.$valueWalkFactor.withValue(factor) { try executor.groupCounts(graphs(search), options: options(protection, log: log)) },
        "\(search)")
      #expect(tables.count == Self.attributes.count)
      for (attribute, combined) in zip(Self.attributes, tables) {
        let own = try table("search (\(search)) | group by \(attribute) | count", protection: protection)
        #expect(combined == own, "\(search) by \(attribute), protection \(protection)")
      }
      // One statement, with the text search run once.
      #expect(log.all.count == 1, "\(log.all)")
      #expect(log.all.first.map { $0.components(separatedBy: "fts MATCH").count - 1 } == fullTextMatches, "\(log.all)")
    }
    }
  }

  @Test func theGroupsAreNonEmptyWhereTheSearchMatches() throws {
    let executor = QueryExecutor(index: sampleIndex.index, registry: standardRegistry)
    let tables = try #require(try executor.groupCounts(graphs(#""trail""#), options: options([])))
    #expect(tables.allSatisfy { !$0.rows.isEmpty })
    // Every match has one domain: the domain groups add up to the matches.
    let matches = try ids(#"search "trail""#).count
    #expect(tables[0].rows.map { $0[1].number ?? 0 }.reduce(0, +) == Double(matches))
  }

  @Test func otherQueriesAreLeftToTheirOwnExecution() throws {
    let executor = QueryExecutor(index: sampleIndex.index, registry: standardRegistry)
    // Value tests alone, or every item: each group reads its value index.
    #expect(try executor.groupCounts(graphs(#"rating >= 4 && keywords == "waterfall"c"#), options: options([])) == nil)
    let everyItem = try Self.attributes.map { try prepare("search * | group by \($0) | count") }
    #expect(try executor.groupCounts(everyItem, options: options([])) == nil)
    // Different searches, a pipeline before the grouping, and one graph alone.
    let lake = try graphs(#""lake""#), trail = try graphs(#""trail""#)
    #expect(try executor.groupCounts([lake[0], trail[1]], options: options([])) == nil)
    let topFive = try prepare(#"search "lake" | top 5 | group by domainIdentifier | count"#)
    #expect(try executor.groupCounts([topFive, lake[1]], options: options([])) == nil)
    #expect(try executor.groupCounts([lake[0]], options: options([])) == nil)
    #expect(try executor.groupCounts([], options: options([])) == nil)
  }
}
