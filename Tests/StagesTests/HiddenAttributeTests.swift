import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex
@testable import Stages

/// An attribute that only hidden items carry (protected without the grant, or expired) leaves
/// no trace: it is as unknown as a name no item has, in errors and in suggestions alike.
@Suite struct HiddenAttributeTests {
  static let index: TemporaryIndex = try! TemporaryIndex.lingering([
    item("open", domain: "hr", [("title", .string("Public memo")), ("team", .string("blue"))]),
    item("sheet", domain: "hr", protection: "hr", [("title", .string("Salary sheet")), ("salaryBand", .string("L5"))]),
    item("old", domain: "hr", expiration: utc(2026, 1, 1), [("title", .string("Old memo")), ("severanceTerms", .string("x"))]),
  ])

  /// The diagnostics of preparing `text` for a caller granted `protection`.
  func diagnostics(_ text: String, protection: Set<String> = []) throws -> [Diagnostic] {
    let options = QueryOptions(scope: AccessScope(now: sampleNow, protectionClasses: protection), clock: sampleClock)
    do {
      _ = try QueryExecutor(index: Self.index.index, registry: standardRegistry).prepare(text, options: options)
      return []
    } catch {
      guard let diagnostics = error.diagnostics else { throw error }
      return diagnostics.diagnostics
    }
  }

