import Foundation

/// An item waiting for its vectors: its rowid, when it was written (a rewrite in the
/// meantime makes the vectors stale, so they are not stored), and its text chunks.
package struct PendingEmbedding: Sendable, Hashable {
  package var rowid: Int64
  package var indexedAt: Double
  package var chunks: [String]
}

/// How many items of a named index have vectors, wait for them, or failed.
public struct EmbeddingCounts: Sendable, Hashable {
  public var embedded: Int
  public var pending: Int
  public var failed: Int
  public var vectors: Int
}

extension SearchIndex {
  /// True when the file has the embedding tables (a read-only file from before schema 2 has not).
  static func hasVectorTables(_ db: Connection) throws -> Bool {
    try db.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'embedding_models'")?.int64Value == 1
  }

  static func loadEmbeddingConfiguration(_ db: Connection, indexID: Int64) throws -> EmbeddingConfiguration? {
    guard try hasVectorTables(db) else { return nil }
    return try db.rows("SELECT model, dimensions, url FROM embedding_models WHERE indexId = ?", [.integer(indexID)]) {
      EmbeddingConfiguration(model: $0.string(0) ?? "", dimensions: Int($0.int64(1)), url: $0.string(2) ?? "")
    }.first
  }

  /// The embedding model this index records; nil when it has no embeddings.
  public func embeddingConfiguration() throws(SearchIndexError) -> EmbeddingConfiguration? {
    try read { db in try Self.loadEmbeddingConfiguration(db, indexID: indexID) }
  }

  /// Items with vectors, items waiting for them, items whose embedding failed.
  public func embeddingCounts() throws(SearchIndexError) -> EmbeddingCounts {
    try read { db in
      guard try Self.hasVectorTables(db) else { return EmbeddingCounts(embedded: 0, pending: 0, failed: 0, vectors: 0) }
      let id = SQLValue.integer(indexID)
      let embedded = try db.scalar(
        "SELECT count(DISTINCT v.item) FROM vectors v JOIN items i ON i.rowid = v.item WHERE i.indexId = ?", [id])?.int64Value ?? 0
      let vectors = try db.scalar(
        "SELECT count(*) FROM vectors v JOIN items i ON i.rowid = v.item WHERE i.indexId = ?", [id])?.int64Value ?? 0
      let failed = try db.scalar(
        "SELECT count(*) FROM embedding_status s JOIN items i ON i.rowid = s.item WHERE i.indexId = ? AND s.state = 'failed'", [id])?.int64Value ?? 0
      let pending = try db.scalar(
        """
        SELECT count(*) FROM items i WHERE i.indexId = ?
          AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.item = i.rowid)
          AND NOT EXISTS (SELECT 1 FROM embedding_status s WHERE s.item = i.rowid)
        """, [id])?.int64Value ?? 0
      return EmbeddingCounts(embedded: Int(embedded), pending: Int(pending), failed: Int(failed), vectors: Int(vectors))
    }
  }

  /// Up to `limit` items after rowid `after` that have no vector: never embedded ones, and
  /// with `includeFailed` those whose embedding failed. Items without text are left out.
  package func pendingEmbeddings(after: Int64, limit: Int, includeFailed: Bool) throws(SearchIndexError) -> [PendingEmbedding] {
    try read { db in
      guard try Self.hasVectorTables(db) else { return [] }
      let statusFilter = includeFailed
        ? "NOT EXISTS (SELECT 1 FROM embedding_status s WHERE s.item = i.rowid AND s.state = 'empty')"
        : "NOT EXISTS (SELECT 1 FROM embedding_status s WHERE s.item = i.rowid)"
      // The text is the full-text columns derived from the record (and the unstored text of
      // an index that keeps textContent searchable but not stored).
      let catalog = try Self.loadCatalog(db)
      return try db.rows(
        """
        SELECT i.rowid, i.indexedAt, i.attributes, u.text FROM items i LEFT JOIN fts_unstored u ON u.item = i.rowid
        WHERE i.indexId = ? AND i.rowid > ? AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.item = i.rowid) AND \(statusFilter)
        ORDER BY i.rowid LIMIT ?
        """, [.integer(indexID), .integer(after), .integer(Int64(limit))]
      ) { row in
        let columns = try FullTextColumns.texts(ofRecord: try row.recordText(2), catalog: catalog, unstoredText: row.string(3))
        return PendingEmbedding(
          rowid: row.int64(0), indexedAt: row.double(1),
          chunks: EmbeddingText.chunks(title: columns[0], description: columns[2], body: columns[3]))
      }
    }
  }

  /// Number of items `pendingEmbeddings` would return in total.
  package func pendingEmbeddingCount(includeFailed: Bool) throws(SearchIndexError) -> Int {
    let counts = try embeddingCounts()
    return counts.pending + (includeFailed ? counts.failed : 0)
  }

