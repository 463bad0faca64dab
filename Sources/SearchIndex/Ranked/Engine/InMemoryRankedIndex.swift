/// The index with in-memory posting storage (tests, benchmark, until the SQLite
/// store exists).
package typealias InMemoryRankedIndex = RankedIndex<InMemoryPostingStore>
