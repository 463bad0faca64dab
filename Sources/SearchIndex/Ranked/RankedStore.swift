/// SQL access to the ranked tables of one named index (see `RankedSchema`), on a
/// connection that is inside a transaction. Every statement is cached per connection.
struct RankedStore {
  let db: Connection
  let indexID: Int64
  /// The statements of the write path, once fetched (nil: fetch every time). The
  /// connection caches statements by their SQL, which costs hashing that text on every
  /// use; the writer runs some of them for every block, term and document it writes.
  private let kept: KeptStatements?

  /// A store on `db` for the named index `indexID`; `keepingStatements` for a writer,
  /// which keeps the statements it uses per item instead of looking them up each time.
  init(db: Connection, indexID: Int64, keepingStatements: Bool = false) {
    self.db = db
    self.indexID = indexID
    kept = keepingStatements ? KeptStatements() : nil
  }

  /// The statements `statement(_:_:)` keeps, by `Kept` case.
  private final class KeptStatements {
    var statements: [Statement?] = Array(repeating: nil, count: Kept.allCases.count)
  }

  private enum Kept: Int, CaseIterable {
    case term, insertTerm, addDocumentFrequency, blockAtOrAfter, tailBlock, deleteBlock, insertBlock
  }

  /// The prepared statement for `sql` (which `kind` names), reset unless kept: a kept
  /// statement is always left reset, as `Statement.step` resets at the end of its rows
  /// and the readers below reset after their one row.
  private func statement(_ kind: Kept, _ sql: String) throws(DatabaseError) -> Statement {
    guard let kept else { return try db.cachedStatement(sql) }
    if let statement = kept.statements[kind.rawValue] { return statement }
    let statement = try db.cachedStatement(sql)
    kept.statements[kind.rawValue] = statement
    return statement
  }

  static var fieldCount: Int { RankedSchema.parameters.fieldCount }

  /// The file generation as this transaction sees it.
  func generation() throws -> Int64 {
    try db.scalar("SELECT value FROM meta WHERE key = 'generation'")?.int64Value ?? 0
  }

  // MARK: - Statistics

  func statistics() throws -> RankedStatistics? {
    let statement = try db.cachedStatement(
      "SELECT documents, lengths, basis, parameters, tombstones, generation FROM rk_stats WHERE indexId = ?")
    try statement.bind(int: indexID, at: 1)
    guard try statement.step() else { return nil }
    defer { statement.reset() }
    var stats = RankedStatistics(fieldCount: Self.fieldCount, generation: statement.int64(5))
    stats.documentCount = Int(statement.int64(0))
    let lengths = Varint.decodeAll(statement.blob(1)).map { Int($0) }
    stats.fingerprint = statement.string(3) ?? ""
    // Totals, then the number of documents with each field.
    guard lengths.count == 2 * Self.fieldCount else {
      stats.fingerprint = "corrupt"
      return stats
    }
    stats.totalFieldLengths = Array(lengths[..<Self.fieldCount])
    stats.fieldDocumentCounts = Array(lengths[Self.fieldCount...])
    if !statement.isNull(2) {
      let basis = RankedStatistics.decodeDoubles(statement.blob(2))
      if basis.count == Self.fieldCount { stats.basis = ScoreBoundBasis(averageFieldLengths: basis) }
    }
    stats.tombstones = Int(statement.int64(4))
    return stats
  }

  func save(_ stats: RankedStatistics) throws {
    try db.run(
      "INSERT OR REPLACE INTO rk_stats(indexId, documents, lengths, basis, parameters, tombstones, generation) VALUES (?, ?, ?, ?, ?, ?, ?)",
      [.integer(indexID), .integer(Int64(stats.documentCount)), .blob(RankedStatistics.encode(stats.totalFieldLengths + stats.fieldDocumentCounts)),
       stats.basis.map { .blob(RankedStatistics.encode($0.averageFieldLengths)) } ?? .null,
       .text(stats.fingerprint), .integer(Int64(stats.tombstones)), .integer(stats.generation)])
  }

  // MARK: - Lexicon

