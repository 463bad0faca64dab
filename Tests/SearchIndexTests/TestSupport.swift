import Foundation
@testable import SearchIndex

/// A fresh directory under the system temporary directory, removed when `body` returns.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
  let url = FileManager.default.temporaryDirectory
    .appendingPathComponent("searchlight-tests-\(UUID().uuidString)", isDirectory: true)
  try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: url) }
  return try body(url)
}

/// Writes `text` to `name` inside `directory` (creating sub-folders) and returns its path.
@discardableResult
func writeFile(_ text: String, named name: String, in directory: URL) throws -> String {
  let url = directory.appendingPathComponent(name)
  try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
  try Data(text.utf8).write(to: url)
  return url.path
}

/// A date in UTC from its calendar fields, computed by Foundation's calendar rather than by the
/// code under test.
func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Date {
  var calendar = Calendar(identifier: .gregorian)
  calendar.timeZone = TimeZone(identifier: "UTC")!
  let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
  return calendar.date(from: components)!
}

/// An item with the given attributes.
func item(
  _ id: String, domain: String? = nil, expiration: Date? = nil, protection: String? = nil,
  _ attributes: [(String, AttributeValue)] = []
) -> SearchableItem {
  SearchableItem(
    uniqueIdentifier: id, domainIdentifier: domain, expirationDate: expiration, protectionClass: protection,
    attributeSet: AttributeSet(attributes))
}

/// Parses one JSON text that the test knows is valid.
func json(_ text: String) throws -> JSONValue {
  try JSONParser.parse(text)
}
