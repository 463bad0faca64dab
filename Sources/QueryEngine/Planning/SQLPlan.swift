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

  /// The text search that ranks the results: a positive text search in the top-level AND,
  /// or an OR of text searches (`"kitchen" || "remodel"`), which ranks by any of their words.
  public var rankingSearch: TextSearch? {
    switch predicate {
    case .and(let parts): return parts.lazy.compactMap(Self.rankable).first
    default: return Self.rankable(predicate)
    }
  }

  /// The `similar` search that ranks the results when no text search does: a `similar` in
  /// the top-level AND (or the whole predicate).
  public var rankingSimilar: SimilarSearch? {
    guard rankingSearch == nil else { return nil }
    switch predicate {
    case .similar(let search): return search
    case .and(let parts):
      for part in parts { if case .similar(let search) = part { return search } }
      return nil
    default: return nil
    }
  }

  /// The predicate without the part `rankingSimilar` came from (its candidates drive the
  /// statement).
  public var predicateWithoutRankingSimilar: BoundExpression {
    switch predicate {
    case .similar: return .matchAll
    case .and(var parts):
      if let index = parts.firstIndex(where: { if case .similar = $0 { return true }; return false }) { parts.remove(at: index) }
      return parts.isEmpty ? .matchAll : (parts.count == 1 ? parts[0] : .and(parts))
    default: return predicate
    }
  }

  /// The predicate without the part `rankingSearch` came from (it becomes the FTS5 join).
  public var predicateWithoutRankingSearch: BoundExpression {
    switch predicate {
    case .and(var parts):
      if let index = parts.firstIndex(where: { Self.rankable($0) != nil }) { parts.remove(at: index) }
      return parts.isEmpty ? .matchAll : (parts.count == 1 ? parts[0] : .and(parts))
    default:
      return Self.rankable(predicate) != nil ? .matchAll : predicate
    }
  }

  /// A text search, or an OR of unphrased text searches merged into one OR search.
  static func rankable(_ expression: BoundExpression) -> TextSearch? {
    switch expression {
    case .textSearch(let search): return search
    case .or(let parts):
      var terms: [TextSearch.Term] = []
      var weights: [Double] = []
      var weighted = false
      for part in parts {
        guard case .textSearch(let search) = part, !search.phrase, search.columns == nil else { return nil }
        // Each part needs all its words; as one OR search a multi-word part would match any
        // of them, which is a different query.
        guard search.terms.count == 1 || !search.requireAll else { return nil }
        terms += search.terms
        if let w = search.weights { weighted = true; weights += w } else { weights += Array(repeating: 1, count: search.terms.count) }
      }
      return terms.isEmpty ? nil : TextSearch(terms: terms, requireAll: false, weights: weighted ? weights : nil)
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

/// What a `similar` search found: the similarity of each item within its distance (and
/// count), and which items have vectors at all (nil: unknown, e.g. for `explain`).
public struct SimilarHits: Sendable {
  public var similarities: [Int64: Double]
  public var itemsWithVectors: VectorMatrix?

  public init(similarities: [Int64: Double], itemsWithVectors: VectorMatrix?) {
    self.similarities = similarities
    self.itemsWithVectors = itemsWithVectors
  }
}
