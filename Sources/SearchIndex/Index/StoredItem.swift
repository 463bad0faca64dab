import Foundation

/// Rebuilds `SearchableItem`s from rows of the `items` table.
package enum StoredItem {
  /// The columns `decode` expects, in order, for a table aliased `alias`.
  package static func columns(_ alias: String) -> String {
    "\(alias).id, \(alias).domain, \(alias).contentType, \(alias).expiration, \(alias).protection, \(alias).attributes"
  }

  /// Decodes the six `columns` starting at `offset`. `lazily` leaves the attributes'
  /// record undecoded until one of them is read (`StoredRecord`): for the executor, whose
  /// items are often counted, paged or dropped by a later stage before anyone reads them.
  package static func decode(
    row: Statement, offset: Int, catalog: AttributeCatalog, only names: Set<String>? = nil, lazily: Bool = false
  ) throws -> SearchableItem {
    var item = SearchableItem(uniqueIdentifier: row.string(offset) ?? "")
    item.domainIdentifier = row.string(offset + 1)
    item.contentType = row.string(offset + 2)
    if !row.isNull(offset + 3) { item.expirationDate = Date(timeIntervalSince1970: row.double(offset + 3)) }
    item.protectionClass = row.string(offset + 4)
    if names?.isEmpty != true {
      if lazily {
        // A record that does not decompress reads, like one that does not parse, as an item
        // without attributes (`check` names it); one damaged item does not fail a query.
        let record = (try? row.record(offset + 5)) ?? Array("{}".utf8)
        item.attributeSet = AttributeSet(undecoded: StoredRecord(bytes: record, catalog: catalog, only: names))
      } else {
        item.attributeSet = try decodeAttributes(bytes: try row.record(offset + 5), catalog: catalog, only: names)
      }
    }
    return item
  }

  /// Stored dates are UTC instants; made once, not per item.
  private static let utc = TimeZone(identifier: "UTC")!

  /// Decodes the canonical attribute JSON stored for an item; with `names`, only those
  /// attributes.
  package static func decodeAttributes(_ json: String, catalog: AttributeCatalog, only names: Set<String>? = nil) throws -> AttributeSet {
    try decodeAttributes(bytes: Array(json.utf8), catalog: catalog, only: names)
  }

  /// Decodes a record's UTF-8 bytes; with `names`, the other attributes' values are passed
  /// over unbuilt (a table of two columns reads two values of each record).
  package static func decodeAttributes(bytes: [UInt8], catalog: AttributeCatalog, only names: Set<String>? = nil) throws -> AttributeSet {
    var attributes = AttributeSet()
    // A standard member is kept by comparing its tag with those of the names wanted, not by
    // hashing its name (a partial read asks about every member of the record).
    let wantedTags = names.map { names in
      names.compactMap { name in Array(name.utf8).withUnsafeBytes { StandardAttributes.recognise($0)?.tag } }
    }
    func keep(_ name: String, _ tag: Int?) -> Bool {
      guard let names, let wantedTags else { return true }
      if let tag { return wantedTags.contains(tag) }
      return names.contains(name)
    }
    // Member by member, no object built; a standard name's type comes with its recognition.
    try JSONParser.forEachMember(bytes, recognise: StandardAttributes.recognise, keeping: keep) { name, tag, raw in
      let type = tag.map { StandardAttributes.all[$0].type } ?? catalog.type(of: name)
        ?? (try? ItemDecoder.inferType(raw, attribute: name, zone: Self.utc)) ?? .string
      // The members are unique (`forEachMember` rejects a repeated name).
      attributes.appendNew(name, try ItemDecoder.coerce(raw, to: type, attribute: name, zone: Self.utc))
    }
    return attributes
  }

  /// Decodes a whole item in canonical JSON (as the journal stores it).
  package static func decodeCanonical(_ json: String, catalog: AttributeCatalog) throws -> SearchableItem {
    var decoder = ItemDecoder(catalog: catalog)
    return try decoder.decode(try JSONParser.parse(json))
  }
}
