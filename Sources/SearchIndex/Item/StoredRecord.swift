import Synchronization

/// An item's stored record (`items.attributes`, canonical JSON) not decoded yet: what an
/// `AttributeSet` read by the executor holds until one of its attributes is read.
///
/// The record was written by `IndexWriter` from typed values, so it decodes; a record that
/// does not (a damaged file) reads as no attributes here, and `searchlight check` reports it
/// (its own reads decode eagerly and fail with the item's id).
package final class StoredRecord: Sendable {
  private let bytes: [UInt8]
  private let catalog: AttributeCatalog
  private let names: Set<String>?
  /// The decoded attributes once read; the lock makes the first read decode once when
  /// copies of the item are read on several threads.
  private let decoded = Mutex<AttributeSet.Entries?>(nil)

  /// `bytes` with only `names` to be decoded (all when nil).
  package init(bytes: [UInt8], catalog: AttributeCatalog, only names: Set<String>? = nil) {
    self.bytes = bytes
    self.catalog = catalog
    self.names = names
  }

  var entries: AttributeSet.Entries {
    decoded.withLock { cached in
      if let cached { return cached }
      let set = (try? StoredItem.decodeAttributes(bytes: bytes, catalog: catalog, only: names)) ?? AttributeSet()
      let entries = set.decodedEntries
      cached = entries
      return entries
    }
  }
}
