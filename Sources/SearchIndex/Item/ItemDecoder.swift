import Foundation

/// Turns canonical JSON objects into `SearchableItem`s, checking each value against the
/// attribute catalogue and inferring the types of new custom attributes.
///
/// The decoder owns a working copy of the catalogue, so types inferred from earlier items of
/// the same invocation apply to later ones; the index records them when the write commits.
public struct ItemDecoder: Sendable {
  /// The catalogue, including types inferred so far.
  public private(set) var catalog: AttributeCatalog
  /// The domain given to items that name none.
  public var defaultDomain: String?
  /// The zone for dates written without one.
  public var defaultZone: TimeZone

  public init(catalog: AttributeCatalog, defaultDomain: String? = nil, defaultZone: TimeZone = TimeZone(identifier: "UTC")!) {
    self.catalog = catalog
    self.defaultDomain = defaultDomain
    self.defaultZone = defaultZone
  }

  /// The members an item object may have; anything else is an error (attributes go inside
  /// `attributes`), so a typo such as `domian` is reported instead of becoming an attribute.
  static let itemKeys: Set<String> = [
    "id", "uniqueIdentifier", "domain", "domainIdentifier", "contentType", "expirationDate", "protectionClass",
    "attributes", "attributeSet",
  ]

  /// Decodes one item.
  public mutating func decode(_ value: JSONValue) throws(ItemDecodingError) -> SearchableItem {
    try decodeUpdate(value, allowNulls: false).item
  }

  /// Decodes one item for a merge update: attributes set to `null` are returned in `removed`.
  public mutating func decodeUpdate(
    _ value: JSONValue, allowNulls: Bool = true
  ) throws(ItemDecodingError) -> (item: SearchableItem, removed: Set<String>) {
    guard case .object(let object) = value else {
      throw ItemDecodingError("expected an item object, got \(value.kindDescription)")
    }
    let id = try requiredString(object, "id", alias: "uniqueIdentifier")
    guard !id.isEmpty else { throw ItemDecodingError("'id' is empty") }
    var item = SearchableItem(uniqueIdentifier: id)
    item.domainIdentifier = try optionalString(object, "domain", alias: "domainIdentifier") ?? defaultDomain
    if let domain = item.domainIdentifier { try Self.validateDomain(domain) }
    item.contentType = try optionalString(object, "contentType", alias: nil)
    item.protectionClass = try optionalString(object, "protectionClass", alias: nil)
    if let text = try optionalString(object, "expirationDate", alias: nil) {
      guard let date = ISO8601.parse(text, defaultZone: defaultZone) else {
        throw ItemDecodingError("'expirationDate' is not an ISO-8601 date: \"\(text)\"")
      }
      item.expirationDate = date
    }
    for key in object.keys where !Self.itemKeys.contains(key) {
      let suggestion = Self.itemKeys.sorted().min { editDistance($0, key) < editDistance($1, key) }
      var message = "unknown item field '\(key)'; attributes go inside \"attributes\""
      if let suggestion, editDistance(suggestion, key) <= 2 { message = "unknown item field '\(key)'; did you mean '\(suggestion)'?" }
      throw ItemDecodingError(message)
    }
    var attributes = AttributeSet()
    var removed = Set<String>()
    let nested = object["attributes"] ?? object["attributeSet"]
    if let nested, !nested.isNull {
      guard case .object(let members) = nested else {
        throw ItemDecodingError("'attributes' must be an object, got \(nested.kindDescription)")
      }
      for (name, raw) in members {
        if let decoded = try decodeAttribute(name, raw, allowNulls: allowNulls) { attributes[decoded.0] = decoded.1 }
        else { removed.insert(canonicalName(name)) }
      }
    }
    item.attributeSet = attributes
    return (item, removed)
  }

  private func canonicalName(_ name: String) -> String {
    StandardAttributes.resolveAlias(name) ?? name
  }

  package mutating func decodeAttribute(
    _ rawName: String, _ raw: JSONValue, allowNulls: Bool
  ) throws(ItemDecodingError) -> (String, AttributeValue)? {
    let name = canonicalName(rawName)
    if StandardAttributes.itemFields.contains(name) {
      throw ItemDecodingError("'\(name)' is an item field; write it next to 'id', not among the attributes")
    }
    if raw.isNull {
      if allowNulls { return nil }
      throw ItemDecodingError("attribute '\(name)' is null; leave it out instead")
    }
    if let type = catalog.type(of: name) {
      return (name, try Self.coerce(raw, to: type, attribute: name, zone: defaultZone))
    }
    do {
      try AttributeCatalog.validateCustomName(name)
    } catch {
      throw ItemDecodingError(error.description)
    }
    let type = try Self.inferType(raw, attribute: name, zone: defaultZone)
    do { try catalog.declare(name, as: type) } catch { throw ItemDecodingError(error.description) }
    return (name, try Self.coerce(raw, to: type, attribute: name, zone: defaultZone))
  }

