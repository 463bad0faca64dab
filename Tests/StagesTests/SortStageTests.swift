import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex
@testable import Stages

@Suite struct SortStageTests {
  static let index: TemporaryIndex = try! TemporaryIndex.lingering([
    item("a", [("title", .string("banana")), ("rating", .number(3)), ("keywords", .list([.string("z"), .string("a")]))]),
    item("b", [("title", .string("Apple")), ("rating", .number(5))]),
    item("c", [("title", .string("Zürich")), ("keywords", .list([.string("m")]))]),
    item("d", [("title", .string("zurich")), ("rating", .number(3))]),
    item("e", [("title", .string("cherry")), ("rating", .number(1)), ("keywords", .list([.string("b")]))]),
  ])

  func sorted(_ keys: String) throws -> [String] { try ids("search * | sort \(keys)", in: Self.index.index) }
  func sortedInSwift(_ keys: String) throws -> [String] { try inSwift("search * | sort \(keys)", in: Self.index.index).resultItems.map(\.id) }

  @Test func ascendingAndDescendingWithMissingValuesLast() throws {
    #expect(try sorted("rating") == ["e", "a", "d", "b", "c"])
    #expect(try sorted("rating asc") == ["e", "a", "d", "b", "c"])
    #expect(try sorted("rating desc") == ["b", "a", "d", "e", "c"])
  }

  @Test func textIgnoresCaseAndDiacritics() throws {
    #expect(try sorted("title") == ["b", "a", "e", "c", "d"])
    #expect(try sorted("title desc") == ["c", "d", "e", "a", "b"])
  }

  @Test func severalKeys() throws {
    #expect(try sorted("rating desc, title desc") == ["b", "d", "a", "e", "c"])
    #expect(try sorted("rating, title") == ["e", "a", "d", "b", "c"])
  }

  @Test func aListSortsByItsFirstValue() throws {
    #expect(try sorted("keywords") == ["e", "c", "a", "b", "d"])
  }

  @Test func swiftGivesTheSameOrder() throws {
    for keys in ["rating", "rating desc", "title", "title desc", "rating desc, title desc", "keywords", "keywords desc", "rating * -1"] {
      #expect(try sortedInSwift(keys) == sorted(keys), "\(keys)")
    }
  }

  @Test func expressionsAndScoresSortInSwift() throws {
    #expect(try sorted("rating * -1") == ["b", "a", "d", "e", "c"])
    #expect(try ids("search * | score rating | sort score", in: Self.index.index) == ["c", "e", "a", "d", "b"])
  }

  @Test func byBeforeTheKeysReadsAsWithout() throws {
    #expect(try sorted("by rating desc") == sorted("rating desc"))
    #expect(try sorted("by title, rating") == sorted("title, rating"))
    // A lone `by` (or `by desc`) names an attribute.
    expectError("search * | sort by", id: "name.unknown-attribute", message: "unknown attribute 'by'", column: 17)
    expectError("search * | sort by desc", id: "name.unknown-attribute", message: "unknown attribute 'by'", column: 17)
  }

  @Test func aTableSortsByItsColumns() throws {
    let trails = #"search domainIdentifier == "trails""#
    let stats = try table("\(trails) | stats avg(distance), count() by stateOrProvince")
    let average = try #require(stats.columns.firstIndex(of: "avg(distance)"))
    let byAverage = stats.rows.sorted { $0[average].number! > $1[average].number! }
    #expect(try table("\(trails) | stats avg(distance), count() by stateOrProvince | sort avg(distance) desc").rows == byAverage)
    #expect(try table(#"\#(trails) | stats avg(distance), count() by stateOrProvince | sort by "avg(distance)" desc"#).rows == byAverage)
    #expect(try table("\(trails) | stats avg(distance), count() by stateOrProvince | sort avg(distance)").rows == byAverage.reversed())
    // Ties keep the table's order (keys ascending); a second key breaks them.
    let counts = try table("\(trails) | group by stateOrProvince | count")
    let stable = counts.rows.enumerated().sorted { a, b in
      a.element[1].number! != b.element[1].number! ? a.element[1].number! < b.element[1].number! : a.offset < b.offset
    }.map(\.element)
    #expect(try table("\(trails) | group by stateOrProvince | count | sort count").rows == stable)
    let names = try table("\(trails) | group by stateOrProvince | count | sort count, stateOrProvince desc").rows
    #expect(names.map { $0[1] } == stable.map { $0[1] })
    for (a, b) in zip(names, names.dropFirst()) where a[1] == b[1] {
      #expect(!SortStage.Bound.less(a[0], b[0]), "\(a) before \(b)")
    }
    #expect(try table("\(trails) | group by stateOrProvince | count | sort count desc | limit 1").rows == [[.string("California"), .number(12)]])
  }

