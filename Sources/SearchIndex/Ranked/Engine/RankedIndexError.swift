/// Errors of `RankedIndex` mutations (the index is unchanged when one is thrown).
package enum RankedIndexError: Error, Equatable {
  case documentExists(DocID)
  case documentNotFound(DocID)
  case duplicateDocumentInBatch(DocID)
  case fieldCountMismatch(DocID, expected: Int, actual: Int)
  case reservedDocID(DocID)
}
