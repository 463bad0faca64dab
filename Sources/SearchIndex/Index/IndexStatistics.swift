import Foundation

/// What an index holds: items per domain, the attribute catalogue with counts, client state
/// and file size (`searchlight stats`).
public struct IndexStatistics: Sendable, Hashable {
  /// One attribute in the catalogue.
  public struct Attribute: Sendable, Hashable {
    public var name: String
    public var type: AttributeType
    /// Items carrying the attribute.
    public var count: Int
    /// True for custom (app-defined) attributes.
    public var isCustom: Bool
  }

  /// Items visible to the scope.
  public var items: Int
  /// Items that exist but have expired (awaiting purge).
  public var expiredItems: Int
  /// Items hidden by protection classes the scope does not grant.
  public var protectedItems: Int
  /// Visible items per domain.
  public var domains: [(name: String, count: Int)]
  /// Attributes in use, by name.
  public var attributes: [Attribute]
  /// The stored client state.
  public var clientState: Data?
  /// Size of the index file (and its WAL) in bytes.
  public var fileSize: Int64
  /// Bytes of the file's free pages: space that later writes reuse, and that
  /// `SearchIndex.compact()` gives back (deletes and upgrades leave it).
  public var freeBytes: Int64 = 0
  /// The write generation.
  public var generation: Int64

  public static func == (lhs: IndexStatistics, rhs: IndexStatistics) -> Bool {
    lhs.items == rhs.items && lhs.domains.map(\.name) == rhs.domains.map(\.name)
      && lhs.domains.map(\.count) == rhs.domains.map(\.count) && lhs.attributes == rhs.attributes
      && lhs.clientState == rhs.clientState && lhs.generation == rhs.generation
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(items)
    hasher.combine(generation)
  }

  /// The JSON form of `stats --format json`.
  public var jsonValue: JSONValue {
    var object = JSONObject()
    object["items"] = .number(Double(items))
    object["expiredItems"] = .number(Double(expiredItems))
    object["protectedItems"] = .number(Double(protectedItems))
    object["domains"] = .object(JSONObject(domains.map { ($0.name, .number(Double($0.count))) }))
    object["attributes"] = .array(attributes.map { attribute in
      .object(JSONObject([
        ("name", .string(attribute.name)), ("type", .string(attribute.type.description)),
        ("count", .number(Double(attribute.count))), ("custom", .bool(attribute.isCustom)),
      ]))
    })
    if let clientState {
      object["clientState"] = String(data: clientState, encoding: .utf8).map(JSONValue.string) ?? .string(clientState.base64EncodedString())
    } else {
      object["clientState"] = .null
    }
    object["fileSize"] = .number(Double(fileSize))
    object["freeBytes"] = .number(Double(freeBytes))
    object["generation"] = .number(Double(generation))
    return .object(object)
  }
}

extension SearchIndex {
  /// Counts of what the index holds, as seen by `scope`.
  public func statistics(scope: AccessScope = AccessScope()) throws(SearchIndexError) -> IndexStatistics {
    let visible = scope.sqlCondition(alias: "i", indexID: indexID)
    let stats = try read { db -> IndexStatistics in
      let catalog = try Self.loadCatalog(db)
      let total = try db.scalar("SELECT count(*) FROM items WHERE indexId = ?", [.integer(indexID)])?.int64Value ?? 0
      let items = try db.scalar("SELECT count(*) FROM items i WHERE \(visible.sql)", visible.arguments)?.int64Value ?? 0
      let expired = try db.scalar(
        "SELECT count(*) FROM items WHERE indexId = ? AND expiration IS NOT NULL AND expiration <= ?",
        [.integer(indexID), .real(scope.now.timeIntervalSince1970)])?.int64Value ?? 0
      let domains = try db.rows(
        "SELECT coalesce(i.domain, ''), count(*) FROM items i WHERE \(visible.sql) GROUP BY 1 ORDER BY 1", visible.arguments
      ) { ($0.string(0) ?? "", Int($0.int64(1))) }
      let attributes = try db.rows(
        """
        SELECT a.name, a.type, a.custom, count(DISTINCT v.item) FROM attributes a
        JOIN vals v ON v.attr = a.id JOIN items i ON i.rowid = v.item
        WHERE \(visible.sql) GROUP BY a.id ORDER BY a.name
        """, visible.arguments
      ) { row in
        IndexStatistics.Attribute(
          name: row.string(0) ?? "", type: catalog.type(of: row.string(0) ?? "") ?? AttributeType(parsing: row.string(1) ?? "") ?? .string,
          count: Int(row.int64(3)), isCustom: row.int64(2) == 1)
      }
      let state: Data?
      if case .blob(let bytes) = try db.scalar("SELECT clientState FROM indexes WHERE id = ?", [.integer(indexID)]) ?? .null {
        state = Data(bytes)
      } else {
        state = nil
      }
      let generation = try db.scalar("SELECT value FROM meta WHERE key = 'generation'")?.int64Value ?? 0
      var result = IndexStatistics(
        items: Int(items), expiredItems: Int(expired), protectedItems: Int(total - items - expired),
        domains: domains, attributes: attributes, clientState: state, fileSize: 0, generation: generation)
      result.freeBytes = try Self.freeBytes(db)
      return result
    }
    var result = stats
    result.fileSize = Self.fileBytes(path)
    return result
  }

  /// Bytes of the file's free pages (`PRAGMA freelist_count` pages).
  static func freeBytes(_ db: Connection) throws -> Int64 {
    let pages = try db.scalar("PRAGMA freelist_count")?.int64Value ?? 0
    return pages * (try db.scalar("PRAGMA page_size")?.int64Value ?? 4096)
  }

  /// Bytes of the index file and its write-ahead log.
  package static func fileBytes(_ path: String) -> Int64 { fileSize(path) + fileSize(path + "-wal") }

  private static func fileSize(_ path: String) -> Int64 {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
  }
}
