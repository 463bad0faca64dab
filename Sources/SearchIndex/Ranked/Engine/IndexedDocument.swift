/// A document as the index receives it: already tokenized, one token list per
/// schema field (tokenization belongs to the caller's analyzer).
package struct IndexedDocument: Sendable, Equatable {
  package var id: DocID
  package var fields: [[String]]

  package init(id: DocID, fields: [[String]]) {
    self.id = id
    self.fields = fields
  }
}
