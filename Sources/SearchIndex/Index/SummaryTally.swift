import Foundation

/// The value-table part of an `IndexSummary` (attribute counts, example values, known
/// values) in one pass over `vals` in its key order, for `SearchIndex.summary(scope:)`.
///
/// The SQL it replaces joined every value with its item to test visibility and read the
/// content type, once per attribute: the item rows hold the records, so each value cost a
/// random read of a large row (80 s for the first `plan`, `ask` or `mcp` after a write of a
/// million items, 5 s at 100k). Here the visible items and their content types come from the
/// covering index `items_type_domain_scope` (one index scan), and the values are read once, in item
/// order, with both lists walked together. The result is the SQL's exactly (a test holds the
/// two side by side); an attribute stops being tallied as soon as it has too many distinct
/// values to list.
struct SummaryTally {
  /// What the summary needs of one attribute of the catalogue.
  struct Attribute {
    var name: String
    var type: AttributeType
    var isCustom: Bool
    /// Text attributes list example values (`isTextual`); string attributes known values.
    var listsExamples: Bool
    var listsKnownValues: Bool
    /// Distinct visible items with the attribute.
    var items = Tally()
    /// Distinct exact values with their items; nil once there are more than the maximum
    /// (or when the attribute lists no examples).
    var exact: [String: Tally]?
    /// Distinct folded values; nil once there are more than the maximum (or when the
    /// attribute lists no known values).
    var folds: [String: FoldTally]?
    /// False in a tally of removed items (`SummaryState`), which keeps every value it saw.
    var limitsValues = true

    /// Whether values are still tallied (the attribute may still list some).
    var isTallyingValues: Bool { exact != nil || folds != nil }

    /// Tallies one short-text value of `item` (`text` as written, `fold` folded).
    mutating func tally(_ item: Int64, fold: String, text: String, contentType: String?) {
      if exact != nil {
        exact![text, default: Tally()].count(item)
        if limitsValues, exact!.count > IndexSummary.maximumExampleValues { exact = nil }
      }
      guard folds != nil else { return }
      // SQLite's `length` counts characters; a text of few enough bytes has few enough.
      let short = text.utf8.count <= IndexSummary.maximumValueLength || text.unicodeScalars.count <= IndexSummary.maximumValueLength
      folds![fold, default: FoldTally()].add(item, text: text, contentType: contentType, short: short)
      if limitsValues, folds!.count > IndexSummary.maximumKnownValues { folds = nil }
    }

    /// `listing` is the catalogue's type of the attribute (nil lists no values).
    init(name: String, type: AttributeType, listing: AttributeType?, isCustom: Bool) {
      self.name = name
      self.type = type
      self.isCustom = isCustom
      listsExamples = listing?.isTextual ?? false
      listsKnownValues = listing?.scalar == .string
      exact = listsExamples ? [:] : nil
      folds = listsKnownValues ? [:] : nil
    }
  }

  /// Distinct items holding one value. An item's values arrive together, so the last item
  /// counted is all it takes to count each item once; which item came last means nothing
  /// once another item's values come (items removed or written again arrive out of order).
  struct Tally {
    var items = 0
    var lastItem = Int64.min

    mutating func count(_ item: Int64) {
      if item != lastItem {
        items += 1
        lastItem = item
      }
    }

    /// Takes away `removed`'s items; false when that is more than were counted.
    mutating func subtract(_ removed: Tally) -> Bool {
      items -= removed.items
      lastItem = .min
      return items >= 0
    }
  }

  /// Names (spellings, content types) each with the distinct items that have them.
  struct NamedTallies {
    private(set) var entries: [(name: String, items: Tally)] = []

    mutating func count(_ name: String, item: Int64) {
      if let at = entries.firstIndex(where: { $0.name == name }) {
        entries[at].items.count(item)
      } else {
        entries.append((name, Tally(items: 1, lastItem: item)))
      }
    }

    /// Takes away `removed`'s counts; false when a name was not there or had fewer items.
    mutating func subtract(_ removed: NamedTallies) -> Bool {
      for (name, tally) in removed.entries {
        guard let at = entries.firstIndex(where: { $0.name == name }), entries[at].items.subtract(tally) else { return false }
        if entries[at].items.items == 0 { entries.remove(at: at) }
      }
      return true
    }

