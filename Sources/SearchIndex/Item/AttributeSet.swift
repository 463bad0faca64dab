/// The attributes of an item, in the order they were given (CSSearchableItemAttributeSet).
public struct AttributeSet: Sendable, Hashable, Sequence {
  /// Name and value pairs in order; names are unique.
  public private(set) var entries: [(name: String, value: AttributeValue)] = []
  /// Where each name sits in `entries`, kept once the set is larger than
  /// `NamePositions.threshold` (a linear search is faster below it), so building an item
  /// of 20,000 attributes costs linear time, not quadratic.
  private var positions = NamePositions()

  public init() {}

  public init(_ entries: [(String, AttributeValue)]) {
    for (name, value) in entries { self[name] = value }
  }

  /// The value of `name`; assigning nil removes it.
  public subscript(name: String) -> AttributeValue? {
    get { index(of: name).map { entries[$0].value } }
    set {
      if let index = index(of: name) {
        if let newValue {
          entries[index].value = newValue
        } else {
          entries.remove(at: index)
          positions.rebuild(entries.lazy.map(\.name))
        }
      } else if let newValue {
        entries.append((name, newValue))
        positions.appended(name, count: entries.count) { entries.lazy.map(\.name) }
      }
    }
  }

  /// Appends an attribute whose name the set does not hold, without looking for it first:
  /// for names that are unique already (the members of a JSON object).
  package mutating func appendNew(_ name: String, _ value: AttributeValue) {
    assert(index(of: name) == nil, "appendNew(\(name)) of a name the set holds")
    entries.append((name, value))
    positions.appended(name, count: entries.count) { entries.lazy.map(\.name) }
  }

  private func index(of name: String) -> Int? {
    positions.index(of: name) { entries.firstIndex(where: { $0.name == name }) }
  }

  /// The attribute names in order.
  public var names: [String] { entries.map(\.name) }

  /// Number of attributes.
  public var count: Int { entries.count }

  /// True when no attribute is set.
  public var isEmpty: Bool { entries.isEmpty }

  public func makeIterator() -> IndexingIterator<[(name: String, value: AttributeValue)]> {
    entries.makeIterator()
  }

  /// Title, the usual display name of an item.
  public var title: String? { self["title"]?.stringValue }

  /// The attributes as a JSON object in canonical form.
  public var jsonObject: JSONObject {
    JSONObject(entries.map { ($0.name, $0.value.jsonValue) })
  }

  public static func == (lhs: AttributeSet, rhs: AttributeSet) -> Bool {
    lhs.entries.count == rhs.entries.count
      && zip(lhs.entries, rhs.entries).allSatisfy { $0.name == $1.name && $0.value == $1.value }
  }

  public func hash(into hasher: inout Hasher) {
    for entry in entries {
      hasher.combine(entry.name)
      hasher.combine(entry.value)
    }
  }
}
