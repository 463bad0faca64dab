import Foundation
import Testing
@testable import SearchIndex

/// A rewritten item's value rows are brought in line with its new attributes row by row
/// (`IndexWriter.updateValueRows`): whatever the edit, the file holds the rows, and the
/// value index entries, that writing the new versions afresh gives.
@Suite struct ValueRowRewriteTests {
  static let long = String(repeating: "A description long enough to stay in the record only. ", count: 3)

  static func item(_ id: String, _ attributes: [(String, AttributeValue)]) -> SearchableItem {
    SearchableItem(uniqueIdentifier: id, domainIdentifier: "trails", attributeSet: AttributeSet(attributes))
  }

  static let originals = [
    item("case", [("title", .string("Mist Trail")), ("stateOrProvince", .string("Oregon"))]),
    item("number", [("title", .string("Half Dome")), ("rating", .number(3))]),
    item("shrinks", [("title", .string("Angels Landing")), ("keywords", .list([.string("a"), .string("b"), .string("c")]))]),
    item("grows", [("title", .string("Élan")), ("keywords", .list([.string("a")]))]),
    item("reorders", [("title", .string("Bright Angel")), ("keywords", .list([.string("a"), .string("b")]))]),
    item("loses", [("title", .string("Cascade")), ("subject", .string("waterfalls")), ("rating", .number(2))]),
    item("gains", [("title", .string("Lost Lake"))]),
    item("lengthens", [("title", .string("Rim")), ("contentDescription", .string("short"))]),
    item("shortens", [("title", .string("Ridge")), ("contentDescription", .string(long))]),
    item("dates", [("title", .string("Pass")), ("contentCreationDate", .date(Date(timeIntervalSince1970: 1_767_225_600)))]),
    item("same", [("title", .string("Summit")), ("rating", .number(5)), ("keywords", .list([.string("x")]))]),
    item("twice", [("title", .string("Falls")), ("rating", .number(1))]),
  ]

  static let edits = [
    item("case", [("title", .string("Mist Trail")), ("stateOrProvince", .string("OREGON"))]),
    item("number", [("title", .string("Half Dome")), ("rating", .number(4.5))]),
    item("shrinks", [("title", .string("Angels Landing")), ("keywords", .list([.string("a")]))]),
    item("grows", [("title", .string("Élan")), ("keywords", .list([.string("a"), .string("b"), .string("c")]))]),
    item("reorders", [("title", .string("Bright Angel")), ("keywords", .list([.string("b"), .string("a")]))]),
    item("loses", [("title", .string("Cascade")), ("rating", .number(2))]),
    item("gains", [("title", .string("Lost Lake")), ("trailhead", .string("North Fork")), ("rating", .number(4))]),
    item("lengthens", [("title", .string("Rim")), ("contentDescription", .string(long))]),
    item("shortens", [("title", .string("Ridge")), ("contentDescription", .string("short now"))]),
    item("dates", [("title", .string("Pass")), ("contentCreationDate", .date(Date(timeIntervalSince1970: 1_767_312_000)))]),
    item("same", [("title", .string("Summit")), ("rating", .number(5)), ("keywords", .list([.string("x")]))]),
    item("twice", [("title", .string("Falls")), ("rating", .number(2)), ("keywords", .list([.string("k")]))]),
  ]

  static let twiceAgain = item("twice", [("title", .string("Falls Again")), ("rating", .number(3))])

  /// Every value row and index entry, by item identifier and attribute name (rowids and
  /// attribute ids depend on the order things were written in).
  static func rows(_ index: SearchIndex) throws -> [String] {
    try index.read { db in
      let names = "JOIN items i ON i.rowid = v.item JOIN attributes a ON a.id = v.attr"
      return try db.rows(
        "SELECT i.id || ' ' || a.name || ' ' || v.ord || ' ' || quote(v.num) || ' ' || quote(v.fold) || ' ' || quote(v.str) FROM vals v \(names) ORDER BY i.id, a.name, v.ord"
      ) { $0.string(0) ?? "" }
        + db.rows("SELECT i.id, a.name, v.fold, coalesce(v.str, '') FROM vals v INDEXED BY vals_fold \(names) WHERE v.fold IS NOT NULL ORDER BY 1, 2, 3, 4") {
          "fold \($0.string(0) ?? "") \($0.string(1) ?? "") \($0.string(2) ?? "") \($0.string(3) ?? "")"
        }
        + db.rows("SELECT i.id, a.name, v.num FROM vals v INDEXED BY vals_num \(names) WHERE v.num IS NOT NULL ORDER BY 1, 2, 3") {
          "num \($0.string(0) ?? "") \($0.string(1) ?? "") \($0.double(2))"
        }
    }
  }

  @Test func aRewrittenItemHoldsTheRowsOfItsNewVersion() throws {
    try withTemporaryDirectory { directory in
      let edited = try SearchIndex(path: directory.appendingPathComponent("edited.db").path)
      try edited.indexSearchableItems(Self.originals)
      try edited.write { writer in
        for item in Self.edits { try writer.upsert(item) }
        try writer.upsert(Self.twiceAgain)
      }
      let fresh = try SearchIndex(path: directory.appendingPathComponent("fresh.db").path)
      let final = Self.edits.map { $0.uniqueIdentifier == "twice" ? Self.twiceAgain : $0 }
      try fresh.indexSearchableItems(final)
      let rows = try Self.rows(edited)
      #expect(rows == (try Self.rows(fresh)))
      #expect(rows.contains { $0.hasPrefix("case stateOrProvince 0 NULL 'oregon' 'OREGON'") }, "\(rows)")
      #expect(!rows.contains { $0.hasPrefix("loses subject") })
      #expect(rows.contains { $0.hasPrefix("lengthens contentDescription 0 NULL NULL NULL") })
      let report = try edited.checkIntegrity()
      #expect(report.isHealthy, "\(report.lines)")

      // Edited back, one transaction each: the originals' rows again.
      for item in Self.originals { try edited.indexSearchableItems([item]) }
      let original = try SearchIndex(path: directory.appendingPathComponent("original.db").path)
      try original.indexSearchableItems(Self.originals)
      #expect(try Self.rows(edited) == Self.rows(original))
      #expect(try edited.checkIntegrity().isHealthy)
    }
  }
}
