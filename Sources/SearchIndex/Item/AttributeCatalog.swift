/// Every attribute name an index knows and its type: the 176 standard ones with fixed types,
/// plus custom attributes whose types were declared or inferred from the first value seen.
public struct AttributeCatalog: Sendable, Hashable {
  /// Custom attribute types by name.
  public private(set) var customTypes: [String: AttributeType] = [:]

  public init(customTypes: [String: AttributeType] = [:]) {
    self.customTypes = customTypes
  }

  /// The type of `name` (standard or custom), nil when unknown.
  public func type(of name: String) -> AttributeType? {
    StandardAttributes.types[name] ?? customTypes[name]
  }

  /// True for one of Apple's standard names.
  public func isStandard(_ name: String) -> Bool { StandardAttributes.types[name] != nil }

  /// Records a custom attribute's type; fails when the name is invalid or a different type
  /// was already recorded.
  public mutating func declare(_ name: String, as type: AttributeType) throws(AttributeNameError) {
    if let existing = self.type(of: name) {
      guard existing == type else { throw .typeConflict(name: name, existing: existing, new: type) }
      return
    }
    try AttributeCatalog.validateCustomName(name)
    customTypes[name] = type
  }

  /// Apple's rules for custom attribute names: ASCII letters, digits and `_`, starting with a
  /// letter or `_`, and never the reserved `kMD` prefix.
  public static func validateCustomName(_ name: String) throws(AttributeNameError) {
    guard !name.isEmpty else { throw .invalidName(name: name, reason: "the name is empty") }
    if name.hasPrefix("kMD") {
      throw .invalidName(name: name, reason: "the 'kMD' prefix is reserved for system attributes")
    }
    guard name.utf8.count <= 128 else { throw .invalidName(name: name, reason: "the name is longer than 128 characters") }
    for (offset, byte) in name.utf8.enumerated() {
      let isLetter = (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte == 95
      let isDigit = byte >= 48 && byte <= 57
      if offset == 0 && isDigit {
        throw .invalidName(name: name, reason: "the name must start with a letter or '_'")
      }
      guard isLetter || isDigit else {
        throw .invalidName(name: name, reason: "only ASCII letters, digits and '_' are allowed")
      }
    }
  }

  /// Every attribute name: standard ones in Apple's order, then custom ones sorted.
  public var allNames: [String] {
    StandardAttributes.all.map(\.name) + customTypes.keys.sorted()
  }
}

/// A custom attribute name that breaks Apple's rules, or a type that conflicts with the
/// catalogue.
public enum AttributeNameError: Error, Sendable, Hashable, CustomStringConvertible {
  case invalidName(name: String, reason: String)
  case typeConflict(name: String, existing: AttributeType, new: AttributeType)

  public var description: String {
    switch self {
    case .invalidName(let name, let reason): "invalid attribute name '\(name)': \(reason)"
    case .typeConflict(let name, let existing, let new):
      "attribute '\(name)' is \(existing), not \(new)"
    }
  }
}
