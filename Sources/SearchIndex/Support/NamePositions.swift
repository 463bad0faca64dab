/// The positions of the names of an ordered collection with unique names (`AttributeSet`,
/// `JSONObject`), kept only once the collection has more than `threshold` of them: below it
/// a linear search is faster than hashing, above it the positions keep every lookup and
/// insert constant-time, so building a collection of n names costs O(n), not O(n²).
struct NamePositions: Sendable, Hashable {
  static let threshold = 16
  private var table: [String: Int]?

  /// The position of `name`: from the table when there is one, else from `linear`.
  func index(of name: String, linear: () -> Int?) -> Int? {
    if let table { return table[name] }
    return linear()
  }

  /// Records that `name` was appended as the `count`th name; builds the table from `names`
  /// when the collection grows past the threshold.
  mutating func appended<Names: Sequence<String>>(_ name: String, count: Int, names: () -> Names) {
    if table != nil {
      table![name] = count - 1
    } else if count > Self.threshold {
      rebuild(names())
    }
  }

  /// Recomputes the table after names moved (a removal).
  mutating func rebuild<Names: Sequence<String>>(_ names: Names) {
    guard table != nil || names.underestimatedCount > Self.threshold else { return }
    var rebuilt: [String: Int] = [:]
    for (offset, name) in names.enumerated() { rebuilt[name] = offset }
    table = rebuilt.count > Self.threshold ? rebuilt : nil
  }

  // Positions are derived data: two collections with the same names are equal.
  static func == (lhs: NamePositions, rhs: NamePositions) -> Bool { true }
  func hash(into hasher: inout Hasher) {}
}