    var names: [String] { entries.map(\.name) }

    var jsonValue: JSONValue { .array(entries.map { .array([.string($0.name), .number(Double($0.items.items))]) }) }

    init() {}

    init?(json: JSONValue?) {
      guard let list = json?.arrayValue else { return nil }
      for entry in list {
        guard let pair = entry.arrayValue, pair.count == 2, let name = pair[0].stringValue, let count = pair[1].intValue, count > 0
        else { return nil }
        entries.append((name, Tally(items: count)))
      }
    }
  }

  /// One folded value: the items with it, and of the values no longer than
  /// `IndexSummary.maximumValueLength` (a longer one counts only as a distinct fold) the
  /// items, spellings and content types, each spelling and type with its items so that
  /// removing an item takes away exactly what it brought.
  struct FoldTally {
    var all = Tally()
    var short = Tally()
    var spellings = NamedTallies()
    var contentTypes = NamedTallies()

    /// The spelling listed for the fold: the smallest in byte order.
    var smallest: String? { spellings.names.min(by: SummaryTally.bytesPrecede) }

    mutating func add(_ item: Int64, text: String, contentType: String?, short: Bool) {
      all.count(item)
      guard short else { return }
      self.short.count(item)
      spellings.count(text, item: item)
      if let contentType { contentTypes.count(contentType, item: item) }
    }

    /// Takes away `removed`'s counts; false when they were not all there.
    mutating func subtract(_ removed: FoldTally) -> Bool {
      all.subtract(removed.all) && short.subtract(removed.short) && spellings.subtract(removed.spellings)
        && contentTypes.subtract(removed.contentTypes)
    }
  }

  private(set) var attributes: [Attribute]
  /// Attribute id -> position in `attributes`.
  private var slots: [Int64: Int]

  init(attributes: [Int64: Attribute]) {
    self.attributes = Array(attributes.values)
    slots = Dictionary(uniqueKeysWithValues: attributes.keys.enumerated().map { ($1, $0) })
  }

  /// The tally of the values of the items `visibleSQL` (over `items`, alias `i`) selects,
  /// their content types read from `items_type_domain_scope`.
  static func scan(
    _ db: Connection, attributes: [Int64: Attribute], visibleSQL: (sql: String, arguments: [SQLValue])
  ) throws -> SummaryTally {
    var tally = SummaryTally(attributes: attributes)
    // Visible rowids per content type, each run ascending (the index's order within a type).
    var runs: [(type: String?, rowids: [Int64])] = []
    let items = try db.makeStatement(
      "SELECT i.contentType, i.rowid FROM items i INDEXED BY items_type_domain_scope WHERE \(visibleSQL.sql)")
    try items.bind(visibleSQL.arguments)
    while try items.step() {
      let type = items.isNull(0) ? nil : items.string(0)
      if runs.isEmpty || runs[runs.count - 1].type != type { runs.append((type, [])) }
      runs[runs.count - 1].rowids.append(items.int64(1))
    }
    var cursors = [Int](repeating: 0, count: runs.count)
    var currentItem = Int64.min
    var currentVisible = false
    var currentType: String?

    let values = try db.makeStatement("SELECT item, attr, fold, str FROM vals")
    while try values.step() {
      let item = values.int64(0)
      if item != currentItem {
        currentItem = item
        currentVisible = false
        currentType = nil
        for run in runs.indices {
          let rowids = runs[run].rowids
          var cursor = cursors[run]
          while cursor < rowids.count && rowids[cursor] < item { cursor += 1 }
          cursors[run] = cursor
          if cursor < rowids.count && rowids[cursor] == item {
            currentVisible = true
            currentType = runs[run].type
          }
        }
      }
      guard currentVisible else { continue }
      tally.add(values, contentType: currentType)
    }
    return tally
  }

  /// Whether `a` sorts before `b` byte by byte (SQLite's BINARY collation).
  static func bytesPrecede(_ a: String, _ b: String) -> Bool {
    var a = a
    var b = b
    return a.withUTF8 { a in
      b.withUTF8 { b in
        let common = min(a.count, b.count)
        let order = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
        return order != 0 ? order < 0 : a.count < b.count
      }
    }
  }

