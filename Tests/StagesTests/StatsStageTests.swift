import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex
@testable import Stages

@Suite struct StatsStageTests {
  static let trails = visibleSampleItems.filter { $0.domainIdentifier == "trails" }
  static let distances = trails.compactMap { $0.attributeSet["distance"]?.numericValue }

  func statistic(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Statistic? {
    guard case .statistic(let statistic) = try data(text, sourceLocation: sourceLocation) else {
      Issue.record("\(text) gave no statistic", sourceLocation: sourceLocation)
      return nil
    }
    return statistic
  }

  func number(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Double? {
    try statistic(text, sourceLocation: sourceLocation)?.value.number
  }

  func close(_ a: Double?, _ b: Double) -> Bool { a.map { abs($0 - b) < 1e-9 * max(1, abs(b)) } ?? false }

  @Test func allSevenFunctions() throws {
    let values = Self.distances.sorted()
    let n = Double(values.count)
    let mean = values.reduce(0, +) / n
    let variance = values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / (n - 1)
    let median = values.count % 2 == 1 ? values[values.count / 2] : (values[values.count / 2 - 1] + values[values.count / 2]) / 2
    let q = #"search domainIdentifier == "trails" | stats"#
    #expect(try number("\(q) count(distance)") == n)
    #expect(try close(number("\(q) sum(distance)"), values.reduce(0, +)))
    #expect(try close(number("\(q) avg(distance)"), mean))
    #expect(try number("\(q) min(distance)") == values.first)
    #expect(try number("\(q) max(distance)") == values.last)
    #expect(try number("\(q) median(distance)") == median)
    #expect(try close(number("\(q) stddev(distance)"), variance.squareRoot()))
    #expect(try number("\(q) count") == 81)
  }

  @Test func theStatisticNamesItsFunctionAndAttribute() throws {
    let result = try statistic(#"search domainIdentifier == "trails" | stats max(rating)"#)
    #expect(result?.function == "max")
    #expect(result?.attribute == "rating")
    #expect(try statistic("search * | stats count")?.attribute == "*")
  }

  @Test func byGivesAColumnPerStatisticAfterTheKey() throws {
    let result = try table(#"search domainIdentifier == "trails" | stats avg(distance) by stateOrProvince"#)
    #expect(result.columns == ["stateOrProvince", "avg(distance)"])
    #expect(result.rows.count == 13)
    let utah = Self.trails.filter { $0.attributeSet["stateOrProvince"]?.stringValue == "Utah" }.compactMap { $0.attributeSet["distance"]?.numericValue }
    let row = try #require(result.rows.first { $0[0] == .string("Utah") })
    #expect(close(row[1].number, utah.reduce(0, +) / Double(utah.count)))
    let several = try table(#"search domainIdentifier == "trails" | stats avg(distance), max(rating), count by stateOrProvince"#)
    #expect(several.columns == ["stateOrProvince", "avg(distance)", "max(rating)", "count"])
    #expect(several.rows.map { $0[0] } == result.rows.map { $0[0] })
    #expect(several.rows.first { $0[0] == .string("California") }?[3] == .number(12))
  }

  @Test func severalStatisticsWithoutByGiveOneRow() throws {
    let result = try table(#"search domainIdentifier == "trails" | stats min(rating), max(rating)"#)
    #expect(result.columns == ["min(rating)", "max(rating)"])
    #expect(result.rows.count == 1)
  }

  @Test func datesStayDates() throws {
    let newest = Self.trails.compactMap { $0.attributeSet["completionDate"]?.numericValue }.max()!
    #expect(try statistic(#"search domainIdentifier == "trails" | stats max(completionDate)"#)?.value == .date(Date(timeIntervalSince1970: newest)))
    guard case .date? = try statistic(#"search domainIdentifier == "trails" | stats avg(completionDate)"#)?.value else { Issue.record(); return }
    guard case .number? = try statistic(#"search domainIdentifier == "trails" | stats stddev(completionDate)"#)?.value else { Issue.record(); return }
  }

  @Test func missingValuesAreSkippedAndEmptyInputsHaveNoValue() throws {
    // 40 of the 81 trails have a completion date.
    #expect(try number(#"search domainIdentifier == "trails" | stats count(completionDate)"#) == 40)
    #expect(try statistic("search false | stats avg(rating)")?.value == .null)
    #expect(try statistic("search false | stats sum(rating)")?.value == .number(0))
    #expect(try statistic("search false | stats count")?.value == .number(0))
    #expect(try statistic("search false | stats stddev(rating)")?.value == .null)
    #expect(try statistic(#"search title == "Mist Trail" | stats stddev(rating)"#)?.value == .null)
  }

  @Test func everyGroupGetsARowEvenWithoutValues() throws {
    let result = try table(#"search domainIdentifier == "mail*" || domainIdentifier == "trails" | stats sum(distance), avg(distance) by domainIdentifier"#)
    #expect(Set(result.rows.map { $0[0].displayText }) == ["trails", "mail.inbox", "mail.sent", "mail.archive"])
    let inbox = try #require(result.rows.first { $0[0] == .string("mail.inbox") })
    #expect(inbox[1] == .number(0) && inbox[2] == .null)
  }

  @Test func multiValuedAttributesCountEachValue() throws {
    let index = try TemporaryIndex([
      item("a", [("scores", .list([.number(1), .number(3)])), ("tag", .list([.string("x"), .string("y")]))]),
      item("b", [("scores", .list([.number(5)])), ("tag", .list([.string("y")]))]),
    ])
    #expect(try data("search * | stats avg(scores)", in: index.index) == .statistic(Statistic(function: "avg", attribute: "scores", value: .number(3))))
    #expect(try data("search * | stats count(scores)", in: index.index) == .statistic(Statistic(function: "count", attribute: "scores", value: .number(3))))
    #expect(try table("search * | stats sum(scores) by tag", in: index.index).rows == [[.string("x"), .number(4)], [.string("y"), .number(9)]])
  }

  @Test func typeErrors() {
    expectError("search * | stats avg(title)", id: "type.stats-not-numeric", message: "avg needs a number or date attribute; 'title' is not",
                column: 22, help: "count(title) counts the items that have it")
    expectError("search * | stats sum(dueDate)", id: "type.stats-date-sum", message: "sum of dates has no meaning", column: 18)
    expectError("search * | stats avgg(rating)", id: "stats.unknown-function", message: "unknown statistic 'avgg'", column: 18,
                help: "did you mean 'avg'?")
    expectError("search * | stats mean(rating)", id: "stats.unknown-function", message: "unknown statistic 'mean'", column: 18,
                help: "statistics are count, sum, avg, min, max, median, stddev")
    expectError("search * | stats", id: "stage.usage", message: "'stats' needs at least one function", column: 12,
                help: "write stats FUNCTION(ATTRIBUTE), ... [by ATTRIBUTE]")
    expectError("search * | stats avg(rating) | sort rating", id: "type.stage-input",
                message: "'sort' needs items or scoredItems or table; 'stats' produces statistic", column: 32, help: "stages that accept statistic: text")
    expectError("search * | stats avg(rating) by nosuch", id: "name.unknown-attribute", message: "unknown attribute 'nosuch'", column: 33)
  }
}
