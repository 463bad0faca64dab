import Foundation

/// The app's side of a derived index, in the spirit of `CSSearchableIndexDelegate`: the app's
/// store stays authoritative; the index asks it to re-donate items, and hydration asks it for
/// the current, authorised records of items a query returned.
public protocol IndexDelegate: Sendable {
  /// Re-donates every item (after `searchlight rebuild`, or when the index was lost).
  func reindexAll(into index: SearchIndex) throws
  /// Re-donates the items with these identifiers.
  func reindex(identifiers: [String], into index: SearchIndex) throws
  /// The current records of these items that `protectionClass` may see (nil: unprotected
  /// items only). Items the source no longer has or no longer authorises are left out.
  func searchableItems(forIdentifiers identifiers: [String], protectionClass: String?) throws -> [SearchableItem]
}

/// A source of items that can be synced into an index.
public protocol ItemSource: IndexDelegate {
  /// A stable name for the source ("folder:/abs/path", "sqlite:/app.db#notes").
  var name: String { get }
  /// How to recreate the source later (recorded in the index for hydration).
  var configuration: JSONValue { get }
  /// Every record the source holds now: its key, version and a way to load the item.
  func scan() throws -> [SourceRecord]
}

/// One record of a source, by key, with a version that changes when the record does.
public struct SourceRecord: Sendable {
  public var key: String
  public var version: String
  /// Loads the item (only called for new or changed records).
  public var load: @Sendable () throws -> SearchableItem

  public init(key: String, version: String, load: @escaping @Sendable () throws -> SearchableItem) {
    self.key = key
    self.version = version
    self.load = load
  }
}
