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
  ///
  /// The visible items, their domains and the attributes in use are the planner's summary of
  /// the scope (`summary(scope:)`), which the file keeps per generation: counting the items of
  /// every attribute again took `stats` 26 s on a million notes and mails. Everything is read
  /// in one transaction, so the figures describe one generation.
  public func statistics(scope: AccessScope = AccessScope()) throws(SearchIndexError) -> IndexStatistics {
    let (stats, lookup) = try read { db -> (IndexStatistics, SummaryLookup) in
      let lookup = try summaryLookup(db, scope: scope)
      let summary = lookup.entry.summary
      let total = try db.scalar("SELECT count(*) FROM items WHERE indexId = ?", [.integer(indexID)])?.int64Value ?? 0
      let expired = try db.scalar(
        "SELECT count(*) FROM items WHERE indexId = ? AND expiration IS NOT NULL AND expiration <= ?",
        [.integer(indexID), .real(scope.now.timeIntervalSince1970)])?.int64Value ?? 0
      let state: Data?
      if case .blob(let bytes) = try db.scalar("SELECT clientState FROM indexes WHERE id = ?", [.integer(indexID)]) ?? .null {
        state = Data(bytes)
      } else {
        state = nil
      }
      var result = IndexStatistics(
        items: summary.items, expiredItems: Int(expired), protectedItems: Int(total) - summary.items - Int(expired),
        domains: summary.domainCounts, attributes: summary.attributes, clientState: state, fileSize: 0,
        generation: summary.generation)
      result.freeBytes = try Self.freeBytes(db)
      return (result, lookup)
    }
    keep(lookup)
    var result = stats
    result.fileSize = Self.fileBytes(path)
    return result
  }

  /// Bytes of the file's free pages (`PRAGMA freelist_count` pages).
  static func freeBytes(_ db: Connection) throws -> Int64 { try pageBytes(db, counting: "freelist_count") }

  /// Bytes of the pages `PRAGMA <pragma>` counts (`page_count`, `freelist_count`).
  static func pageBytes(_ db: Connection, counting pragma: String) throws -> Int64 {
    let pages = try db.scalar("PRAGMA \(pragma)")?.int64Value ?? 0
    return pages * (try db.scalar("PRAGMA page_size")?.int64Value ?? 4096)
  }

  /// Bytes of the index file and its write-ahead log.
  package static func fileBytes(_ path: String) -> Int64 { fileSize(path) + fileSize(path + "-wal") }

  private static func fileSize(_ path: String) -> Int64 {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
  }
}