  /// The type a custom attribute gets from its first value.
  static func inferType(_ raw: JSONValue, attribute: String, zone: TimeZone) throws(ItemDecodingError) -> AttributeType {
    switch raw {
    case .number: return .number
    case .bool: return .bool
    case .string(let s): return looksLikeDate(s, zone: zone) ? .date : .string
    case .array(let elements):
      guard let first = elements.first(where: { !$0.isNull }) else { return .stringList }
      if case .array = first { throw ItemDecodingError("attribute '\(attribute)' is a list of lists; only flat lists are allowed") }
      if case .object = first { throw ItemDecodingError("attribute '\(attribute)' holds objects; only strings, numbers, dates and booleans are allowed") }
      let element = try inferType(first, attribute: attribute, zone: zone)
      return AttributeType(element.scalar, isList: true)
    case .object:
      throw ItemDecodingError("attribute '\(attribute)' is an object; only strings, numbers, dates, booleans and lists are allowed")
    case .null:
      return .string
    }
  }

  private static func looksLikeDate(_ s: String, zone: TimeZone) -> Bool {
    let bytes = Array(s.utf8)
    guard bytes.count >= 10, bytes[4] == 45, bytes[7] == 45 else { return false }
    return ISO8601.parse(s, defaultZone: zone) != nil
  }

  /// Converts `raw` to a value of `type`, or explains why it cannot.
  public static func coerce(
    _ raw: JSONValue, to type: AttributeType, attribute: String, zone: TimeZone
  ) throws(ItemDecodingError) -> AttributeValue {
    if type.isList {
      let elements: [JSONValue]
      if case .array(let array) = raw { elements = array } else { elements = [raw] }
      var values: [AttributeValue] = []
      for (offset, element) in elements.enumerated() {
        if element.isNull { continue }
        do {
          values.append(try coerceScalar(element, to: type.scalar, attribute: attribute, zone: zone))
        } catch {
          throw ItemDecodingError("\(error.message) (element \(offset + 1) of the list)")
        }
      }
      return .list(values)
    }
    if case .array = raw {
      throw ItemDecodingError("attribute '\(attribute)' is \(type), got a list")
    }
    return try coerceScalar(raw, to: type.scalar, attribute: attribute, zone: zone)
  }

  private static func coerceScalar(
    _ raw: JSONValue, to scalar: AttributeType.Scalar, attribute: String, zone: TimeZone
  ) throws(ItemDecodingError) -> AttributeValue {
    switch (scalar, raw) {
    case (.string, .string(let s)): return .string(s)
    case (.url, .string(let s)):
      guard !s.isEmpty, !s.contains(where: \.isWhitespace) else {
        throw ItemDecodingError("attribute '\(attribute)' is a url, got \"\(s)\"")
      }
      return .url(s)
    case (.number, .number(let n)): return .number(n)
    case (.bool, .bool(let b)): return .bool(b)
    case (.date, .string(let s)):
      guard let date = ISO8601.parse(s, defaultZone: zone) else {
        throw ItemDecodingError("attribute '\(attribute)' is a date, but \"\(s)\" does not parse as ISO-8601 (e.g. 2026-05-01T08:00:00Z)")
      }
      return .date(date)
    default:
      throw ItemDecodingError("attribute '\(attribute)' is a \(scalar.rawValue), got \(raw.kindDescription)")
    }
  }

  /// Domains are dot-separated non-empty components without spaces.
  public static func validateDomain(_ domain: String) throws(ItemDecodingError) {
    guard isValidDomain(domain) else {
      throw ItemDecodingError("invalid domain \"\(domain)\": use dot-separated names such as mail.inbox")
    }
  }

  /// Whether `domain` is dot-separated names, none of them empty, with no white space. Every
  /// item's domain is checked: an ASCII one byte by byte (by `Character` it was 4% of a
  /// re-index of 200,000 items), any other as characters.
  static func isValidDomain(_ domain: String) -> Bool {
    var afterDot = true  // An empty first name is as invalid as an empty later one.
    for byte in domain.utf8 {
      switch byte {
      case 0x80...:
        return !domain.isEmpty && !domain.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty)
          && !domain.contains(where: \.isWhitespace)
      case UInt8(ascii: "."):
        if afterDot { return false }
        afterDot = true
      case 0x09...0x0D, UInt8(ascii: " "):
        return false
      default:
        afterDot = false
      }
    }
    return !afterDot
  }

  private func requiredString(_ object: JSONObject, _ key: String, alias: String?) throws(ItemDecodingError) -> String {
    guard let value = try optionalString(object, key, alias: alias) else {
      throw ItemDecodingError("missing '\(key)'")
    }
    return value
  }

  private func optionalString(_ object: JSONObject, _ key: String, alias: String?) throws(ItemDecodingError) -> String? {
    guard let value = object[key] ?? alias.flatMap({ object[$0] }), !value.isNull else { return nil }
    switch value {
    case .string(let s): return s
    case .number(let n) where key == "id": return JSONValue.format(number: n)
    default: throw ItemDecodingError("'\(key)' must be a string, got \(value.kindDescription)")
    }
  }
}

/// Why an item could not be decoded (the caller adds the file and line).
public struct ItemDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}
