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
