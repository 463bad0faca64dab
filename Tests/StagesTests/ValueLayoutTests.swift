import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex
@testable import Stages

/// Schema version 5 keeps a short text's `str` only where it differs from its folded form
/// (`coalesce(str, fold)` is the text). Comparisons, sorts and groups over values that differ
/// only in case or diacritics, list values and long values must equal what the same
/// predicates and stages compute in Swift over the stored items.
@Suite struct ValueLayoutTests {
  static let long = String(repeating: "padding words ", count: 10)

  static let index: TemporaryIndex = {
    let items = [
      item("a", ("title", .string("Mist Trail")), ("state", .string("Utah")), ("tags", .list([.string("Alpha"), .string("alpha"), .string("ÄLPHA")])), ("rating", .number(4.5))),
      item("b", ("title", .string("mist trail")), ("state", .string("utah")), ("tags", .list([.string("beta")])), ("rating", .number(3))),
      item("c", ("title", .string("MIST TRAIL")), ("state", .string("UTAH")), ("tags", .list([.string("alpha"), .string("Gamma " + long)])), ("rating", .number(4.5))),
      item("d", ("title", .string("Café Müller")), ("state", .string("Oregon")), ("tags", .list([.string("café"), .string("cafe")]))),
      item("e", ("title", .string("cafe muller")), ("state", .string("oregon")), ("note", .string("Ünïcödé " + long))),
      item("f", ("title", .string("Zebra " + long)), ("note", .string("tiny"))),
      item("g", ("state", .string("Utah")), ("rating", .number(5))),
    ]
    return try! TemporaryIndex(items)
  }()

  static func item(_ id: String, _ attributes: (String, AttributeValue)...) -> SearchableItem {
    SearchableItem(uniqueIdentifier: id, domainIdentifier: "notes", attributeSet: AttributeSet(attributes))
  }

  static let predicates = [
    #"title == "Mist Trail""#,
    #"title == "mist trail""#,
    #"title == "mist trail"c"#,
    #"title == "MIST*""#,
    #"title == "mist*"c"#,
    #"title == "cafe muller"cd"#,
    #"title == "Café Müller""#,
    #"title == "cafe muller""#,
    #"title == "café müller"c"#,
    #"title == "*trail""#,
    #"title == "*Trail""#,
    #"state == "utah""#,
    #"state == "Utah""#,
    #"state == "utah"c"#,
    #"state != "Utah""#,
    #"tags == "alpha""#,
    #"tags == "Alpha""#,
    #"tags == "alpha"cd"#,
    #"tags == "ÄLPHA""#,
    #"tags == "cafe""#,
    #"tags == "café""#,
    #"tags == "cafe"d"#,
    #"tags == "gamma*"c"#,
    #"tags == "Gamma padding*""#,
    #"note == "ünïcödé*""#,
    #"note == "ünïcödé*"c"#,
    #"* == "*trail"c"#,
    #"title == "mist"cdw"#,
    #"state == "u*" && rating >= 4"#,
  ]

  @Test(arguments: predicates)
  func comparisonsEqualTheSwiftAnswer(_ predicate: String) throws {
    let pushed = try data("search \(predicate)", in: Self.index.index)
    guard case .items(let items) = try inSwift("search * | where \(predicate)", in: Self.index.index) else {
      Issue.record("not items")
      return
    }
    #expect(PushdownEquivalenceTests.same(pushed, .items(items)), "\(predicate)")
  }

  @Test(arguments: ["search * | sort title", "search * | sort title desc", "search * | sort state | limit 3", "search * | sort state desc",
                    "search * | group by state | count", "search * | group by title | count", "search * | group by tags | count",
                    "search * | group by note | count", "search * | stats avg(rating) by state", "search rating >= 4 | group by tags | count"])
  func sortsAndGroupsEqualTheSwiftAnswer(_ query: String) throws {
    let pushed = try data(query, in: Self.index.index)
    let swift = try inSwift(query, in: Self.index.index)
    #expect(PushdownEquivalenceTests.same(pushed, swift), "\(query)\nSQL:   \(pushed)\nSwift: \(swift)")
  }

  /// Values that differ only in case stay apart in a group, as they are written.
  @Test func groupsKeepTheWrittenText() throws {
    guard case .table(let table) = try data("search * | group by state | count", in: Self.index.index) else {
      Issue.record("not a table")
      return
    }
    #expect(Set(table.rows.map { $0[0] }) == Set(["Utah", "utah", "UTAH", "Oregon", "oregon"].map(Value.string)))
  }

  /// `str` is stored only for text that folding changes; the table is clustered by item.
  @Test func theTextIsStoredOnceInTheValueTable() throws {
    let (rows, definition) = try Self.index.index.read { db in
      (try db.rows("SELECT fold, str FROM vals WHERE fold IS NOT NULL ORDER BY item, attr, ord") { ($0.string(0) ?? "", $0.string(1)) },
       try db.scalar("SELECT sql FROM sqlite_master WHERE name = 'vals'")?.stringValue ?? "")
    }
    #expect(!rows.isEmpty)
    for (fold, str) in rows {
      if let str { #expect(str != fold && TextFolding.fold(str) == fold, "\(str)") } else { #expect(TextFolding.fold(fold) == fold) }
    }
    #expect(rows.contains { $0 == ("mist trail", "Mist Trail") } && rows.contains { $0 == ("mist trail", nil) })
    #expect(definition.contains("WITHOUT ROWID"))
    #expect(try Self.index.index.read { db in try db.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'vals_item'")?.int64Value } == 0)
  }
}
