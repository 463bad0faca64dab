import Foundation

/// The result of `searchlight check`.
public struct IntegrityReport: Sendable, Hashable {
  public var lines: [String] = []
  public var isHealthy = true
}

extension SearchIndex {
  /// Runs SQLite's integrity check, FTS5's integrity-check and consistency checks between
  /// items and their derived rows; reports pending journal work.
  ///
  /// `onLine` receives each line of the report as soon as its check is done (a million
  /// items take minutes to check, and `check` shows how far it got); `progress` the step it
  /// is in, and for those that go through the items, how many it has done.
  public func checkIntegrity(
    onLine: (String) -> Void = { _ in }, progress: ((MaintenanceProgress) -> Void)? = nil
  ) throws(SearchIndexError) -> IntegrityReport {
    var report = IntegrityReport()
    var reported = 0
    /// Hands the lines added since the last call to `onLine`.
    func publish() {
      for line in report.lines[reported...] { onLine(line) }
      reported = report.lines.count
    }
    do {
      try pool.withWriter { db in
        defer { publish() }
        let items = progress == nil ? 0 : Int(try db.scalar("SELECT count(*) FROM items")?.int64Value ?? 0)
        func step(_ phase: MaintenanceProgress.Phase, of total: Int = 0) -> ((Int) -> Void)? {
          MaintenanceProgress.start(phase, of: total, to: progress)
        }
        _ = step(.checkingFile)
        let problems = try db.rows("PRAGMA integrity_check(20)") { $0.string(0) ?? "" }
        if problems == ["ok"] {
          report.lines.append("sqlite integrity_check: ok")
        } else {
          report.isHealthy = false
          report.lines += problems.map { "sqlite integrity_check: \($0)" }
        }
        publish()
        do {
          try db.execute("INSERT INTO fts(fts, rank) VALUES ('integrity-check', 0)")
          report.lines.append("fts5 integrity-check: ok")
        } catch let error as DatabaseError {
          report.isHealthy = false
          report.lines.append("fts5 integrity-check: \(error.message)")
        }
        publish()
        let orphans = try db.scalar("SELECT count(*) FROM fts WHERE rowid NOT IN (SELECT rowid FROM items)")?.int64Value ?? 0
        let orphanValues = try db.scalar("SELECT count(*) FROM vals WHERE item NOT IN (SELECT rowid FROM items)")?.int64Value ?? 0
        let orphanTexts = try db.scalar("SELECT count(*) FROM fts_unstored WHERE item NOT IN (SELECT rowid FROM items)")?.int64Value ?? 0
        if orphans + orphanValues + orphanTexts > 0 {
          report.isHealthy = false
          report.lines.append("derived rows without an item: \(orphans) full-text, \(orphanValues) values, \(orphanTexts) unstored texts")
        } else {
          report.lines.append("derived rows: consistent with items")
        }
        publish()
        // Both comparisons decode every record, so when they finish every record decodes;
        // only when one fails are the records read again to name those that do not.
        do {
          // One read transaction for both: they compare one state of the file (a write
          // committed half-way through would show as differences), and the temporary tables
          // they fill commit once, where an insert each committed on its own (a truncated
          // journal per row: 3 minutes for 200,000 items, the kernel's time).
          let (fullText, values) = try db.transaction(.deferred) {
            (try Self.fullTextAgreesWithRecords(db, progress: step(.checkingFullText, of: items), comparing: { _ = step(.comparingFullText) }),
             try Self.valuesAgreeWithRecords(db, progress: step(.checkingValues, of: items)))
          }
          report.lines.append("records: every item's record decodes")
          for check in [fullText] + values {
            report.lines.append(check.line)
            if !check.healthy { report.isHealthy = false }
          }
        } catch {
          let damaged = try Self.recordsThatDoNotDecode(db)
          guard !damaged.isEmpty else { throw error }
          // Queries read such an item with no attributes (`StoredRecord`); its full-text and
          // value rows cannot be derived again to compare them.
          report.isHealthy = false
          report.lines += damaged.map { "records: item \($0.id) does not decode: \($0.message)" }
          report.lines.append("full text and values: not compared with the records (index the items above again from their source)")
        }
        publish()
        report.lines.append(try Self.itemIndexesLine(db))
        // One state of the file for the ranked checks too (and one commit of their temporary table).
        _ = step(.checkingRankedIndex)
        let ranked = try db.transaction(.deferred) { try Self.rankedIntegrity(db, indexID: indexID) }
        report.lines += ranked.lines
        if !ranked.healthy { report.isHealthy = false }
        let pending = try db.scalar("SELECT count(*) FROM journal")?.int64Value ?? 0
        report.lines.append(pending == 0 ? "journal: no pending work" : "journal: \(pending) pending changes (run sync to apply them)")
      }
    } catch {
      throw Self.wrap(error)
    }
    return report
  }

