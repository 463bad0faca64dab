import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Stages
import Testing

/// Protected and expired items never show up outside the granted scope: not as items, nor in
/// counts, groups, statistics or tables. Property: every query over an index holding hidden
/// items answers exactly as the same query over an index without them.
@Suite struct AccessControlTests {
  static let now = ISO8601.parse("2026-11-29T12:00:00Z")!

  /// Items with words, keywords and ratings; `hidden` adds protected and expired ones.
  static func items(hidden: Bool) -> [SearchableItem] {
    var generator = SplitMix(state: 7)
    var result: [SearchableItem] = []
    for n in 0..<300 {
      let words = (0..<6).map { _ in "w\(generator.next() % 25)" }.joined(separator: " ")
      let isProtected = n % 7 == 0, isExpired = n % 11 == 0
      if !hidden && (isProtected || isExpired) { continue }
      var item = SearchableItem(
        uniqueIdentifier: "i\(n)", domainIdentifier: n % 3 == 0 ? "mail.inbox" : "notes",
        attributeSet: AttributeSet([
          ("title", .string("Item \(n) \(words)")), ("keywords", .list([.string("k\(n % 5)"), .string("k\(n % 3 + 5)")])),
          ("rating", .number(Double(n % 6))), ("contentModificationDate", .date(now.addingTimeInterval(-Double(n) * 86_400))),
        ]))
      if isProtected { item.protectionClass = "private" }
      if isExpired { item.expirationDate = now.addingTimeInterval(-3600) }
      result.append(item)
    }
    return result
  }

  static func index(hidden: Bool) throws -> SearchIndex {
    let index = try SearchIndex(path: TemporaryFiles.database("acl"))
    try index.indexSearchableItems(items(hidden: hidden))
    return index
  }

  /// Random queries over every kind of reply.
  static func queries(count: Int) -> [String] {
    var generator = SplitMix(state: 42)
    var queries: [String] = []
    for _ in 0..<count {
      let a = generator.next() % 25, b = generator.next() % 25, k = generator.next() % 8, r = generator.next() % 6
      switch generator.next() % 10 {
      case 0: queries.append("search keywords == \"k\(k)\" | count")
      case 1: queries.append("search \"w\(a)\" | table title")
      case 2: queries.append("search rating >= \(r) | group by keywords | count")
      case 3: queries.append("search domainIdentifier == \"mail*\" | stats avg(rating), max(rating), count")
      case 4: queries.append("search \"w\(a)\" || \"w\(b)\" | top 10")
      case 5: queries.append("search * | stats median(rating) by domainIdentifier")
      case 6: queries.append("search contentModificationDate >= $time.today(-\(a * 8)) | count")
      case 7: queries.append("search * | group by keywords | select max-by count")
      case 8: queries.append("search keywords == \"k\(k)\" | sort rating desc | limit 5 | table title, rating")
      default: queries.append("search \"w\(a)\" | score rating + relevance | top 5")
      }
    }
    return queries
  }

  static func answer(_ query: String, index: SearchIndex, grant: Set<String> = []) throws -> [String] {
    let executor = QueryExecutor(index: index, registry: StandardLibrary.registry())
    let options = QueryOptions(scope: AccessScope(now: now, protectionClasses: grant),
                               clock: QueryClock(now: now, timeZone: TimeZone(identifier: "UTC")!))
    var replies: [String] = []
    try executor.run(query, options: options) { reply in
      if !reply.isPartial { replies.append(reply.content.jsonValue().compactText) }
    }
    return replies
  }

  @Test func hiddenItemsNeverChangeAnAnswer() throws {
    let withHidden = try Self.index(hidden: true)
    let withoutHidden = try Self.index(hidden: false)
    for query in Self.queries(count: 120) {
      let a = try Self.answer(query, index: withHidden), b = try Self.answer(query, index: withoutHidden)
      if query.contains("\"w") {
        // Text ranking uses collection statistics, which count every row: compare what is
        // returned, not the order. No hidden item may appear.
        for n in 0..<300 where n % 7 == 0 || n % 11 == 0 {
          #expect(!a.joined().contains("\"Item \(n) "), "\(query) returned hidden item \(n)")
        }
      } else {
        #expect(a == b, "\(query)")
      }
    }
  }

  @Test func grantingTheClassShowsProtectedItemsButNeverExpiredOnes() throws {
    let index = try Self.index(hidden: true)
    let granted = try Self.answer("search * | table title", index: index, grant: ["private"]).joined()
    #expect(granted.contains("Item 7 "), "protected item 7 is visible with the grant")
    #expect(!granted.contains("Item 11 "), "expired item 11 is never visible")
    #expect(!granted.contains("Item 77 "), "protected and expired item 77 is never visible")
  }
}

/// A tiny deterministic generator for reproducible data.
struct SplitMix {
  var state: UInt64
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
