import SearchIndex

/// The part of a pipeline that runs inside SQLite: the leading filter, sort, limit, grouping
/// and aggregate that stages pushed down. The compiler turns it into one SQL statement.
public struct SQLPlan: Sendable, Hashable {
  /// What an aggregate computes.
  public enum Aggregate: Sendable, Hashable {
    /// Number of items.
    case count
    /// Items per value of the grouped attribute.
    case groupCount(AttributeTarget)
    /// Statistics over attribute values, optionally per value of an attribute.
    case statistics([StatisticRequest], by: AttributeTarget?)
  }

  /// A sort key.
  public enum SortKey: Sendable, Hashable {
    case attribute(AttributeTarget, descending: Bool)
    case relevance
  }

  public var predicate: BoundExpression
  public var sort: [SortKey] = []
  public var limit: Int?
  /// A `group by` not yet consumed by an aggregate.
  public var groupBy: AttributeTarget?
  public var aggregate: Aggregate?

  public init(predicate: BoundExpression) { self.predicate = predicate }

  /// True while another filter still applies to the same items (nothing limited or grouped).
  public var acceptsFilter: Bool { limit == nil && groupBy == nil && aggregate == nil }
  /// True while a sort still applies (nothing limited or grouped yet).
  public var acceptsSort: Bool { limit == nil && groupBy == nil && aggregate == nil }

  /// The text search that ranks the results: a positive text search in the top-level AND.
  public var rankingSearch: TextSearch? {
    switch predicate {
    case .textSearch(let search): return search
    case .and(let parts):
      for part in parts { if case .textSearch(let search) = part { return search } }
      return nil
    default: return nil
    }
  }

  /// Adds a filter to the predicate (AND).
  public mutating func addFilter(_ filter: BoundExpression) {
    switch (predicate, filter) {
    case (.matchAll, _): predicate = filter
    case (_, .matchAll): break
    case (.and(let parts), _): predicate = .and(parts + [filter])
    default: predicate = .and([predicate, filter])
    }
  }
}

/// A statistic to compute: `avg(distance)`.
public struct StatisticRequest: Sendable, Hashable {
  public enum Function: String, Sendable, Hashable, CaseIterable {
    case count, sum, avg, min, max, median, stddev
  }

  public var function: Function
  /// The attribute; nil for `count` of items.
  public var target: AttributeTarget?

  public init(function: Function, target: AttributeTarget?) {
    self.function = function
    self.target = target
  }

  /// The column name: `avg(distance)`, `count`.
  public var columnName: String {
    target.map { "\(function.rawValue)(\($0.displayName))" } ?? function.rawValue
  }
}