  /// Whether the file has the item indexes of the current schema (`Schema.requiredIndexes`);
  /// their contents are SQLite's integrity check's. A file without them (read-only, written
  /// before they existed) is still healthy: queries read the records instead.
  static func itemIndexesLine(_ db: Connection) throws -> String {
    let missing = try missingRequiredIndexes(db)
    guard missing.isEmpty else {
      return "item indexes: missing \(missing.joined(separator: ", ")) (added by the next writable open; queries read the records meanwhile)"
    }
    return "item indexes: \(Schema.requiredIndexes.joined(separator: ", ")) present"
  }

  /// The items whose stored record does not decode (at most `limit` of them), with why.
  static func recordsThatDoNotDecode(_ db: Connection, limit: Int = 20) throws -> [(id: String, message: String)] {
    let catalog = try loadCatalog(db)
    var damaged: [(id: String, message: String)] = []
    var last = Int64.min
    while damaged.count < limit {
      let records = try db.rows(
        "SELECT rowid, id, attributes FROM items WHERE rowid > ? ORDER BY rowid LIMIT 5000", [.integer(last)],
        { ($0.int64(0), $0.string(1) ?? "", $0.blob(2)) })
      guard let final = records.last else { break }
      last = final.0
      for (_, id, record) in records where damaged.count < limit {
        do {
          _ = try StoredItem.decodeAttributes(bytes: try db.recordJSON(record), catalog: catalog)
        } catch {
          damaged.append((id, "\(error)"))
        }
      }
    }
    return damaged
  }

  /// Compares the full-text index with the texts the records give (`FullTextColumns`): the
  /// same rows, and per column the same terms in the same number of rows. `fts` is
  /// contentless, so this re-derives every record into a temporary table and compares the two
  /// vocabularies (https://www.sqlite.org/fts5.html#the_fts5vocab_virtual_table_module).
  /// `progress` counts the items derived; `comparing` is called before the comparison.
  static func fullTextAgreesWithRecords(
    _ db: Connection, progress: ((Int) -> Void)? = nil, comparing: () -> Void = {}
  ) throws -> (line: String, healthy: Bool) {
    // The re-index is as large as the full-text index: on disk (the writer's temporary
    // storage), not in memory.
    try db.execute("DROP TABLE IF EXISTS temp.fts_vocab_expected; DROP TABLE IF EXISTS temp.fts_vocab_actual; DROP TABLE IF EXISTS temp.fts_expected")
    try db.execute(Schema.ftsStatement.replacingOccurrences(of: "IF NOT EXISTS fts ", with: "temp.fts_expected "))
    defer {
      try? db.execute("DROP TABLE IF EXISTS temp.fts_vocab_expected; DROP TABLE IF EXISTS temp.fts_vocab_actual; DROP TABLE IF EXISTS temp.fts_expected")
    }
    let catalog = try loadCatalog(db)
    var itemsWithText = 0
    let insert = "INSERT INTO temp.fts_expected(rowid, title, keywords, description, body, other) VALUES (?, ?, ?, ?, ?, ?)"
    try FullTextColumns.forEachItem(in: db, catalog: catalog, where: "1", progress: progress) { rowid, columns in
      guard columns.contains(where: { !$0.isEmpty }) else { return }
      itemsWithText += 1
      try db.run(insert, [.integer(rowid)] + columns.map(SQLValue.text))
    }
    comparing()
    let rows = Int(try db.scalar("SELECT count(*) FROM fts")?.int64Value ?? 0)
    try db.execute(
      """
      CREATE VIRTUAL TABLE temp.fts_vocab_actual USING fts5vocab(main, fts, 'col');
      CREATE VIRTUAL TABLE temp.fts_vocab_expected USING fts5vocab(temp, fts_expected, 'col');
      """)
    let differing = try db.scalar(
      """
      SELECT count(*) FROM (
        SELECT * FROM (SELECT term, col, doc, cnt FROM temp.fts_vocab_actual EXCEPT SELECT term, col, doc, cnt FROM temp.fts_vocab_expected)
        UNION ALL
        SELECT * FROM (SELECT term, col, doc, cnt FROM temp.fts_vocab_expected EXCEPT SELECT term, col, doc, cnt FROM temp.fts_vocab_actual))
      """)?.int64Value ?? 0
    if rows != itemsWithText || differing > 0 {
      return ("full-text index: \(rows) rows for \(itemsWithText) items with text, \(differing) terms differ from the records (run rebuild)", false)
    }
    return ("full-text index: \(rows) rows, agrees with the records", true)
  }

