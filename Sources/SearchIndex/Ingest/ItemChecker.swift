/// Checks items against a catalogue the way `IndexWriter.upsert` will, without writing, so a
/// file's items can be checked before any of them is written: a file is then written whole
/// or, when one item is bad, not at all (`searchlight index` skips it).
package struct ItemChecker: Sendable {
  /// The catalogue the checked items were declared into (types inferred from first values).
  package private(set) var catalog: AttributeCatalog

  package init(catalog: AttributeCatalog) {
    self.catalog = catalog
  }

  /// Throws the message `IndexWriter.upsert` (or `merge`) would reject `item` with.
  package mutating func check(_ item: SearchableItem) throws(ItemDecodingError) {
    if let domain = item.domainIdentifier { try ItemDecoder.validateDomain(domain) }
    guard !item.uniqueIdentifier.isEmpty else { throw ItemDecodingError("empty identifier") }
    for (name, value) in item.attributeSet {
      if StandardAttributes.itemFields.contains(name) {
        throw ItemDecodingError("'\(name)' is an item field, not an attribute")
      }
      let type: AttributeType
      if let known = catalog.type(of: name) {
        type = known
      } else {
        type = IndexWriter.type(of: value)
        do { try catalog.declare(name, as: type) } catch { throw ItemDecodingError(error.description) }
      }
      guard IndexWriter.conforms(value, to: type) else {
        throw ItemDecodingError("attribute '\(name)' is \(type), got \(IndexWriter.type(of: value))")
      }
    }
  }
}
