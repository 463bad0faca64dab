/// Where posting lists live. The in-memory implementation is `InMemoryPostingStore`;
/// a SQLite implementation maps a list to rows (term, lastDoc, firstDoc, count,
/// maxPseudoTF, payload BLOB) plus one per-term row holding the list bound.
///
/// Reads hand out a `PostingList` value (headers + payloads) that query cursors
/// iterate without further store calls, so the hot loop never goes through the
/// protocol. Writes are block-granular, matching row-level persistence.
package protocol PostingStore: Sendable {
  /// The term's list, or nil if it has no postings.
  func postingList(for term: TermID) -> PostingList?

  /// Replaces `range` of the term's blocks (indices into the current list) with
  /// `blocks`; an empty resulting list removes the term. Must keep the list bound
  /// >= every block bound (a running max is fine).
  mutating func replaceBlocks(of term: TermID, in range: Range<Int>, with blocks: [PostingBlock])

  /// Recomputes the term's list bound exactly from its blocks (after compaction).
  mutating func recomputeBound(of term: TermID)

  /// Every term that currently has a list (compaction rebase iterates it).
  var storedTerms: [TermID] { get }
}
