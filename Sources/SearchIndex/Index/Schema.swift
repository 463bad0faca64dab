/// The tables of a Searchlight index file and their versioning.
///
/// - `meta`: key/value facts about the file (format marker, schema version, generation).
/// - `indexes`: named indexes sharing the file, each with its client state.
/// - `items`: one row per item: identity, domain, content type, expiry, protection class and
///   the canonical attribute JSON (the stored record, compressed once the file has its
///   dictionary: `RecordCodec`; the dictionary is `meta`'s `recordDictionary`); indexed by (indexId, domain) and by
///   (indexId, contentType), each with the visibility columns, and, for the items that can be
///   hidden, by expiry and by protection (`itemIndexStatements`).
/// - `attributes`: the catalogue of attribute names and types used in the file; `hasLong`
///   marks attributes some of whose values are long text (see `vals`).
/// - `vals`: one row per attribute value (lists expanded), typed: `num` for numbers, dates
///   (seconds since 1970) and Booleans; for short text its folded form `fold`, and `str`, the
///   text as written, only when it differs from `fold` (NULL otherwise: the text is
///   `coalesce(str, fold)`). A `WITHOUT ROWID` table clustered by (item, attr, ord), so an
///   item's values are one range of the table; indexed by (attr, num) and (attr, fold) for
///   comparisons, sorting and grouping inside SQLite (those indexes hold the item, so they
///   answer "which items" alone; the (attr, fold) one holds `str` too, so groups by a text's
///   written form come from it alone). A long text (folded form over `longTextBytes`, or any
///   value of `longTextAttributes`) is a marker row with all three NULL: the text itself
///   lives once, in the record, and comparisons read it from there.
/// - `fts`: the FTS5 full-text index over text attributes, rowid = items.rowid. Contentless:
///   the column texts are derived from the record (`FullTextColumns`), so deleting a row
///   derives them again and hands them to FTS5's `delete` command.
/// - `fts_unstored`: the `textContent` of items whose named index keeps it searchable but not
///   stored (`setStoresText(false)`): the only copy of that text, needed to delete its
///   full-text row exactly and to embed it.
/// - `rk_*`: the ranked index (block-max posting lists for exact BM25 top-k), kept in the
///   same transactions as the items; see `RankedSchema`.
/// - `journal`: the outbox of staged changes, one pending entry per identifier (the newest
///   revision); applying an entry and deleting it happen in one transaction.
/// - `source_state`: what each synced source last delivered (key -> item id, version), so a
///   sync stages only what changed.
/// - `sources`: how each source is configured, so hydration can ask it for current records.
/// - `embedding_models`: per named index, the embedding model its vectors come from (name,
///   dimensions, endpoint URL). No row: the index has no embeddings.
/// - `vectors`: unit-length float32 vectors (little-endian BLOBs), one per chunk of an item's
///   text, keyed by item rowid; deleted with the item and whenever it is rewritten.
/// - `summary_cache` (created by the first reader that needs it, see `SearchIndex+Summary`):
///   the planner's vocabulary per named index, access scope and generation.
/// - `summary_removed`, `summary_removed_vals` (created by the first write that rewrites or
///   deletes, see `SummaryLog`): items as they were before a rewrite or delete, kept only
///   until every stored summary tally has taken them out.
/// - `embedding_status`: items that have no vector for a reason: `failed` (the endpoint
///   rejected them; `embeddings --pending` retries) or `empty` (no text to embed).
package enum Schema {
  /// Marks a file as a Searchlight index.
  package static let formatMarker = "searchlight-index"
  /// Bumped on any incompatible change to the tables below. Version 2 added the embedding
  /// tables; version 3 tokenizes `fts` with Searchlight's own tokenizer (stems, camelCase
  /// parts, CJK) instead of unicode61; version 4 stores each text once (contentless `fts`, long
  /// text out of `vals`, no FTS5 prefix indexes); version 5 clusters `vals` by (item, attr,
  /// ord) without a rowid (no separate (item, attr) index) and keeps `str` only where it
  /// differs from `fold`; version 6 adds `str` to the (attr, fold) index and keeps every
  /// value of `longTextAttributes` out of `vals`; version 7 may hold records compressed with
  /// the file's dictionary (`RecordCodec`), which earlier binaries cannot read; version 8 may
  /// store the ranked index's pages of field lengths fixed-width (`DocumentPage.encoded()`).
  /// Opening an older file for writing migrates it in one transaction (`SchemaMigration`).
  package static let version = 8

  /// The schema version `meta` records in the file open on `db`, nil when it records none.
  package static func storedVersion(_ db: Connection) throws -> Int? {
    try db.scalar("SELECT value FROM meta WHERE key = 'schemaVersion'")?.int64Value.map(Int.init)
  }

  /// A text value whose folded form is longer than this many UTF-8 bytes is long text: it
  /// is not copied into `vals` (see the table list above). Names, states, tags and titles stay
  /// below it; descriptions and bodies go above.
  package static let longTextBytes = 96

  /// Attributes whose text is long text whatever its length: an item's body and its
  /// description are prose, searched through the full-text index; a short one in `vals` was a
  /// second copy of the record's text (a package catalogue's one-line descriptions: 19 MB of
  /// its 169 MB) that comparisons find as well from the record.
  package static let longTextAttributes: Set<String> = ["textContent", "contentDescription"]

  /// The FTS5 columns, in order; text attributes map onto them with `ftsColumn(for:)`.
  package static let ftsColumns = ["title", "keywords", "description", "body", "other"]

  /// The FTS5 column an attribute's text is indexed in, nil when it is not full-text indexed.
  package static func ftsColumn(for attribute: String, type: AttributeType) -> Int? {
    switch attribute {
    case "title", "displayName": return 0
    case "keywords": return 1
    case "contentDescription": return 2
    case "textContent": return 3
    default: return type.scalar == .string ? 4 : nil
    }
  }

  /// Tables every current index has; opening an older index for writing adds missing ones.
  package static let requiredTables = ["meta", "indexes", "items", "attributes", "vals", "journal", "source_state", "sources", "fts",
                                           "fts_unstored", "embedding_models", "vectors", "embedding_status"]

  package static let createStatements = """
    CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS indexes(
      id INTEGER PRIMARY KEY,
      name TEXT NOT NULL UNIQUE,
      clientState BLOB);
    CREATE TABLE IF NOT EXISTS items(
      rowid INTEGER PRIMARY KEY,
      indexId INTEGER NOT NULL,
      id TEXT NOT NULL,
      domain TEXT,
      contentType TEXT,
      expiration REAL,
      protection TEXT,
      attributes TEXT NOT NULL,
      engagement INTEGER NOT NULL DEFAULT 0,
      indexedAt REAL NOT NULL,
      UNIQUE(indexId, id));

    """ + itemIndexStatements + """
    CREATE TABLE IF NOT EXISTS attributes(
      id INTEGER PRIMARY KEY,
      name TEXT NOT NULL UNIQUE,
      type TEXT NOT NULL,
      custom INTEGER NOT NULL,
      hasLong INTEGER NOT NULL DEFAULT 0);

    """ + valueTableStatement + valueIndexStatements + """
    CREATE TABLE IF NOT EXISTS journal(
      indexId INTEGER NOT NULL,
      id TEXT NOT NULL,
      revision INTEGER NOT NULL,
      op TEXT NOT NULL,
      item TEXT,
      source TEXT,
      sourceKey TEXT,
      version TEXT,
      PRIMARY KEY(indexId, id)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS source_state(
      indexId INTEGER NOT NULL,
      source TEXT NOT NULL,
      sourceKey TEXT NOT NULL,
      id TEXT NOT NULL,
      version TEXT NOT NULL,
      PRIMARY KEY(indexId, source, sourceKey)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS sources(
      indexId INTEGER NOT NULL,
      name TEXT NOT NULL,
      config TEXT NOT NULL,
      PRIMARY KEY(indexId, name)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS embedding_models(
      indexId INTEGER PRIMARY KEY,
      model TEXT NOT NULL,
      dimensions INTEGER NOT NULL,
      url TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS vectors(
      item INTEGER NOT NULL,
      chunk INTEGER NOT NULL,
      vector BLOB NOT NULL);
    CREATE UNIQUE INDEX IF NOT EXISTS vectors_item ON vectors(item, chunk);
    CREATE TABLE IF NOT EXISTS embedding_status(
      item INTEGER PRIMARY KEY,
      state TEXT NOT NULL,
      message TEXT);
    CREATE TABLE IF NOT EXISTS fts_unstored(
      item INTEGER PRIMARY KEY,
      text TEXT NOT NULL);
    """ + ftsStatement + RankedSchema.createStatements

  /// Indexes on `items` a current file has; opening a file without one for writing adds it
  /// (`SchemaMigration.migrate`). They are additive, so no schema version marks them:
  /// readers of a file without them get the same answers from the records, and a binary
  /// that predates them keeps them up to date like any index.
  package static let requiredIndexes = ["items_domain_type_scope", "items_type_domain_scope", "items_expiring", "items_protected"]

  /// Indexes of earlier files that `requiredIndexes` replace: the partial indexes without
  /// `indexId`, with which finding the hidden items of a named index read every hidden
  /// item's record, and the domain and content-type indexes without the visibility columns,
  /// with which counting the notes of a million items read 336,000 records (0.6 s warm,
  /// 15 s from disk).
  /// `items_domain_scope` and `items_type_scope`, the domain and content-type indexes without
  /// each other's field (before session 43): the domains of one type's items (a search
  /// page's facets of "recent notes") read every item's row, 0.5 s for the notes of a million
  /// items.
  static let supersededIndexes = ["items_expiration", "items_protection", "items_domain", "items_type", "items_domain_scope", "items_type_scope"]

  /// The lookup indexes of `items` besides its keys:
  /// - `items_domain_type_scope` (indexId, domain, rowid, expiration, protection,
  ///   contentType) and `items_type_domain_scope` (indexId, contentType, rowid, ..., domain):
  ///   a domain or content-type test (`contentType == "note"`), a count of everything, a
  ///   group by domain or type, and a group by domain of one type (or by type of one domain)
  ///   read the index alone, because the scope's own test (`expiration`, `protection`) is
  ///   answered there too, instead of reading every record of the file. `rowid` comes
  ///   before the scope's columns so that the entries of one value stay in rowid order: a
  ///   listing (`contentType == "note" | limit 3`, ordered by rowid) stops after its first
  ///   matches, and a type is probed by (index, type, rowid);
  /// - `items_expiring` and `items_protected`: partial indexes of the items that can be
  ///   hidden (they expire, or a protection class guards them) that hold `indexId`, so the
  ///   rowids a scope hides (`AccessScope.hiddenRowsSQL`) come from the index alone; the
  ///   first also finds the expired items to purge.
  static let itemIndexStatements = """
    CREATE INDEX IF NOT EXISTS items_domain_type_scope ON items(indexId, domain, rowid, expiration, protection, contentType);
    CREATE INDEX IF NOT EXISTS items_type_domain_scope ON items(indexId, contentType, rowid, expiration, protection, domain);
    CREATE INDEX IF NOT EXISTS items_expiring ON items(expiration, indexId) WHERE expiration IS NOT NULL;
    CREATE INDEX IF NOT EXISTS items_protected ON items(protection, indexId) WHERE protection IS NOT NULL;

    """

  /// The value table (see the table list above).
  static let valueTableStatement = """
    CREATE TABLE IF NOT EXISTS vals(
      item INTEGER NOT NULL,
      attr INTEGER NOT NULL,
      ord INTEGER NOT NULL,
      num REAL,
      fold TEXT,
      str TEXT,
      PRIMARY KEY(item, attr, ord)) WITHOUT ROWID;

    """

  /// The secondary indexes of `vals` (see `valueLookupIndex` for the one that serves
  /// lookups by item). The long-text marker index tests `fold`, which version 4 markers also
  /// have NULL. `vals_fold` ends with `str` (NULL for most values: one byte) so that a group
  /// by a text attribute's written form reads that index alone, in key order: the keywords of
  /// a million items read the whole value table before (3.5 s in the `sqlite3` shell; 0.3 s).
  static let valueIndexStatements = """
    CREATE INDEX IF NOT EXISTS vals_num ON vals(attr, num) WHERE num IS NOT NULL;
    CREATE INDEX IF NOT EXISTS vals_fold ON vals(attr, fold, str) WHERE fold IS NOT NULL;
    CREATE INDEX IF NOT EXISTS vals_long ON vals(attr, item) WHERE num IS NULL AND fold IS NULL;

    """

  /// The value indexes a large write drops and builds again before it commits
  /// (`IndexWriter.bulkLoadRows`): their keys arrive in no order. `vals_long` is keyed by
  /// attribute and item, which new items append to.
  static let bulkLoadIndexes = ["vals_num", "vals_fold"]

  /// The condition that selects long-text marker rows of `vals` under `alias`: it names
  /// `fold` and `str` both, so it implies the `vals_long` index's condition in this version
  /// (`fold IS NULL`) and in version 4 files read without migrating (`str IS NULL`).
  package static func longTextMarker(_ alias: String) -> String {
    "\(alias).num IS NULL AND \(alias).fold IS NULL AND \(alias).str IS NULL"
  }

  /// The index that finds one item's values of an attribute: the table's own primary key
  /// (item, attr, ord), which SQLite names `sqlite_autoindex_vals_1` for a `WITHOUT ROWID`
  /// table (https://www.sqlite.org/withoutrowid.html); files of version 4 and earlier (read
  /// without migrating) have the separate index `vals_item` instead.
  package static let valueLookupIndex = "sqlite_autoindex_vals_1"

  /// FTS5's pending-terms budget per writer, in bytes (FTS5's default is 1 MB). Each time
  /// the pending terms reach it FTS5 writes a new segment, and segments are merged as they
  /// pile up, so a small budget makes a large ingest spend its time merging: 8 MB wrote the
  /// 1M Zipf documents 20% faster for about 15 MB more memory (BENCHMARKS.md). Stored in the
  /// file (`fts_config`), so every writer of it uses it.
  static let fullTextHashSize = 8 << 20

  /// Gives the file's full-text table `fullTextHashSize`; inside a write transaction
  /// (`IndexWriter` calls it when `hasFullTextSettings` is false).
  static func configureFullText(_ db: Connection) throws {
    try db.run("INSERT INTO fts(fts, rank) VALUES ('hashsize', ?)", [.integer(Int64(fullTextHashSize))])
  }

  /// Whether the file's full-text table has the settings `configureFullText` makes.
  static func hasFullTextSettings(_ db: Connection) throws -> Bool {
    try db.scalar("SELECT v FROM fts_config WHERE k = 'hashsize'")?.int64Value == Int64(fullTextHashSize)
  }

  /// The full-text table: contentless (its texts are derived from the records), tokenized by
  /// Searchlight's analyzer. No prefix indexes ('2 3' took 66 MB of the 100k Zipf index):
  /// prefix queries scan the term range instead, which stays in tens of milliseconds
  /// (BENCHMARKS.md, "Storage and ingest").
  static let ftsStatement = """
    CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
      title, keywords, description, body, other,
      content = '', tokenize = '\(FTS5Tokenizer.name)');
    """
}
