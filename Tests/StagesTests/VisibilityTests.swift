import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex
@testable import Stages

/// Protected and expired items never reach items, counts, groups, statistics or tables
/// unless the scope grants their class; expired items reach none.
@Suite struct VisibilityTests {
  static let index: TemporaryIndex = try! TemporaryIndex.lingering([
    item("open-1", domain: "d", [("title", .string("open one")), ("rating", .number(1)), ("keywords", .list([.string("k")]))]),
    item("open-2", domain: "d", [("title", .string("open two")), ("rating", .number(2)), ("keywords", .list([.string("k")]))]),
    item("private", domain: "d", protection: "private", [("title", .string("secret one")), ("rating", .number(100)), ("keywords", .list([.string("k"), .string("p")]))]),
    item("finance", domain: "e", protection: "finance", [("title", .string("secret two")), ("rating", .number(1000)), ("keywords", .list([.string("f")]))]),
    item("expired", domain: "d", expiration: utc(2026, 1, 1), [("title", .string("gone one")), ("rating", .number(10000)), ("keywords", .list([.string("x")]))]),
  ])

  func run(_ text: String, _ protection: Set<String> = []) throws -> PipelineData {
    try data(text, in: Self.index.index, protection: protection)
  }

  @Test(arguments: [
    "search *", #"search "one""#, #"search title == "*one*""#, "search * | sort rating desc", "search * | score rating | top 5",
    "search * | sample 10", "search * | where rating > 0", #"search * | people "x" role any | count"#,
    "a = search *; b = search rating > 0; merge(a, b)", #"search * | fork (count) (top 10)"#,
    #"search title == "zzz" || title == "secret*""#, #"search rating < 0 || rating > 50"#, #"search false || "gone""#,
    #"search * | people "open one" | where title == "zzz" || rating > 50"#, #"search !(title == "open*") || rating > 3"#,
  ])
  func itemsAreHidden(query: String) throws {
    for reply in try replies(query, in: Self.index.index) {
      #expect(Set(reply.content.resultItems.map(\.id)).isSubset(of: ["open-1", "open-2"]), "\(query)")
    }
  }

  @Test func countsGroupsStatisticsAndTables() throws {
    #expect(try run("search * | count") == .count(2))
    #expect(try run("search * | limit 100 | count") == .count(2))
    #expect(try run("search * | score 1 | count") == .count(2))
    #expect(try table("search * | group by keywords | count", in: Self.index.index).rows == [[.string("k"), .number(2)]])
    #expect(try table("search * | group by domainIdentifier | count", in: Self.index.index).rows == [[.string("d"), .number(2)]])
    #expect(try run("search * | stats max(rating)") == .statistic(Statistic(function: "max", attribute: "rating", value: .number(2))))
    #expect(try run("search * | stats sum(rating)") == .statistic(Statistic(function: "sum", attribute: "rating", value: .number(3))))
    #expect(try run("search * | stats count") == .statistic(Statistic(function: "count", attribute: "*", value: .number(2))))
    #expect(try table("search * | stats sum(rating) by keywords", in: Self.index.index).rows == [[.string("k"), .number(3)]])
    #expect(try table("search * | sort title | table title", in: Self.index.index).rows == [[.string("open one")], [.string("open two")]])
    #expect(try run("search * | text") == .text(TextSummary(header: "2 items found.", body: "- open one\n- open two")))
    #expect(try run("let m = search * | stats max(rating); search rating == $m | count") == .count(1))
    #expect(try run("search rating < 0 || rating > 50 | count") == .count(0))
    #expect(try run("search rating < 0 || rating > 50 | stats count") == .statistic(Statistic(function: "count", attribute: "*", value: .number(0))))
    #expect(try table("search rating < 0 || rating > 50 | group by keywords | count", in: Self.index.index).rows.isEmpty)
  }

  @Test func aGrantedClassIsVisibleEverywhere() throws {
    #expect(try run("search * | count", ["private"]) == .count(3))
    #expect(try run("search * | stats max(rating)", ["private"]) == .statistic(Statistic(function: "max", attribute: "rating", value: .number(100))))
    #expect(try table("search * | group by keywords | count", in: Self.index.index, protection: ["private"]).rows
      == [[.string("k"), .number(3)], [.string("p"), .number(1)]])
    #expect(try run("search * | count", ["private", "finance"]) == .count(4))
    #expect(try run("search * | stats sum(rating)", ["private", "finance"]) == .statistic(Statistic(function: "sum", attribute: "rating", value: .number(1103))))
    #expect(try run("search * | count", ["finance", "nosuchclass"]) == .count(3))
  }

  @Test func expiredItemsAreVisibleToNoScope() throws {
    let everything: Set<String> = ["private", "finance", "expired", "public", ""]
    #expect(try run("search * | count", everything) == .count(4))
    #expect(try run(#"search title == "gone*" | count"#, everything) == .count(0))
    #expect(try run("search * | stats max(rating)", everything) == .statistic(Statistic(function: "max", attribute: "rating", value: .number(1000))))
    #expect(try table("search * | group by keywords | count", in: Self.index.index, protection: everything).rows.allSatisfy { $0[0] != .string("x") })
  }

  @Test func sampleCountsMatchTheReadme() throws {
    // 11 protected and 5 expired items of 251 are not shown without classes.
    #expect(try data("search * | count") == .count(235))
    #expect(try data("search * | count", protection: ["private", "finance"]) == .count(246))
    #expect(try data(#"search * | stats count by domainIdentifier"#, protection: []).jsonValue()["rows"]?.arrayValue?.count == 7)
  }
}
