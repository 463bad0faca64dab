import Foundation
import QueryEngine
import SearchIndex

// What the query-engine and stage suites share: the sample clock, the samples folder,
// temporary indexes and items. One copy, here, instead of one per suite.

// MARK: Clock

/// A date in UTC from its calendar fields, computed by Foundation's calendar rather than by the
/// code under test.
package func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Date {
  date(year, month, day, hour, minute, second, zone: utcZone)
}

/// A date from its calendar fields in `zone`.
package func date(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0, zone: TimeZone) -> Date {
  var calendar = Calendar(identifier: .gregorian)
  calendar.timeZone = zone
  return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))!
}

package let utcZone = TimeZone(identifier: "UTC")!
package let pacific = TimeZone(identifier: "America/Los_Angeles")!
package let tokyo = TimeZone(identifier: "Asia/Tokyo")!

/// "Today" in the sample data: Sunday 2026-11-29, noon UTC.
package let sampleNow = utc(2026, 11, 29, 12)
package let sampleClock = QueryClock(now: sampleNow, timeZone: utcZone)

// MARK: Paths

/// The repository checkout holding this file (`Tests/TestSupport/`).
package let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
package let samplesFolder = repositoryRoot.appendingPathComponent("Sources/searchlight/Samples")

// MARK: Indexes

/// A temporary index file in a folder of its own, removed when the value is released, or at
/// exit when it never is (shared fixtures in globals and static properties).
package final class TemporaryIndex: Sendable {
  package let directory: URL
  package let index: SearchIndex

  package init(_ items: [SearchableItem] = [], declaring declarations: [(String, AttributeType)] = []) throws {
    directory = try TemporaryFiles.folder("searchlight-qe")
    index = try SearchIndex(path: directory.appendingPathComponent("index.db").path)
    if !declarations.isEmpty || !items.isEmpty {
      try index.write { writer in
        for (name, type) in declarations { try writer.declare(name, as: type) }
        for item in items { try writer.upsert(item) }
      }
    }
  }

  /// An index kept for the whole test run; its folder is removed at exit.
  package static func lingering(_ items: [SearchableItem] = []) throws -> TemporaryIndex {
    try TemporaryIndex(items)
  }

  /// Adds the files or folders at `paths` the way `searchlight index` reads them.
  package func add(paths: [String]) throws {
    try index.write { writer in
      var reader = ItemReader(decoder: ItemDecoder(catalog: writer.catalog))
      for path in paths {
        try reader.read(path: path) { item, _, _ in try writer.upsert(item) }
      }
    }
  }

  deinit { try? FileManager.default.removeItem(at: directory) }
}

/// The bundled sample data (trails, notes and mail, the notes folder), indexed once per test
/// run and only read afterwards.
package let sampleIndex: TemporaryIndex = {
  let index = try! TemporaryIndex.lingering()
  try! index.add(paths: ["trails.jsonl", "notes.jsonl", "notes-folder"].map { samplesFolder.appendingPathComponent($0).path })
  return index
}()

/// An item with the given attributes.
package func item(
  _ id: String, domain: String? = nil, contentType: String? = nil, expiration: Date? = nil, protection: String? = nil,
  _ attributes: [(String, AttributeValue)] = []
) -> SearchableItem {
  SearchableItem(
    uniqueIdentifier: id, domainIdentifier: domain, contentType: contentType, expirationDate: expiration,
    protectionClass: protection, attributeSet: AttributeSet(attributes))
}
