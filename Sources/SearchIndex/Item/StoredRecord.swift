import Synchronization

/// An item's stored record (`items.attributes`, canonical JSON) not decoded yet: what an
/// `AttributeSet` read by the executor holds until one of its attributes is read.
///
/// The record was written by `IndexWriter` from typed values, so it decodes; a record that
/// does not (a damaged file) reads as no attributes here, and `searchlight check` reports it
/// (its own reads decode eagerly and fail with the item's id).
package final class StoredRecord: Sendable {
  private enum State {
    case undecoded([UInt8])
    case decoded(AttributeSet.Entries)
  }

  private let catalog: AttributeCatalog
  private let names: Set<String>?
  /// The record's bytes until the first read, then the attributes decoded from them (the
  /// bytes are let go: an item is not held twice). The lock makes the first read decode
  /// once when copies of the item are read on several threads.
  private let state: Mutex<State>

  /// `bytes` with only `names` to be decoded (all when nil).
  package init(bytes: [UInt8], catalog: AttributeCatalog, only names: Set<String>? = nil) {
    self.catalog = catalog
    self.names = names
    state = Mutex(.undecoded(bytes))
  }

  var entries: AttributeSet.Entries {
    state.withLock { state in
      switch state {
      case .decoded(let entries):
        return entries
      case .undecoded(let bytes):
        let set = (try? StoredItem.decodeAttributes(bytes: bytes, catalog: catalog, only: names)) ?? AttributeSet()
        let entries = set.decodedEntries
        state = .decoded(entries)
        return entries
      }
    }
  }
}
