import Foundation

/// A change staged for one identifier in the index's journal (outbox).
public struct JournalEntry: Sendable, Hashable {
  public enum Operation: String, Sendable, Hashable {
    case upsert, delete
  }

  public var identifier: String
  /// Monotonically increasing across the file; a newer staging of the same identifier
  /// replaces an older pending one.
  public var revision: Int64
  public var operation: Operation
  /// The item to store (upserts).
  public var item: SearchableItem?
  /// The source that produced the change and its key there (a file path, a row id), with the
  /// version it had; applied together with the change so syncs know what the index holds.
  public var source: String?
  public var sourceKey: String?
  public var version: String?

  public init(
    identifier: String, revision: Int64 = 0, operation: Operation, item: SearchableItem? = nil, source: String? = nil,
    sourceKey: String? = nil, version: String? = nil
  ) {
    self.identifier = identifier
    self.revision = revision
    self.operation = operation
    self.item = item
    self.source = source
    self.sourceKey = sourceKey
    self.version = version
  }

  /// Stages storing `item`.
  public static func upsert(_ item: SearchableItem, source: String? = nil, sourceKey: String? = nil, version: String? = nil) -> JournalEntry {
    JournalEntry(identifier: item.uniqueIdentifier, operation: .upsert, item: item, source: source, sourceKey: sourceKey, version: version)
  }

  /// Stages deleting the item `identifier` (a tombstone).
  public static func delete(_ identifier: String, source: String? = nil, sourceKey: String? = nil) -> JournalEntry {
    JournalEntry(identifier: identifier, operation: .delete, source: source, sourceKey: sourceKey)
  }
}

/// What applying journal work changed.
public struct ApplyReport: Sendable, Hashable {
  public var upserted: [String] = []
  public var deleted: [String] = []
  /// Entries that stayed pending because a newer revision was staged while they applied.
  public var superseded = 0
  public init() {}
}

/// The index as derived data: changes are staged in a durable journal, then applied in
/// batches. Staging is one transaction; applying an entry and marking it done happen in the
/// same transaction, so a crash at any moment leaves work pending, never lost, and completing
/// an older revision never erases newer work.
extension SearchIndex {
  /// Stages changes in one transaction; returns their revisions.
  @discardableResult
  public func stage(_ entries: [JournalEntry]) throws(SearchIndexError) -> [Int64] {
    try writeTyped { writer in try writer.stage(entries) }
  }

  /// Entries waiting to be applied, oldest revision first.
  public func pendingWork(limit: Int = .max) throws(SearchIndexError) -> [JournalEntry] {
    try read { db in
      let catalog = try Self.loadCatalog(db)
      return try Self.journalRows(db, indexID: indexID, limit: limit, catalog: catalog)
    }
  }

  /// Number of entries waiting.
  public func pendingCount() throws(SearchIndexError) -> Int {
    try read { db in Int(try db.scalar("SELECT count(*) FROM journal WHERE indexId = ?", [.integer(indexID)])?.int64Value ?? 0) }
  }

  static func journalRows(_ db: Connection, indexID: Int64, limit: Int, catalog: AttributeCatalog) throws -> [JournalEntry] {
    try db.rows(
      "SELECT id, revision, op, item, source, sourceKey, version FROM journal WHERE indexId = ? ORDER BY revision LIMIT ?",
      [.integer(indexID), .integer(Int64(min(limit, Int(Int32.max))))]
    ) { row in
      var entry = JournalEntry(
        identifier: row.string(0) ?? "", revision: row.int64(1), operation: JournalEntry.Operation(rawValue: row.string(2) ?? "") ?? .delete,
        source: row.string(4), sourceKey: row.string(5), version: row.string(6))
      if let json = row.string(3) { entry.item = try StoredItem.decodeCanonical(json, catalog: catalog) }
      return entry
    }
  }

