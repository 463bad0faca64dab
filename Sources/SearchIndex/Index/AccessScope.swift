import Foundation

/// What a reader may see: the clock that decides expiry and the protection classes granted.
///
/// Items that carry a protection class are visible only when the scope grants that class;
/// expired items are visible to no scope. Every query, count, group and statistic filters
/// through `sqlCondition`, so nothing outside the scope is ever read into a result.
public struct AccessScope: Sendable, Hashable {
  /// The moment that decides whether an item has expired.
  public var now: Date
  /// Protection classes the caller may read.
  public var protectionClasses: Set<String>

  public init(now: Date = Date(), protectionClasses: Set<String> = []) {
    self.now = now
    self.protectionClasses = protectionClasses
  }

  /// A condition on the items table aliased `alias`, with its bound arguments (index id,
  /// clock, granted classes as a JSON array).
  package func sqlCondition(alias: String, indexID: Int64) -> (sql: String, arguments: [SQLValue]) {
    var sql = "\(alias).indexId = ? AND (\(alias).expiration IS NULL OR \(alias).expiration > ?)"
    var arguments: [SQLValue] = [.integer(indexID), .real(now.timeIntervalSince1970)]
    if protectionClasses.isEmpty {
      sql += " AND \(alias).protection IS NULL"
    } else {
      sql += " AND (\(alias).protection IS NULL OR \(alias).protection IN (SELECT value FROM json_each(?)))"
      arguments.append(.text(JSONValue.array(protectionClasses.sorted().map(JSONValue.string)).compactText))
    }
    return (sql, arguments)
  }
}