  /// The term's id and live document frequency, nil when the index never saw it.
  func term(_ text: String) throws(DatabaseError) -> (id: TermID, df: Int)? {
    let statement = try statement(.term, "SELECT id, df FROM rk_terms WHERE indexId = ? AND term = ?")
    try statement.bind(int: indexID, at: 1)
    try statement.bind(text: text, at: 2)
    guard try statement.step() else { return nil }
    defer { statement.reset() }
    return (TermID(truncatingIfNeeded: statement.int64(0)), Int(statement.int64(1)))
  }

  /// Adds a term with the id the writer chose (ids are file-wide: `max(id) + 1` onwards).
  func insertTerm(id: TermID, text: String, df: Int) throws {
    let statement = try statement(.insertTerm, "INSERT INTO rk_terms(id, indexId, term, df) VALUES (?, ?, ?, ?)")
    try statement.bind(int: Int64(id), at: 1)
    try statement.bind(int: indexID, at: 2)
    try statement.bind(text: text, at: 3)
    try statement.bind(int: Int64(df), at: 4)
    try statement.step()
  }

  func addDocumentFrequency(_ delta: Int, to term: TermID) throws {
    let statement = try statement(.addDocumentFrequency, "UPDATE rk_terms SET df = df + ? WHERE id = ?")
    try statement.bind(int: Int64(delta), at: 1)
    try statement.bind(int: Int64(term), at: 2)
    try statement.step()
  }

  /// Every term id of this index with its stored block count and posting count.
  func termBlockCounts() throws -> [(term: TermID, blocks: Int, postings: Int)] {
    try db.rows(
      "SELECT b.term, count(*), sum(b.count) FROM rk_terms t JOIN rk_blocks b ON b.term = t.id WHERE t.indexId = ? GROUP BY b.term",
      [.integer(indexID)]
    ) { (TermID(truncatingIfNeeded: $0.int64(0)), Int($0.int64(1)), Int($0.int64(2))) }
  }

  // MARK: - Blocks

  private static let blockColumns = "firstDoc, lastDoc, count, bound, payload"

  private static func block(_ row: Statement) -> PostingBlock {
    PostingBlock(
      firstDoc: row.int64(0), lastDoc: row.int64(1), count: Int32(truncatingIfNeeded: row.int64(2)),
      maxPseudoTF: Float(row.double(3)), payload: row.blob(4))
  }

  /// All blocks of the term, in doc order.
  func postingList(_ term: TermID) throws -> PostingList {
    let statement = try db.cachedStatement("SELECT \(Self.blockColumns) FROM rk_blocks WHERE term = ? ORDER BY lastDoc")
    try statement.bind(int: Int64(term), at: 1)
    var blocks: [PostingBlock] = []
    while try statement.step() { blocks.append(Self.block(statement)) }
    return PostingList(blocks: blocks)
  }

  /// The block with the smallest lastDoc >= `doc` (the one `doc` belongs in), nil past the end.
  func block(of term: TermID, atOrAfter doc: DocID) throws -> PostingBlock? {
    let statement = try statement(
      .blockAtOrAfter, "SELECT \(Self.blockColumns) FROM rk_blocks WHERE term = ? AND lastDoc >= ? ORDER BY lastDoc LIMIT 1")
    try statement.bind(int: Int64(term), at: 1)
    try statement.bind(int: doc, at: 2)
    guard try statement.step() else { return nil }
    defer { statement.reset() }
    return Self.block(statement)
  }

  /// The term's last block.
  func tailBlock(of term: TermID) throws -> PostingBlock? {
    let statement = try statement(
      .tailBlock, "SELECT \(Self.blockColumns) FROM rk_blocks WHERE term = ? ORDER BY lastDoc DESC LIMIT 1")
    try statement.bind(int: Int64(term), at: 1)
    guard try statement.step() else { return nil }
    defer { statement.reset() }
    return Self.block(statement)
  }

  func deleteBlock(of term: TermID, lastDoc: DocID) throws {
    let statement = try statement(.deleteBlock, "DELETE FROM rk_blocks WHERE term = ? AND lastDoc = ?")
    try statement.bind(int: Int64(term), at: 1)
    try statement.bind(int: lastDoc, at: 2)
    try statement.step()
  }

