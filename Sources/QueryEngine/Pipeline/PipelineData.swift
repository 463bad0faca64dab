import Foundation
import SearchIndex

/// The data types that flow between stages; every stage declares which it takes and makes.
public enum PipelineType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
  case items, scoredItems, groupedItems, count, table, statistic, text
  public var description: String { rawValue }
}

/// An item flowing through a pipeline, with its text relevance and (after `score`) its score.
public struct ResultItem: Sendable, Hashable {
  /// The row in the index, for fetching more attributes.
  package var rowid: Int64
  public var item: SearchableItem
  /// BM25 relevance of the text search (larger is better); 0 without one.
  public var relevance: Double
  /// The score set by `score` (and custom scoring stages).
  public var score: Double?
  /// The terms of the score, for `--why`: name and contribution.
  public var scoreTerms: [ScoreTerm]
  /// How often the user engaged with the item (`searchlight engage`).
  public var engagement: Int = 0
  /// After `merge(a, b, ...)`: the item's 1-based position in each input, nil where the
  /// input lacks it (what `fuse` combines); empty otherwise.
  public var inputRanks: [Int?] = []

  package init(rowid: Int64, item: SearchableItem, relevance: Double = 0, score: Double? = nil, scoreTerms: [ScoreTerm] = []) {
    self.rowid = rowid
    self.item = item
    self.relevance = relevance
    self.score = score
    self.scoreTerms = scoreTerms
  }

  public var id: String { item.uniqueIdentifier }
}

/// One term of a score: `0.7 * relevance` contributed 0.42.
public struct ScoreTerm: Sendable, Hashable {
  public var name: String
  public var value: Double
  public init(name: String, value: Double) {
    self.name = name
    self.value = value
  }
}

/// Items grouped by the values of an attribute.
public struct GroupedItems: Sendable, Hashable {
  public struct Group: Sendable, Hashable {
    public var key: Value
    public var items: [ResultItem]
    /// Items in the group (may exceed `items.count` when the group was counted in SQLite).
    public var count: Int
    public init(key: Value, items: [ResultItem], count: Int) {
      self.key = key
      self.items = items
      self.count = count
    }
  }

  /// The attribute grouped by.
  public var attribute: String
  public var groups: [Group]
  public init(attribute: String, groups: [Group]) {
    self.attribute = attribute
    self.groups = groups
  }

  /// The same groups with at most `count` items each (their counts whole).
  public func keepingFirstItems(_ count: Int) -> GroupedItems {
    var kept = self
    for index in kept.groups.indices { kept.groups[index].items = Array(kept.groups[index].items.prefix(count)) }
    return kept
  }
}

/// A table: column names in order and rows aligned with them.
public struct Table: Sendable, Hashable {
  public var columns: [String]
  public var rows: [[Value]]
  public init(columns: [String], rows: [[Value]]) {
    self.columns = columns
    self.rows = rows
  }
}

extension Table {
  /// The position of the column named `name` (spaces ignored, so `avg( distance )` finds
  /// `avg(distance)`), or an error that lists the columns.
  public func columnIndex(of name: String) throws -> Int {
    guard let index = columns.firstIndex(where: { Self.sameColumn($0, name) }) else {
      throw QueryRuntimeError("the table has no column '\(name)'; columns are \(columns.joined(separator: ", "))")
    }
    return index
  }

  /// Whether `column` is the column `name` names: the same but for spaces.
  public static func sameColumn(_ column: String, _ name: String) -> Bool {
    column == name || column.filter { !$0.isWhitespace } == name.filter { !$0.isWhitespace }
  }
}

/// One computed statistic: `avg(distance)` = 7.3.
public struct Statistic: Sendable, Hashable {
  public var function: String
  public var attribute: String
  public var value: Value
  public init(function: String, attribute: String, value: Value) {
    self.function = function
    self.attribute = attribute
    self.value = value
  }
}

/// A short text summary: a header line and a body.
public struct TextSummary: Sendable, Hashable {
  public var header: String
  public var body: String
  public init(header: String, body: String) {
    self.header = header
    self.body = body
  }
}

/// A value flowing between stages.
public enum PipelineData: Sendable, Hashable {
  case items([ResultItem])
  case scoredItems([ResultItem])
  case groupedItems(GroupedItems)
  case count(Int)
  case table(Table)
  case statistic(Statistic)
  case text(TextSummary)

  public var type: PipelineType {
    switch self {
    case .items: .items
    case .scoredItems: .scoredItems
    case .groupedItems: .groupedItems
    case .count: .count
    case .table: .table
    case .statistic: .statistic
    case .text: .text
    }
  }

  /// The items of `items` and `scoredItems` data (grouped items flattened), else empty.
  public var resultItems: [ResultItem] {
    switch self {
    case .items(let items), .scoredItems(let items): items
    case .groupedItems(let grouped): grouped.groups.flatMap(\.items)
    default: []
    }
  }

  /// The same kind of item data with different items.
  public func replacingItems(_ items: [ResultItem]) -> PipelineData {
    switch self {
    case .scoredItems: .scoredItems(items)
    default: .items(items)
    }
  }
}