  @Test(arguments: [
    (#"salaryBnd == "x""#, "salaryBnd"), (#"search * | sort salaryBnd"#, "salaryBnd"),
    (#"severanceTerm == "x""#, "severanceTerm"), (#"search * | group by severanceTerm | count"#, "severanceTerm"),
  ])
  func aMisspeltHiddenAttributeIsNeverSuggested(query: String, name: String) throws {
    let found = try diagnostics(query)
    #expect(found.first?.message == "unknown attribute '\(name)'", "\(found)")
    #expect(found.allSatisfy { !($0.help ?? "").contains("salaryBand") && !($0.help ?? "").contains("severanceTerms") }, "\(found)")
  }

  @Test func aHiddenAttributeIsAsUnknownAsOneNoItemHas() throws {
    let hidden = try diagnostics(#"salaryBand == "L5""#)
    let never = try diagnostics(#"zorkBand == "L5""#)
    #expect(hidden.map(\.id) == ["name.unknown-attribute"])
    #expect(hidden.first?.message == "unknown attribute 'salaryBand'")
    #expect(hidden.map(\.id) == never.map(\.id))
    #expect(try diagnostics(#"severanceTerms == "x""#).first?.message == "unknown attribute 'severanceTerms'")
  }

  @Test func theGrantShowsTheAttributeAndSuggestsIt() throws {
    #expect(try diagnostics(#"salaryBand == "L5""#, protection: ["hr"]).isEmpty)
    let found = try diagnostics(#"salaryBnd == "x""#, protection: ["hr"])
    #expect(found.first?.help == "did you mean 'salaryBand'?")
    // Expired items stay hidden whatever is granted.
    #expect(try diagnostics(#"severanceTerms == "x""#, protection: ["hr"]).first?.message == "unknown attribute 'severanceTerms'")
  }

  @Test func theCatalogueOfAScopeHasOnlyVisibleCustomAttributes() throws {
    let index = Self.index.index
    #expect(try index.catalog(scope: AccessScope(now: sampleNow)).customTypes.keys.sorted() == ["team"])
    #expect(try index.catalog(scope: AccessScope(now: sampleNow, protectionClasses: ["hr"])).customTypes.keys.sorted() == ["salaryBand", "team"])
    #expect(try index.catalog(scope: AccessScope(now: utc(2025, 1, 1))).customTypes.keys.sorted() == ["severanceTerms", "team"])
    // The owner's catalogue still has every attribute, to decode stored items.
    #expect(try index.catalog().customTypes.keys.sorted() == ["salaryBand", "severanceTerms", "team"])
  }

  /// Every query reads the visible catalogue, so its statements must start from the
  /// attribute's values and look items up by rowid: never a loop over every item (or a Bloom
  /// filter built from them), which cost 0.3 s per query on a 64k-item catalogue.
  @Test func theVisibleCatalogueNeverReadsEveryItem() throws {
    let items = (0..<400).map { number in
      // Lists of values, as a package's dependencies: more value rows than items is what
      // made SQLite prefer a loop over the items.
      item(
        "item-\(number)", protection: number.isMultiple(of: 3) ? "hr" : nil,
        [("title", .string("Item \(number)")), ("team", .list((0..<20).map { .string("t\((number + $0) % 50)") }))])
    }
    let scratch = try TemporaryIndex(items)
    try scratch.index.pool.withWriter { db in try db.execute("ANALYZE") }
    let condition = AccessScope(now: sampleNow).sqlCondition(alias: "i", indexID: scratch.index.indexID)
    let loops = try scratch.index.read { db in
      try db.rows("EXPLAIN QUERY PLAN " + SearchIndex.attributeHasItemsSQL(where: condition.sql), (0..<3).flatMap { _ in [SQLValue.integer(1)] + condition.arguments }) {
        $0.string(3) ?? ""
      }
    }
    #expect(loops.contains { $0.hasPrefix("SEARCH v USING") && $0.contains("INDEX vals_fold") }, "\(loops)")
    // Items only by rowid, per value row.
    #expect(!loops.contains { ($0.hasPrefix("SCAN i") || $0.hasPrefix("SEARCH i")) && !$0.contains("INTEGER PRIMARY KEY") }, "\(loops)")
    #expect(!loops.contains { $0.contains("BLOOM FILTER") || $0.contains("vals_item") }, "\(loops)")
    #expect(try scratch.index.catalog(scope: AccessScope(now: sampleNow)).customTypes.keys.sorted() == ["team"])
  }

  @Test func anAttributeNoItemHasStaysKnown() throws {
    // A declared attribute, or another named index's, says nothing about this index's items.
    let scratch = try TemporaryIndex([item("open", [("title", .string("Open"))])], declaring: [("declaredOnly", .number)])
    let other = try SearchIndex(path: scratch.index.path, name: "other")
    try other.indexSearchableItems([item("x", [("title", .string("X")), ("otherOnly", .string("y"))])])
    #expect(try scratch.index.catalog(scope: AccessScope(now: sampleNow)).customTypes.keys.sorted() == ["declaredOnly", "otherOnly"])
  }

  @Test func engagingAHiddenItemIsLikeEngagingAMissingOne() throws {
    let scratch = try TemporaryIndex([
      item("open", [("title", .string("Open"))]), item("sheet", protection: "hr", [("title", .string("Sheet"))]),
      item("old", expiration: utc(2026, 1, 1), [("title", .string("Old"))]),
    ])
    let index = scratch.index
    let scope = AccessScope(now: sampleNow)
    #expect(try index.recordEngagement(withIdentifiers: ["sheet"], scope: scope) == ["sheet"])
    #expect(try index.recordEngagement(withIdentifiers: ["old"], scope: scope) == ["old"])
    #expect(try index.recordEngagement(withIdentifiers: ["missing"], scope: scope) == ["missing"])
    #expect(try index.recordEngagement(withIdentifiers: ["open", "sheet"], scope: scope) == ["sheet"])
    #expect(try index.recordEngagement(withIdentifiers: ["sheet"], scope: AccessScope(now: sampleNow, protectionClasses: ["hr"])).isEmpty)
    // Nothing was recorded for the refused batches: only the granted call counted.
    let engagement = try index.read { db in
      try db.rows("SELECT id, engagement FROM items ORDER BY id") { "\($0.string(0) ?? ""):\($0.int64(1))" }
    }
    #expect(engagement == ["old:0", "open:0", "sheet:1"])
  }
}
