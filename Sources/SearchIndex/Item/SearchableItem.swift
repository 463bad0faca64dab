import Foundation

/// An item an app donates to the index (CSSearchableItem): identity, domain, content type,
/// optional expiration and protection class, and a typed attribute set.
public struct SearchableItem: Sendable, Hashable, Identifiable {
  /// The app's identifier for the item, unique within an index.
  public var uniqueIdentifier: String
  /// The domain, dot-hierarchical: deleting `mail` deletes `mail.inbox`.
  public var domainIdentifier: String?
  /// A content type such as `note`, `email` or `public.text`.
  public var contentType: String?
  /// After this moment the item is never returned, and maintenance purges it.
  public var expirationDate: Date?
  /// The access group; items that carry one are visible only to callers granting it.
  public var protectionClass: String?
  /// The typed attributes.
  public var attributeSet: AttributeSet

  public var id: String { uniqueIdentifier }

  public init(
    uniqueIdentifier: String, domainIdentifier: String? = nil, contentType: String? = nil,
    expirationDate: Date? = nil, protectionClass: String? = nil, attributeSet: AttributeSet = AttributeSet()
  ) {
    self.uniqueIdentifier = uniqueIdentifier
    self.domainIdentifier = domainIdentifier
    self.contentType = contentType
    self.expirationDate = expirationDate
    self.protectionClass = protectionClass
    self.attributeSet = attributeSet
  }

  /// The canonical JSON form of DESIGN §2.
  public var jsonObject: JSONObject {
    var object = JSONObject()
    object["id"] = .string(uniqueIdentifier)
    if let domainIdentifier { object["domain"] = .string(domainIdentifier) }
    if let contentType { object["contentType"] = .string(contentType) }
    if let expirationDate { object["expirationDate"] = .string(ISO8601.format(expirationDate)) }
    if let protectionClass { object["protectionClass"] = .string(protectionClass) }
    object["attributes"] = .object(attributeSet.jsonObject)
    return object
  }
}