  /// Applies pending entries in batches of `batchSize`, each batch one transaction that also
  /// removes the entries it applied (only at the revision it applied). `afterBatch` sees
  /// each batch's report (progress, tests).
  @discardableResult
  public func applyPendingWork(batchSize: Int = 500, afterBatch: (ApplyReport) -> Void = { _ in }) throws(SearchIndexError) -> ApplyReport {
    var total = ApplyReport()
    while true {
      let report = try writeTyped { writer -> ApplyReport? in
        let entries = try Self.journalRows(writer.db, indexID: writer.indexID, limit: batchSize, catalog: writer.catalog)
        if entries.isEmpty { return nil }
        return try writer.apply(entries)
      }
      guard let report else { break }
      total.upserted += report.upserted
      total.deleted += report.deleted
      total.superseded += report.superseded
      afterBatch(report)
    }
    return total
  }

  /// What a source delivered last, by key: (item id, version). A folder's record of a file
  /// that gave no item (`FolderFiles`, the empty identifier) is not an item delivered.
  public func sourceState(_ source: String) throws(SearchIndexError) -> [String: (id: String, version: String)] {
    try read { db in
      var state: [String: (String, String)] = [:]
      for (key, id, version) in try db.rows(
        "SELECT sourceKey, id, version FROM source_state WHERE indexId = ? AND source = ? AND id <> ''", [.integer(indexID), .text(source)],
        { ($0.string(0) ?? "", $0.string(1) ?? "", $0.string(2) ?? "") })
      {
        state[key] = (id, version)
      }
      return state
    }
  }

  /// Pending entries of a source, by key (staged but not yet applied).
  public func pendingSourceKeys(_ source: String) throws(SearchIndexError) -> [String: JournalEntry.Operation] {
    try read { db in
      var keys: [String: JournalEntry.Operation] = [:]
      for (key, op) in try db.rows(
        "SELECT sourceKey, op FROM journal WHERE indexId = ? AND source = ? AND sourceKey IS NOT NULL", [.integer(indexID), .text(source)],
        { ($0.string(0) ?? "", $0.string(1) ?? "") })
      {
        keys[key] = JournalEntry.Operation(rawValue: op)
      }
      return keys
    }
  }

  /// Identifiers of stored items in `domain` (and its sub-domains), for full reconciliation.
  public func identifiers(inDomain domain: String) throws(SearchIndexError) -> Set<String> {
    try read { db in
      Set(try db.rows(
        "SELECT id FROM items WHERE indexId = ? AND (domain = ? OR (domain >= ? AND domain < ?))",
        [.integer(indexID), .text(domain), .text(domain + "."), .text(domain + "/")]) { $0.string(0) ?? "" })
    }
  }

  /// Whether `textContent` is stored with items (true, the default) or only made searchable,
  /// for hydration to supply from the app's store. Affects items written from now on.
  public func setStoresText(_ stores: Bool) throws(SearchIndexError) {
    try writeTyped { writer in
      try writer.db.run("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", [.text("storesText:\(writer.indexID)"), .integer(stores ? 1 : 0)])
    }
  }

  /// Which of these items keep their `textContent` searchable but not stored (indexed with
  /// `setStoresText(false)`): their text comes only from the app's store, by hydration.
  public func identifiersWithUnstoredText(_ identifiers: [String]) throws(SearchIndexError) -> Set<String> {
    guard !identifiers.isEmpty else { return [] }
    return try read { db in
      var found = Set<String>()
      // SQLite limits bound parameters per statement; ask in chunks.
      for start in stride(from: 0, to: identifiers.count, by: 500) {
        let chunk = Array(identifiers[start..<min(start + 500, identifiers.count)])
        let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
        let rows = try db.rows(
          "SELECT i.id FROM items i JOIN fts_unstored u ON u.item = i.rowid WHERE i.indexId = ? AND i.id IN (\(marks))",
          [.integer(indexID)] + chunk.map { .text($0) }) { $0.string(0) ?? "" }
        found.formUnion(rows)
      }
      return found
    }
  }

