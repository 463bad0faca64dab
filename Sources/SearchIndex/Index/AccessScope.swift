import Foundation

/// What a reader may see: the clock that decides expiry and the protection classes granted.
///
/// Items that carry a protection class are visible only when the scope grants that class;
/// expired items are visible to no scope. Every query, count, group and statistic filters
/// through `sqlCondition`, so nothing outside the scope is ever read into a result.
public struct AccessScope: Sendable, Hashable {
  /// The moment that decides whether an item has expired: the one given, or else the real
  /// clock at each use (so a long-running server hides an item the moment it expires). A
  /// query's pinned clock (`--now`) sets `$time` only, never this.
  public var now: Date {
    get { fixedNow ?? Date() }
    set { fixedNow = newValue }
  }
  private var fixedNow: Date?
  /// Protection classes the caller may read.
  public var protectionClasses: Set<String>

  /// A scope granting `protectionClasses`; `now` fixes the expiry clock (apps and tests that
  /// replay a moment), nil follows the real clock.
  public init(now: Date? = nil, protectionClasses: Set<String> = []) {
    self.fixedNow = now
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