  /// Attributes some visible item has, by name.
  var attributeCounts: [IndexStatistics.Attribute] {
    attributes.filter { $0.items.items > 0 }
      .sorted { Self.bytesPrecede($0.name, $1.name) }
      .map { IndexStatistics.Attribute(name: $0.name, type: $0.type, count: $0.items.items, isCustom: $0.isCustom) }
  }

  /// Example values of the text attributes with few distinct values, most common first.
  var exampleValues: [String: [IndexSummary.ExampleValue]] {
    var examples: [String: [IndexSummary.ExampleValue]] = [:]
    for attribute in attributes where attribute.listsExamples {
      guard let exact = attribute.exact, !exact.isEmpty else { continue }
      examples[attribute.name] = exact.map { IndexSummary.ExampleValue(value: $0.key, count: $0.value.items) }
        .sorted { $0.count != $1.count ? $0.count > $1.count : Self.bytesPrecede($0.value, $1.value) }
    }
    return examples
  }

  /// Known values of the string attributes with few distinct folded values, in folded order.
  var knownValues: [String: [IndexSummary.KnownValue]] {
    var known: [String: [IndexSummary.KnownValue]] = [:]
    for attribute in attributes where attribute.listsKnownValues {
      guard let folds = attribute.folds, !folds.isEmpty else { continue }
      known[attribute.name] = folds.compactMap { fold, entry in
        entry.smallest.map {
          IndexSummary.KnownValue(
            attribute: attribute.name, fold: fold, value: $0, count: entry.short.items, contentTypes: entry.contentTypes.names.sorted())
        }
      }.sorted { Self.bytesPrecede($0.fold, $1.fold) }
    }
    return known
  }
}

// MARK: Growing and storing (`SummaryState`)

extension SummaryTally {
  /// Tallies one row of `SELECT item, attr, fold, str FROM vals` of a visible item whose
  /// content type is `contentType`; rows arrive in key order.
  mutating func add(_ row: Statement, contentType: String?) {
    let item = row.int64(0)
    guard let slot = slots[row.int64(1)] else { return }
    let tallying = attributes[slot].isTallyingValues
    attributes[slot].items.count(item)
    guard tallying, !row.isNull(2), let fold = row.string(2) else { return }
    let text = row.isNull(3) ? fold : row.string(3) ?? fold
    attributes[slot].tally(item, fold: fold, text: text, contentType: contentType)
  }

  /// Takes the catalogue's attributes `catalog` (by id): new ones join with nothing tallied;
  /// false when one the tally holds changed name, type or listing.
  mutating func adopt(_ catalog: [Int64: Attribute]) -> Bool {
    for (id, attribute) in catalog {
      if let slot = slots[id] {
        let kept = attributes[slot]
        guard kept.name == attribute.name, kept.type == attribute.type, kept.isCustom == attribute.isCustom,
          kept.listsExamples == attribute.listsExamples, kept.listsKnownValues == attribute.listsKnownValues
        else { return false }
      } else {
        slots[id] = attributes.count
        attributes.append(attribute)
      }
    }
    return true
  }

  /// A tally of the same attributes with nothing counted that keeps every value it sees
  /// (for the values of removed items, `SummaryState`).
  func emptyCopy() -> SummaryTally {
    var copy = self
    for slot in copy.attributes.indices {
      var attribute = copy.attributes[slot]
      attribute.items = Tally()
      attribute.exact = attribute.listsExamples ? [:] : nil
      attribute.folds = attribute.listsKnownValues ? [:] : nil
      attribute.limitsValues = false
      copy.attributes[slot] = attribute
    }
    return copy
  }

  /// What an attribute lost that this tally no longer lists (it had too many values): the
  /// removed values may have been the last of some, so whether it still has too many is
  /// for the caller to find out from the tables.
  struct Outgrown {
    var attribute: Int64
    /// Removed folded values, when the known values had been dropped.
    var folds: [String]
    /// True when the examples had been dropped.
    var examples: Bool
  }

