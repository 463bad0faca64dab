import Foundation

/// What a summary was computed from, kept beside it in `summary_cache`, so that the summary
/// of a later generation is the old tally with the changed items taken out and put back in,
/// plus the new items, instead of a pass over the whole value table (3 s at a million items
/// after every write).
///
/// Every count is of distinct items and every per-value count is kept (spellings and content
/// types included, `SummaryTally.FoldTally`), so taking an item out is exact; added items
/// have rowids above every old one (a reused rowid was deleted first, so logged). The items
/// rewritten or deleted since come from `SummaryLog`, as the tally's generation had them.
/// An attribute that had too many values to list may drop below the maximum when values go:
/// the tables then say whether it did, and if so the whole pass runs. Anything the log does
/// not hold (a write that logged nothing, a migration, a writer that does not log, an item
/// expiring, an attribute's type changing) needs the whole pass too.
///
/// Meta also keeps `summaryRewritten` and `summaryTracked` for binaries before the log, which
/// grow only across writes that added items; their tallies are stored under another key.
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
  static func key(_ scopeKey: String) -> String { keyPrefix + scopeKey }
  /// Every state key starts with this; `keyPrefixEnd` is the first text after them all.
  static let keyPrefix = "tally2 "
  static let keyPrefixEnd = "tally2!"

  /// Meta keys the writers before `SummaryLog` kept, and this one still keeps for them: the
  /// last generation that rewrote or deleted, and the last one they tracked.
  static let rewrittenKey = "summaryRewritten"
  static let trackedKey = "summaryTracked"

  /// Whether this state can grow to generation `current` of the file open on `db`: every
  /// change since was an added item or one `SummaryLog` holds.
  func canAdvance(_ db: Connection, to current: Int64) throws -> Bool {
    try SummaryLog.covers(db, since: generation, current: current)
  }

  /// The state advanced to generation `current`: the items rewritten or deleted since taken
  /// out as they were, then the rewritten ones and the items added since (after `lastRowid`)
  /// put in as they are, each as `visible` (over `items`, alias `i`) selects them, with the
  /// catalogue's attributes `attributes`. Nil when that cannot be exact: an attribute the
  /// tally holds changed type, or one whose values it had stopped listing lost values and
  /// may list them again.
  func advanced(
    _ db: Connection, generation current: Int64, visible: (sql: String, arguments: [SQLValue]),
    attributes: [Int64: SummaryTally.Attribute]
  ) throws -> SummaryState? {
    var next = self
    guard next.tally.adopt(attributes) else { return nil }
    next.generation = current

    // Out, as the tally counted them.
    let removed = try SummaryLog.removed(db, since: generation, lastRowid: lastRowid, visible: visible)
    var gone = next.tally.emptyCopy()
    for item in removed where item.visible {
      next.items -= 1
      guard Self.subtract(item.domain, from: &next.domains), Self.subtract(item.contentType, from: &next.contentTypes) else {
        return nil
      }
      try SummaryLog.forEachValue(db, of: item) { gone.add($0, contentType: item.contentType) }
    }
    guard next.items >= 0, let outgrown = next.tally.subtract(gone) else { return nil }

    // In, as they are now: the rewritten items that are still there, then the new ones.
    if !removed.isEmpty {
      let rowids = JSONValue.array(removed.map { .number(Double($0.item)) }).compactText
      let current = try db.rows(
        "SELECT i.rowid, i.domain, i.contentType FROM items i WHERE i.rowid IN (SELECT value FROM json_each(?)) AND \(visible.sql)",
        [.text(rowids)] + visible.arguments
      ) { ($0.int64(0), $0.isNull(1) ? nil : $0.string(1), $0.isNull(2) ? nil : $0.string(2)) }
      let values = try db.cachedStatement("SELECT item, attr, fold, str FROM vals WHERE item = ?")
      for (rowid, domain, type) in current {
        next.items += 1
        next.domains[domain, default: 0] += 1
        next.contentTypes[type, default: 0] += 1
        try values.bind([.integer(rowid)])
        while try values.step() { next.tally.add(values, contentType: type) }
      }
    }
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

    // An attribute that lost values it no longer listed still has too many, or the whole
    // pass decides.
    for lost in outgrown {
      guard try Self.stillOutgrown(db, lost, visible: visible) else { return nil }
    }
    return next
  }

  /// Takes one item of `name` out of `counts`; false when there was none.
  private static func subtract(_ name: String?, from counts: inout [String?: Int]) -> Bool {
    guard let count = counts[name], count > 0 else { return false }
    counts[name] = count == 1 ? nil : count - 1
    return true
  }

  /// Whether the attribute of `lost` still has more distinct values among the items
  /// `visible` selects than the summary lists: each removed folded value still held by a
  /// visible item leaves the count where it was; otherwise the distinct folded values are
  /// counted (one probe of the `(attr, fold)` index per value, up to one past the maximum).
  /// Examples (exact texts) are at least as many as folded values.
  private static func stillOutgrown(
    _ db: Connection, _ lost: SummaryTally.Outgrown, visible: (sql: String, arguments: [SQLValue])
  ) throws -> Bool {
    let held = try db.cachedStatement(
      "SELECT 1 FROM vals v JOIN items i ON i.rowid = v.item WHERE v.attr = ? AND v.fold = ? AND \(visible.sql) LIMIT 1")
    func isHeld(_ fold: String) throws -> Bool {
      try held.bind([.integer(lost.attribute), .text(fold)] + visible.arguments)
      defer { held.reset() }
      return try held.step()
    }
    var needed = lost.examples ? IndexSummary.maximumExampleValues + 1 : 0
    if !lost.folds.isEmpty {
      for fold in lost.folds {
        if try !isHeld(fold) {
          needed = max(needed, IndexSummary.maximumKnownValues + 1)
          break
        }
      }
    }
    guard needed > 0 else { return true }
    // The folded values in order, each found with one seek past the last.
    let first = try db.cachedStatement("SELECT fold FROM vals WHERE attr = ? AND fold IS NOT NULL ORDER BY fold LIMIT 1")
    let following = try db.cachedStatement("SELECT fold FROM vals WHERE attr = ? AND fold IS NOT NULL AND fold > ? ORDER BY fold LIMIT 1")
    var found = 0
    var last: String?
    while found < needed {
      let seek = last == nil ? first : following
      try seek.bind([.integer(lost.attribute)] + (last.map { [.text($0)] } ?? []))
      defer { seek.reset() }
      guard try seek.step(), let fold = seek.string(0) else { return false }
      last = fold
      if try isHeld(fold) { found += 1 }
    }
    return true
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
