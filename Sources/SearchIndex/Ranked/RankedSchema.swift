import Foundation

/// The tables of the ranked index (exact top-k BM25F with block-max pruning) and its
/// scoring parameters. They sit in the index file next to FTS5 and are written in the
/// same transactions as the items they describe.
///
/// - `rk_stats`: one row per named index: live document count (N), total field
///   lengths, the `ScoreBoundBasis` the block bounds were computed at, the parameter
///   fingerprint, the tombstone count and the file generation the postings match.
/// - `rk_terms`: the lexicon: term text -> id and live document frequency, per named
///   index. Ids are file-wide (they key `rk_blocks`) and never reused.
/// - `rk_blocks`: posting lists, one row per block of <= 128 postings, keyed by
///   (term, lastDoc) and clustered so one term's blocks are read in one range scan.
///   The payload is `BlockCodec`'s (doc-id gaps and per-field frequencies as varints);
///   `bound` is the block's maximum pseudo-frequency at the basis.
/// - (`rk_docs`, the forward index of live documents, is gone since schema version 7: a
///   delete takes a document's terms from the texts of its record, which FTS5's delete
///   tokenizes anyway; it was 8% of the file.)
/// - `rk_dead`: tombstones: deleted documents whose postings may still sit in blocks,
///   with their term ids; compaction removes those postings and the rows.
/// - `rk_pages`: field lengths and liveness of 1,024 consecutive rowids
///   (`DocumentPage.encoded()`), loaded lazily by queries.
package enum RankedSchema {
  /// BM25F over the FTS5 columns (`Schema.ftsColumns`): title, keywords, description,
  /// body text, other text. Weights favour titles and keywords; the relevance work
  /// tunes them (changing them makes open rebuild the postings, see `fingerprint`).
  package static let parameters = tuning(ProcessInfo.processInfo.environment["SEARCHLIGHT_BM25F"]) ?? standard

  /// The shipped parameters.
  package static let standard = BM25FParameters(
    k1: 1.2,
    fields: [
      FieldSpec(name: "title", weight: 4, b: 0.75),
      FieldSpec(name: "keywords", weight: 3, b: 0.75),
      FieldSpec(name: "description", weight: 2, b: 0.75),
      FieldSpec(name: "body", weight: 1, b: 0.75),
      FieldSpec(name: "other", weight: 1, b: 0.75),
    ])

  /// Parameters for relevance experiments, from `SEARCHLIGHT_BM25F="k1 b title keywords
  /// description body other"` (seven numbers), optionally followed by five per-field b values
  /// that replace the shared one; nil when unset or malformed. A file opened for writing with
  /// other parameters than it was built with rebuilds its postings (see `fingerprint`).
  static func tuning(_ text: String?) -> BM25FParameters? {
    guard let numbers = text?.split(separator: " ").compactMap({ Double($0) }), numbers.count == 7 || numbers.count == 12,
      numbers.allSatisfy({ $0.isFinite && $0 >= 0 }), numbers[0] > 0
    else { return nil }
    let names = ["title", "keywords", "description", "body", "other"]
    let bs = numbers.count == 12 ? Array(numbers[7...]) : Array(repeating: numbers[1], count: 5)
    guard bs.allSatisfy({ $0 <= 1 }) else { return nil }
    return BM25FParameters(
      k1: numbers[0], fields: names.indices.map { FieldSpec(name: names[$0], weight: numbers[2 + $0], b: bs[$0]) })
  }

  /// Identifies the parameters and encodings the stored postings were built with;
  /// stored postings with another fingerprint are stale and get rebuilt.
  package static var fingerprint: String {
    let fields = parameters.fields.map { "\($0.name):\($0.weight):\($0.b)" }.joined(separator: ",")
    return "v3;k1=\(parameters.k1);\(fields);block=\(BlockCodec.capacity);page=\(DocumentTable.pageSize)"
  }

  package static let createStatements = """
    CREATE TABLE IF NOT EXISTS rk_stats(
      indexId INTEGER PRIMARY KEY,
      documents INTEGER NOT NULL,
      lengths BLOB NOT NULL,
      basis BLOB,
      parameters TEXT NOT NULL,
      tombstones INTEGER NOT NULL,
      generation INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS rk_terms(
      id INTEGER PRIMARY KEY,
      indexId INTEGER NOT NULL,
      term TEXT NOT NULL,
      df INTEGER NOT NULL,
      UNIQUE(indexId, term));
    CREATE TABLE IF NOT EXISTS rk_blocks(
      term INTEGER NOT NULL,
      lastDoc INTEGER NOT NULL,
      firstDoc INTEGER NOT NULL,
      count INTEGER NOT NULL,
      bound REAL NOT NULL,
      payload BLOB NOT NULL,
      PRIMARY KEY(term, lastDoc)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS rk_dead(doc INTEGER PRIMARY KEY, indexId INTEGER NOT NULL, terms BLOB NOT NULL);
    CREATE TABLE IF NOT EXISTS rk_pages(
      indexId INTEGER NOT NULL,
      page INTEGER NOT NULL,
      data BLOB NOT NULL,
      PRIMARY KEY(indexId, page));
    """

  /// Whether the file has the ranked tables (files written before they existed do not,
  /// until a writable open adds them).
  static func exists(_ db: Connection) throws -> Bool {
    try db.scalar("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rk_stats'") != nil
  }
}
