/// Replacement of a contiguous range of a posting list's blocks. For SQLite this is
/// "delete the rows of the old range, insert the new blocks" in one transaction.
package struct BlockEdit: Sendable, Equatable {
  package var range: Range<Int>
  package var blocks: [PostingBlock]
}