  func insert(_ block: PostingBlock, of term: TermID) throws {
    let statement = try statement(
      .insertBlock, "INSERT INTO rk_blocks(term, lastDoc, firstDoc, count, bound, payload) VALUES (?, ?, ?, ?, ?, ?)")
    try statement.bind(int: Int64(term), at: 1)
    try statement.bind(int: block.lastDoc, at: 2)
    try statement.bind(int: block.firstDoc, at: 3)
    try statement.bind(int: Int64(block.count), at: 4)
    try statement.bind(double: Double(block.maxPseudoTF), at: 5)
    try statement.bind(.blob(block.payload), at: 6)
    try statement.step()
  }

  func updateBound(of term: TermID, lastDoc: DocID, to bound: Float) throws {
    let statement = try db.cachedStatement("UPDATE rk_blocks SET bound = ? WHERE term = ? AND lastDoc = ?")
    try statement.bind(double: Double(bound), at: 1)
    try statement.bind(int: Int64(term), at: 2)
    try statement.bind(int: lastDoc, at: 3)
    try statement.step()
  }

  // MARK: - Documents

  func page(_ number: Int64) throws -> DocumentPage? {
    let statement = try db.cachedStatement("SELECT data FROM rk_pages WHERE indexId = ? AND page = ?")
    try statement.bind(int: indexID, at: 1)
    try statement.bind(int: number, at: 2)
    guard try statement.step() else { return nil }
    defer { statement.reset() }
    guard let page = statement.withBlob(0, { DocumentPage.decode(number: number, fieldCount: Self.fieldCount, bytes: $0) }) else {
      throw DatabaseError(code: .corrupt, message: "ranked index: page \(number) is malformed")
    }
    return page
  }

  func save(_ page: DocumentPage) throws {
    if page.liveCount == 0 {
      try db.run("DELETE FROM rk_pages WHERE indexId = ? AND page = ?", [.integer(indexID), .integer(page.number)])
    } else {
      try db.run(
        "INSERT OR REPLACE INTO rk_pages(indexId, page, data) VALUES (?, ?, ?)",
        [.integer(indexID), .integer(page.number), .blob(page.encoded())])
    }
  }

  // MARK: - Tombstones

  func tombstone(_ doc: DocID) throws -> [UInt8]? {
    let statement = try db.cachedStatement("SELECT terms FROM rk_dead WHERE doc = ? AND indexId = ?")
    try statement.bind(int: doc, at: 1)
    try statement.bind(int: indexID, at: 2)
    guard try statement.step() else { return nil }
    defer { statement.reset() }
    return statement.blob(0)
  }

  func saveTombstone(_ terms: [UInt8], of doc: DocID) throws {
    let statement = try db.cachedStatement("INSERT OR REPLACE INTO rk_dead(doc, indexId, terms) VALUES (?, ?, ?)")
    try statement.bind(int: doc, at: 1)
    try statement.bind(int: indexID, at: 2)
    try statement.bind(.blob(terms), at: 3)
    try statement.step()
  }

  func deleteTombstone(_ doc: DocID) throws {
    let statement = try db.cachedStatement("DELETE FROM rk_dead WHERE doc = ?")
    try statement.bind(int: doc, at: 1)
    try statement.step()
  }

  func allTombstones() throws -> [(doc: DocID, terms: [UInt8])] {
    try db.rows("SELECT doc, terms FROM rk_dead WHERE indexId = ? ORDER BY doc", [.integer(indexID)]) {
      ($0.int64(0), $0.blob(1))
    }
  }

  func deleteAllTombstones() throws {
    try db.run("DELETE FROM rk_dead WHERE indexId = ?", [.integer(indexID)])
  }

  // MARK: - Whole index

  /// Removes every ranked row of this index (before a rebuild): its lexicon, then every
  /// posting list under a term id no lexicon row has, which is this index's lists and any
  /// list filed under a wrong id (what `check` reports as missing from the lexicon).
  func wipe() throws {
    try db.run("DELETE FROM rk_terms WHERE indexId = ?", [.integer(indexID)])
    try db.run("DELETE FROM rk_blocks WHERE term NOT IN (SELECT id FROM rk_terms)")
    try db.run("DELETE FROM rk_dead WHERE indexId = ?", [.integer(indexID)])
    try db.run("DELETE FROM rk_pages WHERE indexId = ?", [.integer(indexID)])
    try db.run("DELETE FROM rk_stats WHERE indexId = ?", [.integer(indexID)])
  }
}
