import Foundation

/// What a summary was computed from, kept beside it in `summary_cache`, so that the summary
/// of a later generation that only added items is the old tally plus the new items' values
/// instead of a pass over the whole value table (3 s at a million items after every write).
///
/// A tally grows exactly when items are only added: every count is of distinct items, which
/// arrive in rowid order, and new rowids follow every old one; a list that outgrew its
/// maximum stays outgrown. Anything else (an item rewritten or deleted, a migration, a
/// writer that does not track this, an item expiring, an attribute's type changing) needs the
/// whole pass: the writer records the last generation that did more than add
/// (`IndexWriter.finish`, meta `summaryRewritten`) and the last one it tracked
/// (`summaryTracked`).
struct SummaryState {
  /// The generation the tally holds for.
  var generation: Int64
  /// The largest rowid of the file's items at that generation (any named index).
  var lastRowid: Int64
  /// The clock times for which the scope saw the same items (`SummaryCache.Entry`).
  var validFrom: Double?
  var validUntil: Double?
  var items: Int
  var domains: [String?: Int]
  var contentTypes: [String?: Int]
  var tally: SummaryTally

  /// The key of a scope's state in `summary_cache` (beside the summary's own key).
  static func key(_ scopeKey: String) -> String { "tally " + scopeKey }

  /// Meta keys the writer keeps (see the type's comment).
  static let rewrittenKey = "summaryRewritten"
  static let trackedKey = "summaryTracked"

  /// Whether the items of this state's generation are still there exactly as they were, in
  /// the file as `db` sees it at `generation`: only items were added since.
  func onlyAddedSince(_ db: Connection, generation current: Int64) throws -> Bool {
    guard current > generation else { return false }
    let tracked = try db.scalar("SELECT value FROM meta WHERE key = ?", [.text(Self.trackedKey)])?.int64Value
    let rewritten = try db.scalar("SELECT value FROM meta WHERE key = ?", [.text(Self.rewrittenKey)])?.int64Value
    guard tracked == current, let rewritten else { return false }
    return rewritten <= generation
  }

  /// The state advanced to `generation` by the items after `lastRowid` that `visible` (over
  /// `items`, alias `i`) selects, with the catalogue's attributes `attributes` (nil when an
  /// attribute the tally holds changed type: the whole pass is needed).
  func adding(
    _ db: Connection, generation current: Int64, visible: (sql: String, arguments: [SQLValue]),
    attributes: [Int64: SummaryTally.Attribute]
  ) throws -> SummaryState? {
    var next = self
    guard next.tally.adopt(attributes) else { return nil }
    next.generation = current
    var types: [Int64: String?] = [:]
    let added = try db.makeStatement("SELECT i.rowid, i.domain, i.contentType FROM items i WHERE i.rowid > ? AND \(visible.sql)")
    try added.bind([.integer(lastRowid)] + visible.arguments)
    while try added.step() {
      let domain = added.isNull(1) ? nil : added.string(1)
      let type = added.isNull(2) ? nil : added.string(2)
      types[added.int64(0)] = type
      next.items += 1
      next.domains[domain, default: 0] += 1
      next.contentTypes[type, default: 0] += 1
    }
    next.lastRowid = try db.scalar("SELECT max(rowid) FROM items")?.int64Value ?? lastRowid
    if !types.isEmpty {
      let values = try db.makeStatement("SELECT item, attr, fold, str FROM vals WHERE item > ?")
      try values.bind([.integer(lastRowid)])
      while try values.step() {
        guard let type = types[values.int64(0)] else { continue }
        next.tally.add(values, contentType: type)
      }
    }
    return next
  }

  /// Domain or content-type counts as the summary lists them: nil first, then in byte order.
  static func sortedCounts(_ counts: [String?: Int]) -> [IndexSummary.Count] {
    counts.map { IndexSummary.Count(name: $0.key, count: $0.value) }.sorted { a, b in
      switch (a.name, b.name) {
      case (nil, _): return b.name != nil
      case (_, nil): return false
      case (let x?, let y?): return SummaryTally.bytesPrecede(x, y)
      }
    }
  }

  /// Counts by name (the inverse of `sortedCounts`).
  static func countsByName(_ list: [IndexSummary.Count]) -> [String?: Int] {
    Dictionary(list.map { ($0.name, $0.count) }, uniquingKeysWith: +)
  }

  // MARK: Stored form

  var jsonValue: JSONValue {
    func counts(_ counts: [String?: Int]) -> JSONValue {
      .array(Self.sortedCounts(counts).map { .array([$0.name.map(JSONValue.string) ?? .null, .number(Double($0.count))]) })
    }
    return .object(JSONObject([
      ("generation", .number(Double(generation))),
      ("lastRowid", .number(Double(lastRowid))),
      ("validFrom", validFrom.map(JSONValue.number) ?? .null),
      ("validUntil", validUntil.map(JSONValue.number) ?? .null),
      ("items", .number(Double(items))),
      ("domains", counts(domains)),
      ("contentTypes", counts(contentTypes)),
      ("attributes", tally.jsonValue),
    ]))
  }

  /// The state stored by `jsonValue`; nil when the text is not one (another version).
  init?(json: JSONValue) {
    guard let generation = json["generation"]?.intValue, let lastRowid = json["lastRowid"]?.intValue,
      let items = json["items"]?.intValue, let domains = Self.storedCounts(json["domains"]),
      let contentTypes = Self.storedCounts(json["contentTypes"]), let attributes = json["attributes"],
      let tally = SummaryTally(json: attributes)
    else { return nil }
    self.generation = Int64(generation)
    self.lastRowid = Int64(lastRowid)
    validFrom = json["validFrom"]?.numberValue
    validUntil = json["validUntil"]?.numberValue
    self.items = items
    self.domains = domains
    self.contentTypes = contentTypes
    self.tally = tally
  }

  init(
    generation: Int64, lastRowid: Int64, validFrom: Double?, validUntil: Double?, items: Int, domains: [IndexSummary.Count],
    contentTypes: [IndexSummary.Count], tally: SummaryTally
  ) {
    self.generation = generation
    self.lastRowid = lastRowid
    self.validFrom = validFrom
    self.validUntil = validUntil
    self.items = items
    self.domains = Self.countsByName(domains)
    self.contentTypes = Self.countsByName(contentTypes)
    self.tally = tally
  }

  private static func storedCounts(_ json: JSONValue?) -> [String?: Int]? {
    guard let list = json?.arrayValue else { return nil }
    var result: [String?: Int] = [:]
    for entry in list {
      guard let pair = entry.arrayValue, pair.count == 2, let count = pair[1].intValue else { return nil }
      result[pair[0].stringValue, default: 0] += count
    }
    return result
  }
}
