import Foundation

/// A table in another SQLite database (an app's own store) as a source: one item per row,
/// keyed by an id column, versioned by an updated-at column, with columns mapped to
/// attributes. Table and column names are quoted as identifiers; the file is opened
/// read-only.
public struct SQLiteTableSource: ItemSource {
  public let path: String
  public let table: String
  public let idColumn: String
  public let updatedColumn: String
  /// Attribute name -> column name.
  public let mapping: [(attribute: String, column: String)]
  public let domain: String

  public init(path: String, table: String, idColumn: String, updatedColumn: String, mapping: [(String, String)], domain: String? = nil) throws {
    self.path = URL(fileURLWithPath: path).standardizedFileURL.path
    self.table = table
    self.idColumn = idColumn
    self.updatedColumn = updatedColumn
    self.mapping = mapping.map { ($0.0, $0.1) }
    self.domain = domain ?? table
    try validate()
  }

  public var name: String { "sqlite:\(path)#\(table)" }
  public var configuration: JSONValue {
    [
      "kind": "sqlite", "path": .string(path), "table": .string(table), "id": .string(idColumn), "updated": .string(updatedColumn),
      "domain": .string(domain),
      "map": .array(mapping.map { .string("\($0.attribute)=\($0.column)") }),
    ]
  }

  static func quote(_ identifier: String) -> String { "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

  private func open() throws -> Connection {
    guard FileManager.default.fileExists(atPath: path) else {
      throw IngestError(.missingInput, file: path, line: nil, message: "no such database")
    }
    do { return try Connection(path: path, readOnly: true, create: false) } catch {
      throw IngestError(.badData, file: path, line: nil, message: "cannot open the database: \(error.message)")
    }
  }

  /// The table and every named column must exist.
  private func validate() throws {
    let db = try open()
    let columns = Set(try db.rows("SELECT name FROM pragma_table_info(?)", [.text(table)]) { $0.string(0) ?? "" })
    guard !columns.isEmpty else { throw IngestError(.badData, file: path, line: nil, message: "no table '\(table)'") }
    for column in [idColumn, updatedColumn] + mapping.map(\.column) where !columns.contains(column) {
      var message = "table '\(table)' has no column '\(column)'"
      if let suggestion = closestMatch(to: column, in: columns) { message += "; did you mean '\(suggestion)'?" }
      throw IngestError(.badData, file: path, line: nil, message: message)
    }
    for (attribute, _) in mapping where StandardAttributes.types[attribute] == nil {
      do { try AttributeCatalog.validateCustomName(attribute) } catch {
        throw IngestError(.badData, file: path, line: nil, message: error.description)
      }
    }
  }

  private var selectSQL: String {
    let columns = [idColumn, updatedColumn] + mapping.map(\.column)
    return "SELECT " + columns.map(Self.quote).joined(separator: ", ") + " FROM " + Self.quote(table)
  }

  private func item(from row: Statement) throws -> SearchableItem {
    var attributes = JSONObject()
    for (offset, pair) in mapping.enumerated() {
      switch row.value(at: offset + 2) {
      case .null: continue
      case .integer(let i): attributes[pair.attribute] = .number(Double(i))
      case .real(let d): attributes[pair.attribute] = .number(d)
      case .text(let s): attributes[pair.attribute] = .string(s)
      case .blob: continue
      }
    }
    let id = Self.identifier(row.value(at: 0))
    var decoder = ItemDecoder(catalog: AttributeCatalog(), defaultDomain: domain)
    do {
      return try decoder.decode(["id": .string(id), "domain": .string(domain), "attributes": .object(attributes)])
    } catch {
      throw IngestError(.badData, file: "\(path)#\(table)", line: nil, message: "row \(id): \(error.message)")
    }
  }

  /// One record per row: its key and version are read for every row, the item only when a
  /// record is loaded (a new or changed row), by its rowid. Building every row's item on
  /// every sync held the whole table in memory (1.5 GB a round at a million rows). A table
  /// without rowids is read whole, as before.
  public func scan() throws -> [SourceRecord] {
    let db = try open()
    guard let reader = try? RowReader(db: db, sql: selectSQL + " WHERE rowid = ?") else { return try scanWhole(db) }
    var records: [SourceRecord] = []
    let columns = [idColumn, updatedColumn].map(Self.quote).joined(separator: ", ")
    let statement = try db.makeStatement("SELECT rowid, \(columns) FROM \(Self.quote(table))")
    while try statement.step() {
      let rowid = statement.int64(0)
      let key = Self.identifier(statement.value(at: 1))
      records.append(SourceRecord(key: key, version: Self.version(statement.value(at: 2))) { [self] in
        // The row is read again by its rowid; a row deleted or renumbered since (the app
        // wrote meanwhile) is the next sync's to find.
        guard let item = try reader.read(rowid, { try self.item(from: $0) }), item.uniqueIdentifier == key else {
          throw IngestError(.badData, file: "\(path)#\(table)", line: nil, message: "row \(key) changed while it was synced; sync again")
        }
        return item
      })
    }
    return records
  }

  /// Every row's record with its item built (a table without rowids).
  private func scanWhole(_ db: Connection) throws -> [SourceRecord] {
    var records: [SourceRecord] = []
    let statement = try db.makeStatement(selectSQL)
    while try statement.step() {
      let item = try self.item(from: statement)
      records.append(SourceRecord(key: item.uniqueIdentifier, version: Self.version(statement.value(at: 1))) { item })
    }
    return records
  }

  /// A row's identifier as its item's: text as it is, an integer in decimal.
  static func identifier(_ value: SQLValue) -> String { value.stringValue ?? value.int64Value.map(String.init) ?? "" }

  /// A row's version: the updated column's text, or its number as JSON writes it.
  static func version(_ value: SQLValue) -> String {
    value.stringValue ?? value.doubleValue.map { JSONValue.format(number: $0) } ?? ""
  }

  /// Reads rows of the app's table by rowid for the records of one scan, on the read-only
  /// connection that scan opened (the records keep it open; it closes with the last of them).
  private final class RowReader: @unchecked Sendable {
    // @unchecked: the connection and its statement are used under `lock` only.
    private let lock = NSLock()
    /// Held for the statement, which does not keep its connection alive (`unowned`).
    private let db: Connection
    private let statement: Statement

    init(db: Connection, sql: String) throws {
      self.db = db
      statement = try db.makeStatement(sql)
    }

    /// `body` of the row at `rowid`, nil when there is none.
    func read<T>(_ rowid: Int64, _ body: (Statement) throws -> T) throws -> T? {
      lock.lock()
      defer { lock.unlock() }
      statement.reset()
      try statement.bind([.integer(rowid)])
      guard try statement.step() else { return nil }
      return try body(statement)
    }
  }

  public func reindexAll(into index: SearchIndex) throws {
    _ = try Synchronizer(index: index, source: self).sync(full: true)
  }

  public func reindex(identifiers: [String], into index: SearchIndex) throws {
    let wanted = Set(identifiers)
    let entries = try scan().filter { wanted.contains($0.key) }.map { record in
      JournalEntry.upsert(try record.load(), source: name, sourceKey: record.key, version: record.version)
    }
    try index.stage(entries)
    try index.applyPendingWork()
  }

  public func searchableItems(forIdentifiers identifiers: [String], protectionClass: String?) throws -> [SearchableItem] {
    let wanted = Set(identifiers)
    return try scan().filter { wanted.contains($0.key) }.map { try $0.load() }
  }
}
