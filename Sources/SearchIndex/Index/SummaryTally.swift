import Foundation

/// The value-table part of an `IndexSummary` (attribute counts, example values, known
/// values) in one pass over `vals` in its key order, for `SearchIndex.summary(scope:)`.
///
/// The SQL it replaces joined every value with its item to test visibility and read the
/// content type, once per attribute: the item rows hold the records, so each value cost a
/// random read of a large row (80 s for the first `plan`, `ask` or `mcp` after a write of a
/// million items, 5 s at 100k). Here the visible items and their content types come from the
/// covering index `items_type_scope` (one index scan), and the values are read once, in item
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

    /// Whether values are still tallied (the attribute may still list some).
    var isTallyingValues: Bool { exact != nil || folds != nil }

    /// Tallies one short-text value of `item` (`text` as written, `fold` folded).
    mutating func tally(_ item: Int64, fold: String, text: String, contentType: String?) {
      if exact != nil {
        exact![text, default: Tally()].count(item)
        if exact!.count > IndexSummary.maximumExampleValues { exact = nil }
      }
      guard folds != nil else { return }
      // SQLite's `length` counts characters; a text of few enough bytes has few enough.
      let short = text.utf8.count <= IndexSummary.maximumValueLength || text.unicodeScalars.count <= IndexSummary.maximumValueLength
      folds![fold, default: FoldTally()].add(item, text: text, contentType: contentType, short: short)
      if folds!.count > IndexSummary.maximumKnownValues { folds = nil }
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

  /// Distinct items holding one value (items arrive in ascending order).
  struct Tally {
    var items = 0
    var lastItem = Int64.min

    mutating func count(_ item: Int64) {
      if item != lastItem {
        items += 1
        lastItem = item
      }
    }
  }

  /// One folded value: its items, smallest spelling and content types, from the values no
  /// longer than `IndexSummary.maximumValueLength` (a longer one counts only as a distinct fold).
  struct FoldTally {
    var short = Tally()
    var smallest: String?
    var contentTypes: [String] = []

    mutating func add(_ item: Int64, text: String, contentType: String?, short: Bool) {
      guard short else { return }
      self.short.count(item)
      if let kept = smallest {
        if text != kept, SummaryTally.bytesPrecede(text, kept) { smallest = text }
      } else {
        smallest = text
      }
      if let contentType, !contentTypes.contains(contentType) { contentTypes.append(contentType) }
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
  /// their content types read from `items_type_scope`.
  static func scan(
    _ db: Connection, attributes: [Int64: Attribute], visibleSQL: (sql: String, arguments: [SQLValue])
  ) throws -> SummaryTally {
    var tally = SummaryTally(attributes: attributes)
    // Visible rowids per content type, each run ascending (the index's order within a type).
    var runs: [(type: String?, rowids: [Int64])] = []
    let items = try db.makeStatement(
      "SELECT i.contentType, i.rowid FROM items i INDEXED BY items_type_scope WHERE \(visibleSQL.sql)")
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
            attribute: attribute.name, fold: fold, value: $0, count: entry.short.items, contentTypes: entry.contentTypes.sorted())
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

  // MARK: Stored form

  /// The tally as positional arrays: [id, name, type, custom, examples?, known?, items,
  /// last item, exact values or null, folded values or null].
  var jsonValue: JSONValue {
    func last(_ item: Int64) -> JSONValue { .number(item == .min ? -1 : Double(item)) }
    return .array(slots.sorted { $0.key < $1.key }.map { id, slot in
      let attribute = attributes[slot]
      let exact: JSONValue = attribute.exact.map { exact in
        .array(exact.sorted { $0.key < $1.key }.map { .array([.string($0.key), .number(Double($0.value.items)), last($0.value.lastItem)]) })
      } ?? .null
      let folds: JSONValue = attribute.folds.map { folds in
        .array(folds.sorted { $0.key < $1.key }.map { fold, entry in
          .array([
            .string(fold), .number(Double(entry.short.items)), last(entry.short.lastItem), entry.smallest.map(JSONValue.string) ?? .null,
            .array(entry.contentTypes.map(JSONValue.string)),
          ])
        })
      } ?? .null
      return .array([
        .number(Double(id)), .string(attribute.name), .string(attribute.type.description), .bool(attribute.isCustom),
        .bool(attribute.listsExamples), .bool(attribute.listsKnownValues), .number(Double(attribute.items.items)),
        last(attribute.items.lastItem), exact, folds,
      ])
    })
  }

  init?(json: JSONValue) {
    func last(_ value: JSONValue) -> Int64? { value.intValue.map { $0 < 0 ? .min : Int64($0) } }
    guard let list = json.arrayValue else { return nil }
    var attributes: [Int64: Attribute] = [:]
    for entry in list {
      guard let fields = entry.arrayValue, fields.count == 10, let id = fields[0].intValue, let name = fields[1].stringValue,
        let type = fields[2].stringValue.flatMap(AttributeType.init(parsing:)), let custom = fields[3].boolValue,
        let examples = fields[4].boolValue, let known = fields[5].boolValue, let items = fields[6].intValue, let lastItem = last(fields[7])
      else { return nil }
      var attribute = Attribute(name: name, type: type, listing: nil, isCustom: custom)
      attribute.listsExamples = examples
      attribute.listsKnownValues = known
      attribute.items = Tally(items: items, lastItem: lastItem)
      if let exact = fields[8].arrayValue {
        var values: [String: Tally] = [:]
        for value in exact {
          guard let parts = value.arrayValue, parts.count == 3, let text = parts[0].stringValue, let count = parts[1].intValue,
            let lastItem = last(parts[2])
          else { return nil }
          values[text] = Tally(items: count, lastItem: lastItem)
        }
        attribute.exact = values
      } else {
        attribute.exact = nil
      }
      if let folds = fields[9].arrayValue {
        var values: [String: FoldTally] = [:]
        for value in folds {
          guard let parts = value.arrayValue, parts.count == 5, let fold = parts[0].stringValue, let count = parts[1].intValue,
            let lastItem = last(parts[2]), let types = parts[4].arrayValue
          else { return nil }
          values[fold] = FoldTally(short: Tally(items: count, lastItem: lastItem), smallest: parts[3].stringValue, contentTypes: types.compactMap(\.stringValue))
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