  /// Records how a source is configured (hydration asks it for current records later).
  public func recordSource(name: String, configuration: JSONValue) throws(SearchIndexError) {
    try writeTyped { writer in
      try writer.db.run("INSERT OR REPLACE INTO sources(indexId, name, config) VALUES (?, ?, ?)",
                        [.integer(writer.indexID), .text(name), .text(configuration.compactText)])
    }
  }

  /// The sources recorded by syncs, by name.
  public func recordedSources() throws(SearchIndexError) -> [(name: String, configuration: JSONValue)] {
    try read { db in
      try db.rows("SELECT name, config FROM sources WHERE indexId = ? ORDER BY name", [.integer(indexID)]) { row in
        (row.string(0) ?? "", (try? JSONParser.parse(row.string(1) ?? "{}")) ?? .null)
      }
    }
  }
}

extension IndexWriter {
  /// Stages entries: each gets the next revision and replaces any pending entry of its
  /// identifier.
  mutating func stage(_ entries: [JournalEntry]) throws -> [Int64] {
    var revision = try db.scalar("SELECT value FROM meta WHERE key = 'journalRevision'")?.int64Value ?? 0
    var revisions: [Int64] = []
    let statement = try db.cachedStatement(
      "INSERT OR REPLACE INTO journal(indexId, id, revision, op, item, source, sourceKey, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
    for entry in entries {
      revision += 1
      if let item = entry.item {
        // Validate now, so bad data fails at staging rather than blocking the journal.
        try validateForStaging(item)
      }
      try statement.bind([
        .integer(indexID), .text(entry.identifier), .integer(revision), .text(entry.operation.rawValue),
        entry.item.map { .text(JSONValue.object($0.jsonObject).compactText) } ?? .null,
        entry.source.map(SQLValue.text) ?? .null, entry.sourceKey.map(SQLValue.text) ?? .null, entry.version.map(SQLValue.text) ?? .null,
      ])
      while try statement.step() {}
      revisions.append(revision)
    }
    try db.run("INSERT OR REPLACE INTO meta(key, value) VALUES ('journalRevision', ?)", [.integer(revision)])
    return revisions
  }

  /// Applies entries and removes exactly the revisions applied, in the caller's transaction.
  mutating func apply(_ entries: [JournalEntry]) throws -> ApplyReport {
    var report = ApplyReport()
    var deletedThrough = -1
    for (number, entry) in entries.enumerated() {
      switch entry.operation {
      case .upsert:
        guard let item = entry.item else { continue }
        try upsert(item)
        report.upserted.append(entry.identifier)
      case .delete:
        if number > deletedThrough {
          // A run of deletes goes in one statement of each kind, not one per item.
          let run = entries[number...].prefix { $0.operation == .delete }
          _ = try delete(identifiers: run.map(\.identifier))
          deletedThrough = number + run.count - 1
        }
        report.deleted.append(entry.identifier)
      }
      if let source = entry.source, let key = entry.sourceKey {
        if entry.operation == .upsert, let version = entry.version {
          try db.run("INSERT OR REPLACE INTO source_state(indexId, source, sourceKey, id, version) VALUES (?, ?, ?, ?, ?)",
                     [.integer(indexID), .text(source), .text(key), .text(entry.identifier), .text(version)])
        } else {
          try db.run("DELETE FROM source_state WHERE indexId = ? AND source = ? AND sourceKey = ?", [.integer(indexID), .text(source), .text(key)])
        }
      }
      // Done only at this revision: a newer staging of the same id stays pending.
      try db.run("DELETE FROM journal WHERE indexId = ? AND id = ? AND revision = ?",
                 [.integer(indexID), .text(entry.identifier), .integer(entry.revision)])
      if db.changes == 0 { report.superseded += 1 }
    }
    return report
  }
}
