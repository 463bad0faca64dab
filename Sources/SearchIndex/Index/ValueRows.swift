/// The `vals` rows of an item, derived from its attributes (schema version 5): one row per
/// value, lists expanded in order. A number, date or Boolean has `num`; a short text has its
/// folded form `fold`, and `str` only when the text differs from `fold`; a long text
/// (`FullTextColumns.shortFold` is nil, or any text of `Schema.longTextAttributes`) is a
/// marker row with all three NULL.
///
/// The writer inserts these rows and `check` derives them again from every record to compare
/// (`SearchIndex.valuesAgreeWithRecords`): this is the one place that decides them.
package enum ValueRows {
  package struct Row: Equatable {
    package var ord: Int64
    package var num: Double?
    package var fold: String?
    package var str: String?
    /// A marker row for a long text kept only in the record.
    package var isLongText = false
  }

  /// Calls `body` with each attribute of `attributes` that the catalogue knows (its name and
  /// type) and the value rows of that attribute.
  /// `longTextAttributes` is `Schema.longTextAttributes` but for `check` of a file of an
  /// earlier version read without migrating (none before version 6).
  package static func forEach(
    in attributes: AttributeSet, catalog: AttributeCatalog, longTextAttributes: Set<String> = Schema.longTextAttributes,
    _ body: (String, AttributeType, [Row]) throws -> Void
  ) rethrows {
    for (name, value) in attributes {
      guard let type = catalog.type(of: name) else { continue }
      try body(name, type, rows(of: value, alwaysLong: longTextAttributes.contains(name)))
    }
  }

  /// The rows of one attribute value, in list order; `alwaysLong` makes every text a marker.
  package static func rows(of value: AttributeValue, alwaysLong: Bool = false) -> [Row] {
    value.elements.enumerated().map { ord, element in
      guard let text = element.stringValue else { return Row(ord: Int64(ord), num: element.numericValue) }
      guard !alwaysLong, let folded = FullTextColumns.shortFold(text) else { return Row(ord: Int64(ord), isLongText: true) }
      return Row(ord: Int64(ord), fold: folded, str: folded == text ? nil : text)
    }
  }

  /// Binds `row` of attribute `attr` of item `item` to an `INSERT INTO ...(item, attr, ord,
  /// num, fold, str) VALUES (?, ?, ?, ?, ?, ?)` and runs it.
  package static func insert(_ row: Row, item: Int64, attr: Int64, with statement: Statement) throws {
    try statement.bind(int: item, at: 1)
    try statement.bind(int: attr, at: 2)
    try statement.bind(int: row.ord, at: 3)
    try statement.bind(double: row.num, at: 4)
    try statement.bind(text: row.fold, at: 5)
    try statement.bind(text: row.str, at: 6)
    try statement.step()
  }
}
