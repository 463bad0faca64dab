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

  @Test func emptyInput() throws {
    #expect(try data("search false | sort rating", in: Self.index.index) == .items([]))
  }

  @Test func typeErrors() {
    expectError("search * | sort rating up", id: "stage.usage", message: "expected asc or desc after the sort key", column: 24,
                help: "write sort KEY [asc|desc], ...")
    expectError("search * | sort rating > 3", id: "type.sort-key", message: "cannot sort by a condition", column: 17)
    expectError("search * | sort", id: "stage.usage", message: "'sort' needs at least one key", column: 12, help: "write sort KEY [asc|desc], ...")
    expectError("search * | count | sort title", id: "type.stage-input", message: "'sort' needs items or scoredItems; 'count' produces count",
                column: 20, help: "stages that accept count: text")
    expectError("search * | group by title | sort title", id: "type.stage-input",
                message: "'sort' needs items or scoredItems; 'group' produces groupedItems", column: 29,
                help: "stages that accept groupedItems: count, extract, limit, select, table, text")
  }
}
