/// Several sources as one delegate: each is asked for the identifiers; the first record found
/// wins.
public struct CompositeDelegate: IndexDelegate {
  public let sources: [any ItemSource]
  public init(_ sources: [any ItemSource]) { self.sources = sources }

  public func reindexAll(into index: SearchIndex) throws {
    for source in sources { try source.reindexAll(into: index) }
  }

  public func reindex(identifiers: [String], into index: SearchIndex) throws {
    for source in sources { try source.reindex(identifiers: identifiers, into: index) }
  }

  public func searchableItems(forIdentifiers identifiers: [String], protectionClass: String?) throws -> [SearchableItem] {
    var found: [String: SearchableItem] = [:]
    for source in sources {
      let missing = identifiers.filter { found[$0] == nil }
      if missing.isEmpty { break }
      for item in try source.searchableItems(forIdentifiers: missing, protectionClass: protectionClass) {
        found[item.uniqueIdentifier] = found[item.uniqueIdentifier] ?? item
      }
    }
    return identifiers.compactMap { found[$0] }
  }
}