  /// The columns of a table made by `stats`, a count of groups or `table` are known when the
  /// query is bound; a named statement's table is checked when it arrives.
  @Test func aTableSortOnAMissingColumnIsAnError() throws {
    let stats = #"search domainIdentifier == "trails" | stats avg(distance) by stateOrProvince"#
    expectError("\(stats) | sort max(distance)", id: "name.unknown-column", message: "the table has no column 'max(distance)'", column: 85,
                help: "did you mean 'avg(distance)'?")
    expectError("\(stats) | fork (count) (sort stateOrProvince, avg(distance) desc, rating)", id: "type.stage-input",
                message: "'count' needs items or scoredItems or groupedItems; 'stats' produces table", column: 86,
                help: "stages that accept table: limit, select, sort, table, text")
    expectError("\(stats) | fork (text) (sort stateOrProvince, avg(distance) desc, rating)", id: "name.unknown-column",
                message: "the table has no column 'rating'", column: 135, help: "its columns are stateOrProvince, avg(distance)")
    expectError("search * | table title, rating | sort ratin", id: "name.unknown-column", message: "the table has no column 'ratin'",
                column: 39, help: "did you mean 'rating'?")
    expectError("search * | group by keywords | table | sort keyword", id: "name.unknown-column", message: "the table has no column 'keyword'",
                column: 45, help: "did you mean 'keywords'?")
    let error = #expect(throws: QueryError.self) { try data("t = \(stats); t | sort max(distance)", in: sampleIndex.index) }
    #expect((error?.underlying as? QueryRuntimeError)?.message == "the table has no column 'max(distance)'; columns are stateOrProvince, avg(distance)")
    expectError("search * | group by title | count | sort 3", id: "stage.expected-column",
                message: "sorting a table needs a column of the table, such as count or avg(distance)", column: 42)
  }

  @Test func emptyInput() throws {
    #expect(try data("search false | sort rating", in: Self.index.index) == .items([]))
  }

  @Test func typeErrors() {
    expectError("search * | sort rating up", id: "stage.usage", message: "expected asc or desc after the sort key", column: 24,
                help: "write sort [by] KEY [asc|desc], ...")
    expectError("search * | sort rating descending", id: "stage.usage", message: "expected asc or desc after the sort key", column: 24,
                help: "did you mean 'desc'?")
    expectError("search * | sort by rating DESC, title Ascending", id: "stage.usage", message: "expected asc or desc after the sort key",
                column: 27, help: "did you mean 'desc'?")
    expectError("search * | sort rating > 3", id: "type.sort-key", message: "cannot sort by a condition", column: 17)
    expectError("search * | sort", id: "stage.usage", message: "'sort' needs at least one key", column: 12, help: "write sort [by] KEY [asc|desc], ...")
    expectError("search * | count | sort title", id: "type.stage-input", message: "'sort' needs items or scoredItems or table; 'count' produces count",
                column: 20, help: "stages that accept count: text")
    expectError("search * | group by title | sort title", id: "type.stage-input",
                message: "'sort' needs items or scoredItems or table; 'group' produces groupedItems", column: 29,
                help: "stages that accept groupedItems: count, extract, limit, select, table, text")
  }
}
