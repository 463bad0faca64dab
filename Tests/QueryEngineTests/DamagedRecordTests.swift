import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Testing

/// A stored record that no longer decodes (a damaged file): queries go on and read that item
/// with no attributes (the executor decodes records only when they are read), and `check`
/// names the item.
@Suite struct DamagedRecordTests {
  static func damagedIndex() throws -> TemporaryIndex {
    let index = try TemporaryIndex([
      item("whole", domain: "d", [("title", .string("Alpha report")), ("rating", .number(4))]),
      item("cut", domain: "d", [("title", .string("Alpha draft")), ("rating", .number(2))]),
    ])
    let connection = try Connection(path: index.directory.appendingPathComponent("index.db").path, create: false)
    try connection.execute(#"UPDATE items SET attributes = '{"title":"Alpha dr' WHERE id = 'cut'"#)
    return index
  }

  @Test func queriesReadTheItemWithNoAttributes() throws {
    let index = try Self.damagedIndex()
    let items = try replies("search domainIdentifier == \"d\"", in: index.index).flatMap(\.content.resultItems)
    #expect(items.map(\.id).sorted() == ["cut", "whole"])
    #expect(items.first { $0.id == "cut" }?.item.attributeSet.isEmpty == true)
    #expect(items.first { $0.id == "whole" }?.item.attributeSet.title == "Alpha report")
    // The full-text index still has the item's words; its record gives nothing to show.
    #expect(try ids(#"search "draft""#, in: index.index) == ["cut"])
  }

  @Test func checkNamesTheItemWhoseRecordDoesNotDecode() throws {
    let index = try Self.damagedIndex()
    let report = try index.index.checkIntegrity()
    #expect(!report.isHealthy)
    #expect(report.lines.contains { $0.hasPrefix("records: item cut does not decode: ") }, "\(report.lines)")
    #expect(!report.lines.contains { $0.contains("item whole") }, "\(report.lines)")
    let healthy = try TemporaryIndex([item("whole", domain: "d", [("title", .string("Alpha report"))])])
    let fine = try healthy.index.checkIntegrity()
    #expect(fine.isHealthy, "\(fine.lines)")
    #expect(fine.lines.contains("records: every item's record decodes"))
  }
}
