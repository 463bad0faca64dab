import Foundation
import Testing
@testable import SearchIndex

/// When a write refreshes SQLite's planner statistics (`ANALYZE`): a large write, and a file
/// whose number of items has moved by a quarter since the last refresh, however many writes
/// that took (statistics of a tenth of the file made SQLite count a million items through
/// the wrong index).
@Suite struct PlannerStatisticsTests {
  func items(_ range: Range<Int>) -> [SearchableItem] {
    range.map { SearchableItem(uniqueIdentifier: "item-\($0)", attributeSet: AttributeSet([("title", .string("Item \($0)"))])) }
  }

  func analyzed(_ index: SearchIndex) throws -> Int64? {
    try index.read { db in SearchIndex.analyzedItems(db) }
  }

  @Test func statisticsFollowTheItemsThroughSmallWrites() throws {
    try withTemporaryDirectory { directory in
      try SearchIndex.$analyzeAfterRows.withValue(10) {
        let index = try SearchIndex(path: directory.appendingPathComponent("stats.db").path)
        try index.indexSearchableItems(items(0..<9))
        #expect(try analyzed(index) == nil, "a write under the threshold leaves the file without statistics")
        try index.indexSearchableItems(items(9..<200))
        #expect(try analyzed(index) == 200)
        // Each write is under a tenth of the items: the statistics stay until the items
        // have grown by a quarter (200 -> 260).
        for (end, expected) in [(215, 200), (230, 200), (245, 200), (260, 260), (275, 260)] as [(Int, Int64)] {
          try index.indexSearchableItems(items(end - 15..<end))
          #expect(try analyzed(index) == expected, "after \(end) items")
        }
        // A delete of a tenth or more refreshes them too.
        #expect(try index.deleteSearchableItems(withIdentifiers: (200..<275).map { "item-\($0)" }) == 75)
        #expect(try analyzed(index) == 200)
      }
    }
  }

  @Test func theRule() {
    #expect(SearchIndex.statisticsAreStale(items: 100, analyzed: nil, rowsWritten: 1))
    #expect(SearchIndex.statisticsAreStale(items: 1_000_000, analyzed: 900_000, rowsWritten: 100_000))
    #expect(!SearchIndex.statisticsAreStale(items: 1_000_000, analyzed: 900_000, rowsWritten: 99_999))
    #expect(SearchIndex.statisticsAreStale(items: 1_000_000, analyzed: 100_000, rowsWritten: 5_000))
    #expect(SearchIndex.statisticsAreStale(items: 750_000, analyzed: 1_000_000, rowsWritten: 5_000))
    #expect(!SearchIndex.statisticsAreStale(items: 760_000, analyzed: 1_000_000, rowsWritten: 5_000))
  }
}
