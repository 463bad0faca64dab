import Foundation

/// Attribute sets and values written as literals, so an app donates an item the way it
/// would write it down:
///
/// ```swift
/// let item = SearchableItem(
///   uniqueIdentifier: "note-1", domainIdentifier: "notes", contentType: "note",
///   attributeSet: ["title": "Orion retrospective", "rating": 4.5, "keywords": ["launch", "review"]])
/// ```
extension AttributeSet: ExpressibleByDictionaryLiteral {
  /// Later duplicates of a name replace earlier ones, as assigning them in order would.
  public init(dictionaryLiteral elements: (String, AttributeValue)...) {
    self.init(elements)
  }

  /// A set built by assigning attributes in a closure, for values computed on the way:
  ///
  /// ```swift
  /// let attributes = AttributeSet { set in
  ///   set["title"] = .string(note.title)
  ///   if let due = note.due { set["dueDate"] = .date(due) }
  /// }
  /// ```
  public init(building build: (inout AttributeSet) throws -> Void) rethrows {
    self.init()
    try build(&self)
  }
}

extension AttributeValue: ExpressibleByStringLiteral, ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral,
  ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral
{
  public init(stringLiteral value: String) { self = .string(value) }
  public init(floatLiteral value: Double) { self = .number(value) }
  public init(integerLiteral value: Int) { self = .number(Double(value)) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  public init(arrayLiteral elements: AttributeValue...) { self = .list(elements) }
}