  /// Takes away the tally `removed` (an `emptyCopy` of this one that counted removed items);
  /// nil when it holds more than this one counted (the two disagree: the caller falls back
  /// to the whole pass). Returns the attributes whose dropped lists may have to come back.
  mutating func subtract(_ removed: SummaryTally) -> [Outgrown]? {
    var outgrown: [Outgrown] = []
    for (id, removedSlot) in removed.slots {
      let gone = removed.attributes[removedSlot]
      guard gone.items.items > 0 else { continue }
      guard let slot = slots[id], attributes[slot].items.subtract(gone.items) else { return nil }
      var attribute = attributes[slot]
      var lost = Outgrown(attribute: id, folds: [], examples: false)
      if let goneExact = gone.exact, !goneExact.isEmpty {
        if attribute.exact != nil {
          for (text, tally) in goneExact {
            guard attribute.exact![text]?.subtract(tally) == true else { return nil }
            if attribute.exact![text]!.items == 0 { attribute.exact![text] = nil }
          }
        } else if attribute.listsExamples {
          lost.examples = true
        }
      }
      if let goneFolds = gone.folds, !goneFolds.isEmpty {
        if attribute.folds != nil {
          for (fold, tally) in goneFolds {
            guard attribute.folds![fold]?.subtract(tally) == true else { return nil }
            if attribute.folds![fold]!.all.items == 0 { attribute.folds![fold] = nil }
          }
        } else if attribute.listsKnownValues {
          lost.folds = Array(goneFolds.keys)
        }
      }
      attributes[slot] = attribute
      if lost.examples || !lost.folds.isEmpty { outgrown.append(lost) }
    }
    return outgrown
  }

  // MARK: Stored form

  /// The tally as positional arrays: [id, name, type, custom, examples?, known?, items,
  /// exact values [text, items] or null, folded values or null], each folded value [fold,
  /// items, items with a short value, spellings [text, items], content types [type, items]].
  var jsonValue: JSONValue {
    .array(slots.sorted { $0.key < $1.key }.map { id, slot in
      let attribute = attributes[slot]
      let exact: JSONValue = attribute.exact.map { exact in
        .array(exact.sorted { $0.key < $1.key }.map { .array([.string($0.key), .number(Double($0.value.items))]) })
      } ?? .null
      let folds: JSONValue = attribute.folds.map { folds in
        .array(folds.sorted { $0.key < $1.key }.map { fold, entry in
          .array([
            .string(fold), .number(Double(entry.all.items)), .number(Double(entry.short.items)), entry.spellings.jsonValue,
            entry.contentTypes.jsonValue,
          ])
        })
      } ?? .null
      return .array([
        .number(Double(id)), .string(attribute.name), .string(attribute.type.description), .bool(attribute.isCustom),
        .bool(attribute.listsExamples), .bool(attribute.listsKnownValues), .number(Double(attribute.items.items)), exact, folds,
      ])
    })
  }

  init?(json: JSONValue) {
    guard let list = json.arrayValue else { return nil }
    var attributes: [Int64: Attribute] = [:]
    for entry in list {
      guard let fields = entry.arrayValue, fields.count == 9, let id = fields[0].intValue, let name = fields[1].stringValue,
        let type = fields[2].stringValue.flatMap(AttributeType.init(parsing:)), let custom = fields[3].boolValue,
        let examples = fields[4].boolValue, let known = fields[5].boolValue, let items = fields[6].intValue
      else { return nil }
      var attribute = Attribute(name: name, type: type, listing: nil, isCustom: custom)
      attribute.listsExamples = examples
      attribute.listsKnownValues = known
      attribute.items = Tally(items: items)
      if let exact = fields[7].arrayValue {
        var values: [String: Tally] = [:]
        for value in exact {
          guard let parts = value.arrayValue, parts.count == 2, let text = parts[0].stringValue, let count = parts[1].intValue
          else { return nil }
          values[text] = Tally(items: count)
        }
        attribute.exact = values
      } else {
        attribute.exact = nil
      }
      if let folds = fields[8].arrayValue {
        var values: [String: FoldTally] = [:]
        for value in folds {
          guard let parts = value.arrayValue, parts.count == 5, let fold = parts[0].stringValue, let all = parts[1].intValue,
            let short = parts[2].intValue, let spellings = NamedTallies(json: parts[3]), let types = NamedTallies(json: parts[4])
          else { return nil }
          values[fold] = FoldTally(all: Tally(items: all), short: Tally(items: short), spellings: spellings, contentTypes: types)
        }
        attribute.folds = values
      } else {
        attribute.folds = nil
      }
      attributes[Int64(id)] = attribute
    }
    self.init(attributes: attributes)
  }
}
