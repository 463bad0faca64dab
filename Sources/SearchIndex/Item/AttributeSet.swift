/// The attributes of an item, in the order they were given (CSSearchableItemAttributeSet).
///
/// A set read from the index may hold its stored record undecoded (`StoredRecord`): the
/// executor reads thousands of items that a later stage drops, counts or pages away, and
/// building their typed values was most of the cost of such queries. The record is decoded
/// once, on the first read of any attribute, and shared by every copy of the set.
public struct AttributeSet: Sendable, Hashable, Sequence {
  /// The decoded attributes, when `record` is nil.
  private var decoded = Entries()
  /// The record the attributes are decoded from on first read; nil once the set is changed.
  private var record: StoredRecord?

  public init() {}

  public init(_ entries: [(String, AttributeValue)]) {
    for (name, value) in entries { self[name] = value }
  }

  /// A set whose attributes are decoded from `record` when first read.
  package init(undecoded record: StoredRecord) {
    self.record = record
  }

  /// The attributes, decoding the record if there is one.
  private var resolved: Entries { record?.entries ?? decoded }

  /// The attributes as `StoredRecord` caches them.
  var decodedEntries: Entries { resolved }

  /// Name and value pairs in order; names are unique.
  public var entries: [(name: String, value: AttributeValue)] { resolved.list }

  /// The value of `name`; assigning nil removes it.
  public subscript(name: String) -> AttributeValue? {
    get { resolved.value(of: name) }
    set {
      materialize()
      decoded.set(name, newValue)
    }
  }

  /// Appends an attribute whose name the set does not hold, without looking for it first:
  /// for names that are unique already (the members of a JSON object).
  package mutating func appendNew(_ name: String, _ value: AttributeValue) {
    materialize()
    decoded.appendNew(name, value)
  }

  /// Moves the record's attributes into the set before a change.
  private mutating func materialize() {
    guard let record else { return }
    decoded = record.entries
    self.record = nil
  }

  /// The attribute names in order.
  public var names: [String] { resolved.list.map(\.name) }

  /// Number of attributes.
  public var count: Int { resolved.list.count }

  /// True when no attribute is set.
  public var isEmpty: Bool { resolved.list.isEmpty }

  public func makeIterator() -> IndexingIterator<[(name: String, value: AttributeValue)]> {
    resolved.list.makeIterator()
  }

  /// Title, the usual display name of an item.
  public var title: String? { self["title"]?.stringValue }

  /// The attributes as a JSON object in canonical form.
  public var jsonObject: JSONObject {
    JSONObject(resolved.list.map { ($0.name, $0.value.jsonValue) })
  }

  public static func == (lhs: AttributeSet, rhs: AttributeSet) -> Bool {
    let left = lhs.resolved.list, right = rhs.resolved.list
    return left.count == right.count && zip(left, right).allSatisfy { $0.name == $1.name && $0.value == $1.value }
  }

  public func hash(into hasher: inout Hasher) {
    for entry in resolved.list {
      hasher.combine(entry.name)
      hasher.combine(entry.value)
    }
  }

  /// Decoded attributes: the pairs in order and, once there are more than
  /// `NamePositions.threshold`, where each name sits (a linear search is faster below it),
  /// so building an item of 20,000 attributes costs linear time, not quadratic.
  struct Entries: Sendable {
    private(set) var list: [(name: String, value: AttributeValue)] = []
    private var positions = NamePositions()

    func value(of name: String) -> AttributeValue? {
      index(of: name).map { list[$0].value }
    }

    mutating func set(_ name: String, _ value: AttributeValue?) {
      if let index = index(of: name) {
        if let value {
          list[index].value = value
        } else {
          list.remove(at: index)
          positions.rebuild(list.lazy.map(\.name))
        }
      } else if let value {
        list.append((name, value))
        positions.appended(name, count: list.count) { list.lazy.map(\.name) }
      }
    }

    mutating func appendNew(_ name: String, _ value: AttributeValue) {
      assert(index(of: name) == nil, "appendNew(\(name)) of a name the set holds")
      list.append((name, value))
      positions.appended(name, count: list.count) { list.lazy.map(\.name) }
    }

    private func index(of name: String) -> Int? {
      positions.index(of: name) { list.firstIndex(where: { $0.name == name }) }
    }
  }
}