  /// Compares the value table with the rows the records give (`ValueRows`): the same rows,
  /// column for column (`str` stored only where it differs from `fold`, long text as
  /// markers), and `attributes.hasLong` set for every attribute with a marker row. Every
  /// record is derived again and merged with the stored rows of its rowid range
  /// (`CheckedValueRow`): a temporary table of every row and two `EXCEPT`s took twice as long.
  /// `progress` counts the items compared.
  static func valuesAgreeWithRecords(_ db: Connection, progress: ((Int) -> Void)? = nil) throws -> [(line: String, healthy: Bool)] {
    let catalog = try loadCatalog(db)
    var ids: [String: Int64] = [:]
    for (name, id) in try db.rows("SELECT name, id FROM attributes", [], { ($0.string(0) ?? "", $0.int64(1)) }) { ids[name] = id }
    // A file read without migrating keeps its version's rows: before version 6, short texts of
    // every attribute were in `vals`.
    let version = try Schema.storedVersion(db) ?? Schema.version
    let longTextAttributes = version >= 6 ? Schema.longTextAttributes : []
    var unknown: Set<String> = []
    var rows: Int64 = 0
    var differing: Int64 = 0
    // The records a chunk at a time, and the value rows of the same rowid range in key order
    // (the primary key's: no sort), merged: a row on one side only differs once, a key on both
    // with other columns twice (once each way, as an EXCEPT each way counts it). The ranges
    // run from the start to the end of the rowids, so rows of no item are compared too.
    var lower: Int64?
    var checked = 0
    while true {
      let records = try db.rows(
        "SELECT rowid, attributes FROM items WHERE rowid > ? ORDER BY rowid LIMIT 5000", [.integer(lower ?? Int64.min)],
        { ($0.int64(0), try $0.recordText(1)) })
      let upper = records.last?.0 ?? Int64.max
      var expected: [CheckedValueRow] = []
      for (rowid, record) in records {
        ValueRows.forEach(
          in: try StoredItem.decodeAttributes(record, catalog: catalog), catalog: catalog, longTextAttributes: longTextAttributes
        ) { name, _, derived in
          guard let attr = ids[name] else {
            unknown.insert(name)
            return
          }
          for row in derived { expected.append(CheckedValueRow(item: rowid, attr: attr, row: row)) }
        }
      }
      expected.sort { $0.key < $1.key }
      // Two statements, not `(? IS NULL OR item > ?)`: an OR would keep SQLite from starting
      // the range at the lower bound.
      let range = lower.map { ("item > ? AND item <= ?", [SQLValue.integer($0), .integer(upper)]) } ?? ("item <= ?", [.integer(upper)])
      let stored = try db.rows(
        "SELECT item, attr, ord, num, fold, str FROM vals WHERE \(range.0) ORDER BY item, attr, ord", range.1
      ) {
        CheckedValueRow(
          item: $0.int64(0), attr: $0.int64(1),
          row: ValueRows.Row(ord: $0.int64(2), num: $0.isNull(3) ? nil : $0.double(3), fold: $0.string(4), str: $0.string(5)))
      }
      rows += Int64(stored.count)
      differing += CheckedValueRow.differences(stored, expected)
      guard !records.isEmpty else { break }
      checked += records.count
      progress?(checked)
      lower = upper
    }
    var results: [(line: String, healthy: Bool)] = []
    if differing > 0 || !unknown.isEmpty {
      let names = unknown.isEmpty ? "" : ", attributes missing from the catalogue: \(unknown.sorted().joined(separator: ", "))"
      results.append(("values: \(rows) rows, \(differing) differ from the records\(names) (run rebuild)", false))
    } else {
      results.append(("values: \(rows) rows, agree with the records", true))
    }
    let unmarked = try db.rows(
      "SELECT a.name FROM attributes a WHERE a.hasLong = 0 AND EXISTS (SELECT 1 FROM vals v WHERE v.attr = a.id AND \(Schema.longTextMarker("v"))) ORDER BY 1",
      [], { $0.string(0) ?? "" })
    if !unmarked.isEmpty {
      results.append(("values: long text of \(unmarked.joined(separator: ", ")) not marked in the catalogue (run rebuild)", false))
    }
    return results
  }

