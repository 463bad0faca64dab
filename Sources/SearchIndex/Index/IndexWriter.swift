import Foundation

/// Writes items inside one open transaction of `SearchIndex.write`.
///
/// Every statement is prepared once per connection (the connection caches them by SQL), so
/// ingesting a million items prepares a handful of statements, not millions.
package struct IndexWriter {
  package let db: Connection
  let indexID: Int64
  /// The catalogue as of the start of the transaction plus what this transaction declared.
  package private(set) var catalog: AttributeCatalog
  private var attributeIDs: [String: Int64] = [:]
  /// Attributes known to have long text values (`attributes.hasLong`).
  private var longAttributes = Set<Int64>()
  private(set) var changed = false
  /// True once this transaction rewrote or deleted an existing item (not only added), for
  /// binaries whose summaries grow only across added items (`SummaryState.rewrittenKey`).
  private var rewrites = false
  /// The items this transaction rewrites or deletes, as they were (`SummaryLog`).
  private var removals: SummaryLog.Recorder
  /// Items written or deleted in this transaction.
  private(set) var rowsWritten = 0
  /// Items `upsert` left alone because they were stored exactly as given.
  package private(set) var unchanged = 0
  /// The largest rowid when the transaction began: at least the number of items then.
  private let itemsAtStart: Int64
  /// True while the value indexes that inserts reach at random (`Schema.bulkLoadIndexes`) are
  /// dropped, to be built again by `finish` (see `bulkLoadRows`).
  private var valueIndexesDropped = false

  /// Items a transaction writes, beyond which (and beyond the items the file held) it drops
  /// the value indexes whose inserts land at random places (`Schema.bulkLoadIndexes`) and
  /// builds them again, sorted, before it commits. A million Zipf titles inserted one by one
  /// into `(attr, fold, str)` thrashed the page cache: every insert read and later wrote back
  /// a random page (11.8 GB written for a 2 GB file); sorting them once at the end made the
  /// ingest 6-10% faster. Below a few hundred thousand items the indexes fit the page cache
  /// and the rebuild costs more than it saves (the 64k-package catalogue ingested 7% slower
  /// with 50,000). The rule bounds the rebuild by twice what the transaction wrote. A
  /// task-local so tests reach it with a few items.
  @TaskLocal package static var bulkLoadRows = 200_000
  /// False when the index keeps `textContent` only in the full-text index: hydration
  /// supplies the text from the app's store (as on Apple's platforms).
  let storesText: Bool
  /// The ranked index (exact BM25 top-k postings), maintained in this transaction.
  let ranked: RankedWriter
  /// Trains the file's record dictionary when it has none and holds enough records.
  private var recordDictionary: RecordDictionaryBuilder

  init(connection: Connection, indexID: Int64) throws {
    self.db = connection
    self.indexID = indexID
    self.catalog = try SearchIndex.loadCatalog(connection)
    self.storesText = try connection.scalar("SELECT value FROM meta WHERE key = ?", [.text("storesText:\(indexID)")])?.int64Value != 0
    self.ranked = RankedWriter(connection: connection, indexID: indexID)
    self.recordDictionary = try RecordDictionaryBuilder(connection)
    self.removals = try SummaryLog.Recorder(connection)
    self.itemsAtStart = try connection.scalar("SELECT max(rowid) FROM items")?.int64Value ?? 0
    // Files written before the setting existed get it with their first write.
    if try !Schema.hasFullTextSettings(connection) { try Schema.configureFullText(connection) }
    for (name, id, long) in try db.rows("SELECT name, id, hasLong FROM attributes", [], { ($0.string(0) ?? "", $0.int64(1), $0.int64(2)) }) {
      attributeIDs[name] = id
      if long != 0 { longAttributes.insert(id) }
    }
  }

  /// Records that a custom attribute has `type` (declared by the app or inferred from data).
  package mutating func declare(_ name: String, as type: AttributeType) throws {
    do { try catalog.declare(name, as: type) } catch { throw SearchIndexError.invalidItem(id: nil, message: error.description) }
  }

  /// Adopts the types a decoder inferred while reading input.
  package mutating func adopt(_ decoded: AttributeCatalog) throws {
    for (name, type) in decoded.customTypes where catalog.type(of: name) == nil { try declare(name, as: type) }
  }

  private mutating func attributeID(_ name: String, type: AttributeType) throws -> Int64 {
    if let id = attributeIDs[name] { return id }
    try db.run("INSERT INTO attributes(name, type, custom) VALUES (?, ?, ?)",
               [.text(name), .text(type.description), .integer(catalog.isStandard(name) ? 0 : 1)])
    let id = db.lastInsertRowID
    attributeIDs[name] = id
    return id
  }

  /// The stored row of the item `id`: its rowid, record and the other stored columns.
  private struct ExistingRow {
    var rowid: Int64
    var attributes: String
    var domain: String?
    var contentType: String?
    var expiration: Double?
    var protection: String?
  }

  private func existingRow(_ id: String) throws -> ExistingRow? {
    let statement = try db.cachedStatement(
      "SELECT rowid, attributes, domain, contentType, expiration, protection FROM items WHERE indexId = ? AND id = ?")
    try statement.bind(int: indexID, at: 1)
    try statement.bind(text: id, at: 2)
    guard try statement.step() else { return nil }
    let result = ExistingRow(
      rowid: statement.int64(0), attributes: try statement.recordText(1), domain: statement.string(2),
      contentType: statement.string(3), expiration: statement.isNull(4) ? nil : statement.double(4),
      protection: statement.string(5))
    statement.reset()
    return result
  }

  /// True when the stored row already holds exactly what `item` would write: the same record,
  /// item fields and (for an index that does not store text) the same searchable-only text.
  private func isUnchanged(_ existing: ExistingRow, _ item: SearchableItem, json: String, unstoredText: String?) throws -> Bool {
    guard existing.attributes == json, existing.domain == item.domainIdentifier, existing.contentType == item.contentType,
      existing.expiration == item.expirationDate?.timeIntervalSince1970, existing.protection == item.protectionClass
    else { return false }
    guard !storesText else { return true }
    let stored = try db.scalar("SELECT text FROM fts_unstored WHERE item = ?", [.integer(existing.rowid)])?.stringValue
    return (stored ?? "") == (unstoredText ?? "")
  }

  /// Checks an item that is being staged in the journal, as `upsert` would.
  mutating func validateForStaging(_ item: SearchableItem) throws { try validate(item) }

  /// Checks every value against the catalogue before anything is written.
  private mutating func validate(_ item: SearchableItem) throws {
    if let domain = item.domainIdentifier {
      do { try ItemDecoder.validateDomain(domain) } catch {
        throw SearchIndexError.invalidItem(id: item.uniqueIdentifier, message: error.message)
      }
    }
    guard !item.uniqueIdentifier.isEmpty else { throw SearchIndexError.invalidItem(id: nil, message: "empty identifier") }
    for (name, value) in item.attributeSet {
      if StandardAttributes.itemFields.contains(name) {
        throw SearchIndexError.invalidItem(id: item.uniqueIdentifier, message: "'\(name)' is an item field, not an attribute")
      }
      let type: AttributeType
      if let known = catalog.type(of: name) {
        type = known
      } else {
        type = Self.type(of: value)
        try declare(name, as: type)
      }
      guard Self.conforms(value, to: type) else {
        throw SearchIndexError.invalidItem(id: item.uniqueIdentifier, message: "attribute '\(name)' is \(type), got \(Self.type(of: value))")
      }
    }
  }

  static func type(of value: AttributeValue) -> AttributeType {
    switch value {
    case .string: .string
    case .number: .number
    case .date: .date
    case .bool: .bool
    case .url: .url
    case .list(let values): AttributeType(values.first.map { type(of: $0).scalar } ?? .string, isList: true)
    }
  }

  static func conforms(_ value: AttributeValue, to type: AttributeType) -> Bool {
    func scalarConforms(_ v: AttributeValue) -> Bool {
      switch (v, type.scalar) {
      case (.string, .string), (.number, .number), (.date, .date), (.bool, .bool), (.url, .url): true
      default: false
      }
    }
    if case .list(let values) = value { return type.isList && values.allSatisfy(scalarConforms) }
    return !type.isList && scalarConforms(value)
  }

  /// Adds `item`, replacing a stored item with the same identifier. An item stored exactly
  /// as given is left alone (a rerun of an interrupted `index --batch` skips what it kept
  /// cheaply, and its embeddings stay current); returns false then.
  @discardableResult
  package mutating func upsert(_ item: SearchableItem) throws -> Bool {
    try validate(item)
    var stored = item.attributeSet
    // Dates as the record keeps them, so the value rows agree with it (an app's `Date()` has
    // microseconds; the record, milliseconds).
    for (name, value) in stored.entries where value.holdsDate { stored[name] = value.atStoredPrecision }
    var unstoredText: String?
    if !storesText, let text = stored["textContent"] {
      // Searchable, not stored: the text goes to the full-text index (and `fts_unstored`,
      // which deletes and embeddings need), never into the record.
      unstoredText = text.elements.compactMap(\.stringValue).joined(separator: "\n")
      stored["textContent"] = nil
    }
    let json = JSONValue.object(stored.jsonObject).compactText
    try recordDictionary.offer(json, of: item, db)
    let rowid: Int64
    var replaced: [String]?
    if let existing = try existingRow(item.uniqueIdentifier) {
      if try isUnchanged(existing, item, json: json, unstoredText: unstoredText) {
        unchanged += 1
        return false
      }
      rowid = existing.rowid
      rewrites = true
      try removals.record(db, rowid: rowid)
      let oldUnstored = try db.scalar("SELECT text FROM fts_unstored WHERE item = ?", [.integer(rowid)])?.stringValue
      replaced = try FullTextColumns.texts(ofRecord: existing.attributes, catalog: catalog, unstoredText: oldUnstored)
      try db.run("DELETE FROM fts_unstored WHERE item = ?", [.integer(rowid)])
      let update = try db.cachedStatement(
        "UPDATE items SET domain = ?, contentType = ?, expiration = ?, protection = ?, attributes = ?, indexedAt = ? WHERE rowid = ?")
      try Self.bindRecord(of: item, try db.recordValue(json), to: update, from: 1)
      try update.bind(int: rowid, at: 7)
      try update.step()
    } else {
      let statement = try db.cachedStatement(
        "INSERT INTO items(indexId, id, domain, contentType, expiration, protection, attributes, indexedAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
      try statement.bind(int: indexID, at: 1)
      try statement.bind(text: item.uniqueIdentifier, at: 2)
      try Self.bindRecord(of: item, try db.recordValue(json), to: statement, from: 3)
      try statement.step()
      rowid = db.lastInsertRowID
    }
    try insertDerivedRows(rowid, stored, unstoredText: unstoredText, replacing: replaced)
    changed = true
    rowsWritten += 1
    if !valueIndexesDropped, rowsWritten >= max(Self.bulkLoadRows, Int(clamping: itemsAtStart)) {
      try db.execute(Schema.bulkLoadIndexes.map { "DROP INDEX IF EXISTS \($0);" }.joined())
      valueIndexesDropped = true
    }
    return true
  }

  /// Binds an item's stored columns (domain, content type, expiration, protection, the
  /// `record` as stored, the time it is written) to six parameters of `statement` starting at
  /// `first`.
  private static func bindRecord(of item: SearchableItem, _ record: SQLValue, to statement: Statement, from first: Int32) throws {
    try statement.bind(text: item.domainIdentifier, at: first)
    try statement.bind(text: item.contentType, at: first + 1)
    try statement.bind(double: item.expirationDate?.timeIntervalSince1970, at: first + 2)
    try statement.bind(text: item.protectionClass, at: first + 3)
    try statement.bind(record, at: first + 4)
    try statement.bind(double: Date().timeIntervalSince1970, at: first + 5)
  }

  /// Merges `update` into the stored item: given attributes replace stored ones, names in
  /// `removing` are deleted, item fields change only when given. Returns false when that
  /// leaves the stored item as it was.
  @discardableResult
  package mutating func merge(_ update: SearchableItem, removing: Set<String> = []) throws -> Bool {
    guard let existing = try existingRow(update.uniqueIdentifier) else {
      return try upsert(update)
    }
    var stored = try storedItem(rowid: existing.rowid)
    if !storesText, let text = try db.scalar("SELECT text FROM fts_unstored WHERE item = ?", [.integer(existing.rowid)])?.stringValue {
      // Searchable-only text is not in the record: an update that leaves it alone keeps it.
      stored.attributeSet["textContent"] = .string(text)
    }
    for (name, value) in update.attributeSet { stored.attributeSet[name] = value }
    for name in removing { stored.attributeSet[name] = nil }
    if let domain = update.domainIdentifier { stored.domainIdentifier = domain }
    if let contentType = update.contentType { stored.contentType = contentType }
    if let expiration = update.expirationDate { stored.expirationDate = expiration }
    if let protection = update.protectionClass { stored.protectionClass = protection }
    return try upsert(stored)
  }

  private func storedItem(rowid: Int64) throws -> SearchableItem {
    let rows = try db.rows(
      "SELECT id, domain, contentType, expiration, protection, attributes FROM items WHERE rowid = ?", [.integer(rowid)]
    ) { try StoredItem.decode(row: $0, offset: 0, catalog: catalog) }
    guard let item = rows.first else { throw SearchIndexError.invalidItem(id: nil, message: "item vanished during merge") }
    return item
  }

  /// Writes the value rows, the unstored text and the texts of the item at `rowid`. An
  /// updated item passes the texts it was indexed with (`replacing`): its value rows are
  /// brought in line with its new attributes (`updateValueRows`), and when its new texts are
  /// the same (a rating, a date or a place changed), the full-text row, the ranked postings
  /// and the vectors stay as they are; else the old ones are taken out first.
  private mutating func insertDerivedRows(_ rowid: Int64, _ attributes: AttributeSet, unstoredText: String?, replacing old: [String]? = nil) throws {
    // Value rows first: they declare new attributes, whose type decides their text column.
    if old == nil {
      try insertValueRows(rowid, attributes)
    } else {
      try updateValueRows(rowid, attributes)
    }
    if let unstoredText, !unstoredText.isEmpty {
      try db.run("INSERT INTO fts_unstored(item, text) VALUES (?, ?)", [.integer(rowid), .text(unstoredText)])
    }
    let columns = FullTextColumns.texts(of: attributes, catalog: catalog, unstoredText: unstoredText)
    if let old {
      guard old != columns else { return }
      try removeTexts(rowid, old)
      // Its vectors were embedded from the old texts (title, description, body): it is
      // pending again. With the same texts they still hold.
      try db.run("DELETE FROM vectors WHERE item = ?", [.integer(rowid)])
      try db.run("DELETE FROM embedding_status WHERE item = ?", [.integer(rowid)])
    }
    try sharingTokens(of: columns, { try FullTextColumns.insert(rowid, columns, into: db) }) {
      try ranked.index(rowid, columns: columns, capture: $0)
    }
  }

  /// Runs `fullTextChange` (FTS5's insert or delete of the texts `columns`) with the
  /// connection's token capture armed for them, then `rankedChange` with the capture: the
  /// ranked index takes the tokens FTS5's tokenizer emits instead of analysing the texts a
  /// second time (see `TokenCapture`).
  private func sharingTokens(
    of columns: [String], _ fullTextChange: () throws -> Void, then rankedChange: (TokenCapture?) throws -> Void
  ) throws {
    let capture = ranked.isEnabled ? db.tokenCapture : nil
    defer { capture?.disarm() }
    if columns.contains(where: { !$0.isEmpty }) {
      capture?.arm(columns)
      try fullTextChange()
    }
    try rankedChange(capture)
  }

  /// Writes the `vals` rows of the item at `rowid` (`ValueRows`: long text as marker rows).
  /// They go in in key order (item, attr, ord), so each lands at the end of the table.
  mutating func insertValueRows(_ rowid: Int64, _ attributes: AttributeSet) throws {
    let valueInsert = try db.cachedStatement(Self.valueInsert)
    for (attr, rows) in try valueRows(of: attributes) {
      for row in rows { try ValueRows.insert(row, item: rowid, attr: attr, with: valueInsert) }
    }
  }

  /// The statement `ValueRows.insert` runs.
  private static let valueInsert = "INSERT INTO vals(item, attr, ord, num, fold, str) VALUES (?, ?, ?, ?, ?, ?)"

  /// Brings the stored `vals` rows of the rewritten item at `rowid` in line with its new
  /// `attributes`: a row whose columns did not change is left alone, a changed one is
  /// updated, a new one inserted and one no longer there deleted. An edit changes a value or
  /// two of an item's dozen or more, and each row written or deleted touches a leaf of the
  /// table and of each value index, somewhere in the middle of them.
  private mutating func updateValueRows(_ rowid: Int64, _ attributes: AttributeSet) throws {
    struct Key: Hashable {
      var attr: Int64
      var ord: Int64
    }
    var stored = Dictionary(
      uniqueKeysWithValues: try db.rows("SELECT attr, ord, num, fold, str FROM vals WHERE item = ?", [.integer(rowid)]) { row in
        let ord = row.int64(1)
        return (
          Key(attr: row.int64(0), ord: ord),
          ValueRows.Row(ord: ord, num: row.value(at: 2).doubleValue, fold: row.value(at: 3).stringValue, str: row.value(at: 4).stringValue)
        )
      })
    let insert = try db.cachedStatement(Self.valueInsert)
    let update = try db.cachedStatement("UPDATE vals SET num = ?, fold = ?, str = ? WHERE item = ? AND attr = ? AND ord = ?")
    for (attr, rows) in try valueRows(of: attributes) {
      for row in rows {
        guard let old = stored.removeValue(forKey: Key(attr: attr, ord: row.ord)) else {
          try ValueRows.insert(row, item: rowid, attr: attr, with: insert)
          continue
        }
        guard old.num != row.num || old.fold != row.fold || old.str != row.str else { continue }
        try update.bind(double: row.num, at: 1)
        try update.bind(text: row.fold, at: 2)
        try update.bind(text: row.str, at: 3)
        try update.bind(int: rowid, at: 4)
        try update.bind(int: attr, at: 5)
        try update.bind(int: row.ord, at: 6)
        try update.step()
      }
    }
    for key in stored.keys.sorted(by: { ($0.attr, $0.ord) < ($1.attr, $1.ord) }) {
      try db.run("DELETE FROM vals WHERE item = ? AND attr = ? AND ord = ?", [.integer(rowid), .integer(key.attr), .integer(key.ord)])
    }
  }

  /// The value rows of `attributes` by attribute id, ascending: declares attributes new to
  /// the catalogue and marks those that hold long text.
  private mutating func valueRows(of attributes: AttributeSet) throws -> [(attr: Int64, rows: [ValueRows.Row])] {
    var values: [(attr: Int64, rows: [ValueRows.Row])] = []
    values.reserveCapacity(attributes.count)
    try ValueRows.forEach(in: attributes, catalog: catalog) { name, type, rows in
      values.append((try attributeID(name, type: type), rows))
    }
    values.sort { $0.attr < $1.attr }
    for (attr, rows) in values where rows.contains(where: \.isLongText) {
      // Long text: a marker row; the text stays in the record only.
      try markLong(attr)
    }
    return values
  }

  /// Records that attribute `attr` has long values, so comparisons on it also read records.
  private mutating func markLong(_ attr: Int64) throws {
    guard !longAttributes.contains(attr) else { return }
    try db.run("UPDATE attributes SET hasLong = 1 WHERE id = ? AND hasLong = 0", [.integer(attr)])
    longAttributes.insert(attr)
  }

  /// Deletes the full-text row and the ranked postings of the item at `rowid`, indexed with
  /// the texts `columns`: the ranked index takes the retired document's terms from the tokens
  /// of the full-text delete.
  private func removeTexts(_ rowid: Int64, _ columns: [String]) throws {
    try sharingTokens(of: columns, { try FullTextColumns.delete(rowid, columns, from: db) }) {
      try ranked.remove(rowid, columns: columns, capture: $0)
    }
  }

  /// Items a delete removes between two progress reports (and statements): small enough
  /// that a million-item delete reports every second or so, large enough that the
  /// statements' own cost disappears. A task-local so tests see several chunks.
  @TaskLocal static var deletionChunk = 10_000

  /// Deletes every item whose rowid `selection` (a SELECT of rowids with `arguments`) returns,
  /// in chunks of rowids (`deletionChunk`), reporting each to `progress`; the compaction a
  /// large delete triggers reports to it from `finish` (see `SearchIndex.write`).
  private mutating func deleteRows(
    where selection: String, _ arguments: [SQLValue], progress: ((MaintenanceProgress) -> Void)?
  ) throws -> Int {
    try deleteRows(where: [(selection, arguments)], progress: progress)
  }

  /// `deleteRows(where:_:progress:)` of the items any of `selections` returns, in one pass.
  private mutating func deleteRows(
    where selections: [(sql: String, arguments: [SQLValue])], progress: ((MaintenanceProgress) -> Void)?
  ) throws -> Int {
    try db.run("CREATE TEMP TABLE IF NOT EXISTS doomed(rowid INTEGER PRIMARY KEY)")
    try db.run("DELETE FROM doomed")
    for selection in selections { try db.run("INSERT OR IGNORE INTO doomed(rowid) \(selection.sql)", selection.arguments) }
    let doomed = try db.rows("SELECT rowid FROM doomed ORDER BY rowid") { $0.int64(0) }
    guard !doomed.isEmpty else { return 0 }
    try removals.recordDoomed(db, count: doomed.count)
    progress?(MaintenanceProgress(phase: .removingItems, done: 0, total: doomed.count))
    // Whether any item stays: stops at the first one that does (a count of the file's items
    // read all of them for every delete, 10 ms a call at a million).
    let everything = try db.scalar("SELECT EXISTS (SELECT 1 FROM items WHERE rowid NOT IN (SELECT rowid FROM doomed))")?.int64Value == 0
    if everything {
      // Every item of the file goes: one command empties the full-text index, one the
      // ranked index.
      try db.run("INSERT INTO fts(fts) VALUES ('delete-all')")
      try ranked.removeAll()
    }
    if let progress {
      ranked.compactionProgress = { done, total in
        progress(MaintenanceProgress(phase: .compactingRankedIndex, done: done, total: total))
      }
    }
    let inChunk = "IN (SELECT rowid FROM doomed WHERE rowid BETWEEN ? AND ?)"
    for start in stride(from: 0, to: doomed.count, by: Self.deletionChunk) {
      let end = min(start + Self.deletionChunk, doomed.count)
      let bounds: [SQLValue] = [.integer(doomed[start]), .integer(doomed[end - 1])]
      if !everything {
        try FullTextColumns.forEachItem(in: db, catalog: catalog, where: "i.rowid \(inChunk)", bounds) { rowid, columns in
          try removeTexts(rowid, columns)
        }
      }
      try db.run("DELETE FROM fts_unstored WHERE item \(inChunk)", bounds)
      try db.run("DELETE FROM vals WHERE item \(inChunk)", bounds)
      try db.run("DELETE FROM vectors WHERE item \(inChunk)", bounds)
      try db.run("DELETE FROM embedding_status WHERE item \(inChunk)", bounds)
      try db.run("DELETE FROM items WHERE rowid \(inChunk)", bounds)
      progress?(MaintenanceProgress(phase: .removingItems, done: end, total: doomed.count))
    }
    try db.run("DELETE FROM doomed")
    changed = true
    rewrites = true
    rowsWritten += doomed.count
    return doomed.count
  }

  /// Deletes items by identifier; returns how many existed.
  package mutating func delete(identifiers: [String], progress: ((MaintenanceProgress) -> Void)? = nil) throws -> Int {
    guard !identifiers.isEmpty else { return 0 }
    let array = JSONValue.array(identifiers.map(JSONValue.string)).compactText
    return try deleteRows(
      where: "SELECT rowid FROM items WHERE indexId = ? AND id IN (SELECT value FROM json_each(?))",
      [.integer(indexID), .text(array)], progress: progress)
  }

  /// Adds `count` to the engagement of each identified item (Apple's `userEngaged`: the
  /// user opened or used it); returns the identifiers that are not in the index, or that
  /// `scope` (when given) may not see: a hidden item is treated exactly as a missing one.
  package mutating func engage(identifiers: [String], count: Int, scope: AccessScope? = nil) throws -> [String] {
    let visible = scope?.sqlCondition(alias: "items", indexID: indexID) ?? (sql: "items.indexId = ?", arguments: [.integer(indexID)])
    let sql = "UPDATE items SET engagement = max(0, min(engagement + ?, 1000000000)) WHERE id = ? AND \(visible.sql)"
    var missing: [String] = []
    for identifier in identifiers {
      try db.cachedStatement(sql).execute([.integer(Int64(count)), .text(identifier)] + visible.arguments)
      if db.changes == 0 { missing.append(identifier) }
    }
    return missing
  }

  /// Deletes items in the domains and their sub-domains; returns how many.
  package mutating func delete(domains: [String], progress: ((MaintenanceProgress) -> Void)? = nil) throws -> Int {
    guard !domains.isEmpty else { return 0 }
    // "mail" covers "mail" and every "mail.*": a range scan on the domain index, no LIKE
    // escaping needed ('/' sorts right after '.'). A statement per domain finds its items (an
    // OR of many would exceed SQLite's expression depth), one pass deletes them all.
    let selections = domains.map { domain in
      (sql: "SELECT rowid FROM items WHERE indexId = ? AND (domain = ? OR (domain >= ? AND domain < ?))",
       arguments: [SQLValue.integer(indexID), .text(domain), .text(domain + "."), .text(domain + "/")])
    }
    return try deleteRows(where: selections, progress: progress)
  }

  /// Deletes every item of the named index.
  package mutating func deleteAll(progress: ((MaintenanceProgress) -> Void)? = nil) throws -> Int {
    try deleteRows(where: "SELECT rowid FROM items WHERE indexId = ?", [.integer(indexID)], progress: progress)
  }

  /// Removes items whose expiration date is at or before `now`.
  package mutating func purgeExpired(now: Date, progress: ((MaintenanceProgress) -> Void)? = nil) throws -> Int {
    try deleteRows(
      where: "SELECT rowid FROM items WHERE indexId = ? AND expiration IS NOT NULL AND expiration <= ?",
      [.integer(indexID), .real(now.timeIntervalSince1970)], progress: progress)
  }

  /// The client state stored with the index.
  package func clientState() throws -> [UInt8]? {
    guard case .blob(let bytes) = try db.scalar("SELECT clientState FROM indexes WHERE id = ?", [.integer(indexID)]) ?? .null
    else { return nil }
    return bytes
  }

  /// Stores the client state; it commits with the transaction's items.
  package mutating func setClientState(_ state: [UInt8]) throws {
    try db.run("UPDATE indexes SET clientState = ? WHERE id = ?", [.blob(state), .integer(indexID)])
    changed = true
  }

  /// Compacts the ranked postings (see `SearchIndex.compactRankedIndex`).
  package mutating func compactRankedIndex() throws {
    try ranked.compact()
    changed = true
  }

  /// Rebuilds the ranked postings from the FTS5 rows (see `SearchIndex.rebuildRankedIndex`).
  package mutating func rebuildRankedIndex(progress: ((_ done: Int) -> Void)? = nil) throws {
    try ranked.rebuild(progress: progress)
    changed = true
  }

  /// Marks the transaction as a change, so the generation moves when it commits.
  package mutating func markChanged() { changed = true }

  /// Marks the transaction as one that rewrote value rows behind the log's back (a rebuild):
  /// no summary grows across it.
  package mutating func markValuesRewritten() {
    changed = true
    rewrites = true
    removals.giveUp()
  }

  /// Records the catalogue, writes the ranked postings and bumps the generation; called
  /// before the transaction commits.
  /// Commits what this transaction wrote so far and goes on in a new one (`index --batch`):
  /// an interrupted run keeps every committed batch. The writer starts afresh from the
  /// committed state (catalogue, ranked statistics, generation), as the next `write` would.
  package mutating func commitBatch() throws {
    try finish()
    try db.execute("COMMIT")
    try db.execute("BEGIN IMMEDIATE")
    let (written, unchanged) = (rowsWritten, self.unchanged)
    self = try IndexWriter(connection: db, indexID: indexID)
    rowsWritten = written
    self.unchanged = unchanged
  }

  /// Builds the indexes a bulk load dropped (`bulkLoadRows`), with their planner statistics
  /// when the file keeps some. The page cache is emptied to a quarter first (its dirty pages
  /// go to the log, where the commit would put them), leaving the memory to the sort, which
  /// spills what exceeds it to temporary files (the writer's `temp_store = FILE`).
  private func rebuildValueIndexes() throws {
    let cacheSize = try db.scalar("PRAGMA cache_size")?.int64Value ?? -2000
    try db.execute("PRAGMA cache_size = \(cacheSize / 4); PRAGMA shrink_memory")
    defer { try? db.execute("PRAGMA cache_size = \(cacheSize)") }
    try db.execute(Schema.valueIndexStatements)
    if try SearchIndex.hasTable(db, "sqlite_stat1") {
      for name in Schema.bulkLoadIndexes { try db.execute("ANALYZE \(name)") }
    }
  }

  mutating func finish() throws {
    for (name, type) in catalog.customTypes where attributeIDs[name] == nil {
      _ = try attributeID(name, type: type)
    }
    try ranked.flush()
    if changed { try recordDictionary.finish(db, lastRowid: itemsAtStart + Int64(rowsWritten)) }
    if valueIndexesDropped {
      try rebuildValueIndexes()
      valueIndexesDropped = false
    }
    if changed {
      // The summary's record of what changed (`SummaryState`): the last generation that did
      // more than add items, counting any commit this code did not track as one.
      let generation = try SearchIndex.generation(in: db)
      let tracked = try db.scalar("SELECT value FROM meta WHERE key = ?", [.text(SummaryState.trackedKey)])?.int64Value
      let setMeta = try db.cachedStatement("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)")
      // An untracked commit made the current generation: a tally of it saw what it did.
      if rewrites || tracked != generation {
        try setMeta.execute([.text(SummaryState.rewrittenKey), .integer(rewrites ? generation + 1 : generation)])
      }
      try setMeta.execute([.text(SummaryState.trackedKey), .integer(generation + 1)])
      try removals.finish(db)
      try db.run("UPDATE meta SET value = value + 1 WHERE key = 'generation'")
      try ranked.stampGeneration()
    }
  }
}