  /// Stores one batch in one transaction: vectors (normalised) for `embedded`, `failed` and
  /// `empty` marks for the others, and the configuration when the index has none yet.
  /// Items rewritten since they were read are skipped (they are pending again). Throws
  /// `EmbeddingError` (mismatch) when the index records another model or size.
  package func storeEmbeddings(
    _ embedded: [(PendingEmbedding, [[Float]])], failed: [(PendingEmbedding, String)], empty: [PendingEmbedding],
    configuration: EmbeddingConfiguration
  ) throws {
    try write { writer in
      let db = writer.db
      if let recorded = try Self.loadEmbeddingConfiguration(db, indexID: indexID) {
        try Self.check(configuration, against: recorded)
      } else if configuration.dimensions > 0 {
        // Recorded with the first vectors (a batch of items without text has no size yet).
        try db.run("INSERT INTO embedding_models(indexId, model, dimensions, url) VALUES (?, ?, ?, ?)",
                   [.integer(indexID), .text(configuration.model), .integer(Int64(configuration.dimensions)), .text(configuration.url)])
      }
      func unchanged(_ item: PendingEmbedding) throws -> Bool {
        try db.scalar("SELECT 1 FROM items WHERE rowid = ? AND indexedAt = ?", [.integer(item.rowid), .real(item.indexedAt)]) != nil
      }
      let insert = try db.cachedStatement("INSERT INTO vectors(item, chunk, vector) VALUES (?, ?, ?)")
      for (item, vectors) in embedded where try unchanged(item) {
        try db.run("DELETE FROM vectors WHERE item = ?", [.integer(item.rowid)])
        try db.run("DELETE FROM embedding_status WHERE item = ?", [.integer(item.rowid)])
        for (chunk, vector) in vectors.enumerated() {
          guard vector.count == configuration.dimensions else {
            throw EmbeddingError(.mismatch, "the endpoint returned a vector of \(vector.count) dimensions; the index uses \(configuration.dimensions)")
          }
          try insert.execute([.integer(item.rowid), .integer(Int64(chunk)), .blob(VectorCodec.encode(VectorCodec.normalized(vector)))])
        }
      }
      for (item, message) in failed where try unchanged(item) {
        try db.run("INSERT OR REPLACE INTO embedding_status(item, state, message) VALUES (?, 'failed', ?)", [.integer(item.rowid), .text(message)])
      }
      for item in empty where try unchanged(item) {
        try db.run("INSERT OR REPLACE INTO embedding_status(item, state, message) VALUES (?, 'empty', NULL)", [.integer(item.rowid)])
      }
      writer.markChanged()
    }
  }

  /// Throws when `requested` cannot share an index with `recorded`.
  package static func check(_ requested: EmbeddingConfiguration, against recorded: EmbeddingConfiguration) throws(EmbeddingError) {
    if requested.model != recorded.model {
      throw EmbeddingError(.mismatch,
        "the index's embeddings come from model '\(recorded.model)', not '\(requested.model)'; use --model \(recorded.model), or --clear to drop them and start over")
    }
    if requested.dimensions != recorded.dimensions {
      throw EmbeddingError(.mismatch,
        "the index's embeddings have \(recorded.dimensions) dimensions, not \(requested.dimensions) (model '\(recorded.model)')")
    }
  }

  /// Deletes every vector, status mark and the recorded model of this named index.
  @discardableResult
  public func clearEmbeddings() throws(SearchIndexError) -> Int {
    try writeTyped { writer in
      let db = writer.db
      let id = SQLValue.integer(indexID)
      let count = try db.scalar("SELECT count(DISTINCT item) FROM vectors WHERE item IN (SELECT rowid FROM items WHERE indexId = ?)", [id])?.int64Value ?? 0
      try db.run("DELETE FROM vectors WHERE item IN (SELECT rowid FROM items WHERE indexId = ?)", [id])
      try db.run("DELETE FROM embedding_status WHERE item IN (SELECT rowid FROM items WHERE indexId = ?)", [id])
      try db.run("DELETE FROM embedding_models WHERE indexId = ?", [id])
      writer.markChanged()
      return Int(count)
    }
  }

  /// Whether the index records an embedding model (`vectorMatrix` is nil without one).
  package func hasEmbeddings(_ db: Connection) throws -> Bool {
    try Self.loadEmbeddingConfiguration(db, indexID: indexID) != nil
  }

  /// The vectors of this named index as a matrix, read in the read transaction open on `db`;
  /// nil when the index has no embeddings. The matrix is kept until the generation changes,
  /// so a REPL, an MCP server or a benchmark reads the vectors once.
  package func vectorMatrix(_ db: Connection) throws -> VectorMatrix? {
    guard let configuration = try Self.loadEmbeddingConfiguration(db, indexID: indexID) else { return nil }
    let generation = try db.scalar("SELECT value FROM meta WHERE key = 'generation'")?.int64Value ?? 0
    if let cached = vectorCache.withLock({ $0 }), cached.generation == generation { return cached.matrix }
    let rows = try db.scalar("SELECT count(*) FROM items i JOIN vectors v ON v.item = i.rowid WHERE i.indexId = ?", [.integer(indexID)])?.int64Value ?? 0
    let matrix = try Self.loadMatrix(
      db, sql: "SELECT v.item, v.vector FROM items i JOIN vectors v ON v.item = i.rowid WHERE i.indexId = ? ORDER BY v.item, v.chunk",
      arguments: [.integer(indexID)], dimensions: configuration.dimensions, expectedRows: Int(rows))
    vectorCache.withLock { $0 = (generation, matrix) }
    return matrix
  }

  /// Reads (item, vector BLOB) rows into one matrix in a single pass.
  package static func loadMatrix(_ db: Connection, sql: String, arguments: [SQLValue], dimensions: Int, expectedRows: Int = 0) throws -> VectorMatrix {
    let statement = try db.makeStatement(sql)
    try statement.bind(arguments)
    var values: [Float] = []
    var items: [Int64] = []
    values.reserveCapacity(expectedRows * dimensions)
    items.reserveCapacity(expectedRows)
    while try statement.step() {
      let ok = statement.withBlob(1) { bytes -> Bool in
        guard bytes.count == dimensions * 4 else { return false }
        VectorCodec.decode(bytes, into: &values)
        return true
      }
      if ok { items.append(statement.int64(0)) }
    }
    return VectorMatrix(dimensions: dimensions, values: values, items: items)
  }

}
