/// Document identifier: the SQLite rowid of the document. Postings are kept in
/// ascending `DocID` order; `DocID.max` is reserved as the cursor "exhausted" sentinel.
package typealias DocID = Int64

/// Dense identifier of an interned term (see `Lexicon`). Dense so that per-term
/// metadata (document frequency, batch scratch) can live in flat arrays.
package typealias TermID = UInt32