  /// How many items `rebuildFullTextIndex` decodes at a time (a task-local so that tests
  /// can cross chunk boundaries with a few items).
  @TaskLocal package static var rebuildChunk = 5000

  /// Rebuilds the full-text and value rows of every item from the stored records, and the
  /// ranked postings of this index; returns how many items of this index were rebuilt.
  ///
  /// The items themselves do not change, so their embeddings stay. The full-text table is
  /// shared by every named index of the file, so it is emptied and refilled for all of them.
  @discardableResult
  public func rebuildFullTextIndex(progress: ((MaintenanceProgress) -> Void)? = nil) throws(SearchIndexError) -> Int {
    try writeTyped(committing: Self.committing(progress)) { writer in
      let db = writer.db
      let id = SQLValue.integer(writer.indexID)
      func step(_ phase: MaintenanceProgress.Phase, of total: Int) -> ((Int) -> Void)? {
        MaintenanceProgress.start(phase, of: total, to: progress)
      }
      let indexItems = progress == nil ? 0 : Int(try db.scalar("SELECT count(*) FROM items WHERE indexId = ?", [id])?.int64Value ?? 0)
      writer.markValuesRewritten()
      // Rows of no item (which `check` reports as "derived rows without an item") go too.
      try db.run("DELETE FROM vals WHERE item NOT IN (SELECT rowid FROM items)")
      try db.run("DELETE FROM fts_unstored WHERE item NOT IN (SELECT rowid FROM items)")
      try db.run("INSERT INTO fts(fts) VALUES ('delete-all')")
      let allItems = progress == nil ? 0 : Int(try db.scalar("SELECT count(*) FROM items")?.int64Value ?? 0)
      try SchemaMigration.refillFullText(db, catalog: writer.catalog, where: "1", progress: step(.rebuildingFullText, of: allItems))
      let values = step(.rebuildingValues, of: indexItems)
      try db.run("DELETE FROM vals WHERE item IN (SELECT rowid FROM items WHERE indexId = ?)", [id])
      // Items are read in chunks, each read whole before its value rows are written: every
      // decoded item at once held 1.1 GB at a million.
      var count = 0
      var last = Int64.min
      while true {
        let items = try db.rows(
          """
          SELECT rowid, id, domain, contentType, expiration, protection, attributes FROM items
          WHERE indexId = ? AND rowid > ? ORDER BY rowid LIMIT ?
          """, [id, .integer(last), .integer(Int64(Self.rebuildChunk))]
        ) { ($0.int64(0), try StoredItem.decode(row: $0, offset: 1, catalog: writer.catalog)) }
        guard let final = items.last else { break }
        last = final.0
        for (rowid, item) in items { try writer.insertValueRows(rowid, item.attributeSet) }
        count += items.count
        values?(count)
      }
      try writer.rebuildRankedIndex(progress: step(.rebuildingRankedIndex, of: indexItems))
      return count
    }
  }
}

/// A value row as `check` compares it (`SearchIndex.valuesAgreeWithRecords`): texts equal
/// byte for byte, as SQLite compares them, not by Unicode equivalence as Swift's `==` would.
struct CheckedValueRow {
  var item: Int64
  var attr: Int64
  var row: ValueRows.Row

  /// The primary key of `vals`, the order both lists are merged in.
  var key: (Int64, Int64, Int64) { (item, attr, row.ord) }

  func sameColumns(as other: CheckedValueRow) -> Bool {
    func same(_ a: String?, _ b: String?) -> Bool {
      switch (a, b) {
      case (nil, nil): true
      case (let a?, let b?): a.utf8.elementsEqual(b.utf8)
      default: false
      }
    }
    return row.num == other.row.num && same(row.fold, other.row.fold) && same(row.str, other.row.str)
  }

  /// The rows of two lists sorted by `key` that the other lacks, a row whose key both hold
  /// with other columns counting on both sides.
  static func differences(_ a: [CheckedValueRow], _ b: [CheckedValueRow]) -> Int64 {
    var (i, j, count) = (0, 0, Int64(0))
    while i < a.count || j < b.count {
      guard i < a.count else { count += Int64(b.count - j); break }
      guard j < b.count else { count += Int64(a.count - i); break }
      let (x, y) = (a[i].key, b[j].key)
      if x == y {
        if !a[i].sameColumns(as: b[j]) { count += 2 }
        i += 1
        j += 1
      } else if x < y {
        count += 1
        i += 1
      } else {
        count += 1
        j += 1
      }
    }
    return count
  }
}
