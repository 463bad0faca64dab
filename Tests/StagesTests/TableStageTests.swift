import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex
@testable import Stages

@Suite struct TableStageTests {
  @Test func exactlyTheColumnsAsked() throws {
    let result = try table(#"search domainIdentifier == "trails" && stateOrProvince == "Utah" | table title, rating"#)
    #expect(result.columns == ["title", "rating"])
    #expect(result.rows.count == 8)
    #expect(result.rows.allSatisfy { $0.count == 2 })
    let utah = visibleSampleItems.filter { $0.attributeSet["stateOrProvince"]?.stringValue == "Utah" }
    #expect(Set(result.rows.map { $0[0].displayText }) == Set(utah.compactMap(\.attributeSet.title)))
  }

  @Test func expressionsListsDatesAndMissingValues() throws {
    let index = try TemporaryIndex([
      item("a", [("title", .string("A")), ("rating", .number(2)), ("keywords", .list([.string("x"), .string("y")])),
                 ("dueDate", .date(utc(2026, 12, 1)))]),
      item("b", [("title", .string("B"))]),
    ])
    let result = try table("search * | table title, rating * 2, keywords, dueDate, id", in: index.index)
    #expect(result.columns == ["title", "rating * 2", "keywords", "dueDate", "id"])
    #expect(result.rows == [
      [.string("A"), .number(4), .string("x, y"), .date(utc(2026, 12, 1)), .string("a")],
      [.string("B"), .null, .null, .null, .string("b")],
    ])
    let json = PipelineData.table(result).jsonValue()
    #expect(json["rows"] == [["A", 4, "x, y", "2026-12-01T00:00:00Z", "a"], ["B", nil, nil, nil, "b"]])
  }

  @Test func afterGroupByItListsKeysAndCounts() throws {
    #expect(try table(#"search domainIdentifier == "trails" | group by stateOrProvince | table"#)
      == table(#"search domainIdentifier == "trails" | group by stateOrProvince | count"#))
  }

  @Test func scoredItemsAndEmptyInput() throws {
    #expect(try table(#"search domainIdentifier == "trails" | score rating | top 2 | table title, score"#).columns == ["title", "score"])
    #expect(try table("search false | table title, rating") == Table(columns: ["title", "rating"], rows: []))
  }

  @Test func typeErrors() {
    expectError("search * | table", id: "stage.usage", message: "'table' needs at least one column", column: 12, help: "write table title, rating")
    expectError("search * | group by title | table title", id: "stage.usage",
                message: "after group by, 'table' takes no columns; it lists each key and count", column: 29)
    expectError("search * | table title rating", id: "stage.usage", message: "expected ',' between columns", column: 24)
    expectError("search * | table titel", id: "name.unknown-attribute", message: "unknown attribute 'titel'", column: 18, help: "did you mean 'title'?")
    expectError("search * | count | table title", id: "type.stage-input",
                message: "'table' needs items or scoredItems or groupedItems or table; 'count' produces count", column: 20, help: "stages that accept count: text")
  }
}
