import Foundation

/// Changes collected to be written together (beginIndexBatch / endIndexBatch in Core
/// Spotlight): `endBatch` writes all of them and the new client state in one transaction,
/// or nothing at all.
public final class IndexBatch {
  private enum Change {
    case index([SearchableItem])
    case update([SearchableItem])
    case deleteIdentifiers([String])
    case deleteDomains([String])
    case deleteAll
  }

  private let index: SearchIndex
  private var changes: [Change] = []
  private var ended = false

  init(index: SearchIndex) { self.index = index }

  /// Adds or replaces items.
  public func indexSearchableItems(_ items: [SearchableItem]) { changes.append(.index(items)) }
  /// Merges items into stored ones.
  public func updateSearchableItems(_ items: [SearchableItem]) { changes.append(.update(items)) }
  /// Deletes items by identifier.
  public func deleteSearchableItems(withIdentifiers identifiers: [String]) { changes.append(.deleteIdentifiers(identifiers)) }
  /// Deletes items in domains and their sub-domains.
  public func deleteSearchableItems(withDomainIdentifiers domains: [String]) { changes.append(.deleteDomains(domains)) }
  /// Deletes every item.
  public func deleteAllSearchableItems() { changes.append(.deleteAll) }

  /// Writes the batch and `clientState` atomically.
  ///
  /// - Parameter expectedClientState: when given, the stored client state must equal it
  ///   (compare-and-swap); otherwise `SearchIndexError.clientStateMismatch` is thrown and
  ///   nothing is written.
  public func endBatch(clientState: Data, expectedClientState: Data? = nil) throws(SearchIndexError) {
    guard !ended else { throw .invalidItem(id: nil, message: "endBatch called twice on one batch") }
    ended = true
    let changes = self.changes
    try index.writeTyped { writer in
      if let expectedClientState {
        let actual = try writer.clientState()
        guard actual == Array(expectedClientState) else {
          throw SearchIndexError.clientStateMismatch(expected: Array(expectedClientState), actual: actual)
        }
      }
      for change in changes {
        switch change {
        case .index(let items): for item in items { try writer.upsert(item) }
        case .update(let items): for item in items { try writer.merge(item) }
        case .deleteIdentifiers(let ids): _ = try writer.delete(identifiers: ids)
        case .deleteDomains(let domains): _ = try writer.delete(domains: domains)
        case .deleteAll: _ = try writer.deleteAll()
        }
      }
      try writer.setClientState(Array(clientState))
    }
  }
}
