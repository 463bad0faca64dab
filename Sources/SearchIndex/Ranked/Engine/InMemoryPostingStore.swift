/// `PostingStore` backed by a dictionary of value-typed lists. Lists handed to
/// queries are copy-on-write snapshots, so a reader is never affected by later
/// writes.
package struct InMemoryPostingStore: PostingStore {
  private var lists: [TermID: PostingList] = [:]

  package init() {}

  package func postingList(for term: TermID) -> PostingList? {
    lists[term]
  }

  package mutating func replaceBlocks(of term: TermID, in range: Range<Int>, with blocks: [PostingBlock]) {
    var list = lists.removeValue(forKey: term) ?? PostingList()
    list.replaceBlocks(in: range, with: blocks)
    if !list.isEmpty { lists[term] = list }
  }

  package mutating func recomputeBound(of term: TermID) {
    lists[term]?.recomputeBound()
  }

  package var storedTerms: [TermID] { Array(lists.keys) }

  /// Persisted size of all blocks (payload + fixed header), for reporting.
  package var persistedByteCount: Int {
    lists.values.reduce(0) { total, list in total + list.blocks.reduce(0) { $0 + $1.persistedByteCount } }
  }

  /// Payload bytes only (compressed doc gaps and frequencies).
  package var payloadByteCount: Int {
    lists.values.reduce(0) { total, list in total + list.blocks.reduce(0) { $0 + $1.payload.count } }
  }

  package var blockCount: Int { lists.values.reduce(0) { $0 + $1.blocks.count } }
}
