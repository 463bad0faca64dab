// The 176 standard attribute names of CSSearchableItemAttributeSet, in Apple's order, with the
// type each one always has. Custom attributes are any other valid name.
// Source: ../shared/reference/searchable-item-attributes.txt (Apple's attribute set).

/// Apple's standard attributes and their fixed types.
public enum StandardAttributes {
  /// Name and type of every standard attribute, in Apple's order.
  public static let all: [(name: String, type: AttributeType)] = [
    ("displayName", .string),
    ("alternateNames", .stringList),
    ("path", .string),
    ("contentURL", .url),
    ("thumbnailURL", .url),
    ("thumbnailData", .string),
    ("darkThumbnailURL", .url),
    ("relatedUniqueIdentifier", .string),
    ("weakRelatedUniqueIdentifier", .string),
    ("metadataModificationDate", .date),
    ("contentType", .string),
    ("contentTypeTree", .stringList),
    ("keywords", .stringList),
    ("title", .string),
    ("textContent", .string),
    ("version", .string),
    ("userCreated", .bool),
    ("userOwned", .bool),
    ("userCurated", .bool),
    ("rankingHint", .number),
    ("domainIdentifier", .string),
    ("supportsPhoneCall", .bool),
    ("supportsNavigation", .bool),
    ("containerTitle", .string),
    ("containerDisplayName", .string),
    ("containerIdentifier", .string),
    ("containerOrder", .number),
    ("subject", .string),
    ("theme", .string),
    ("contentDescription", .string),
    ("identifier", .string),
    ("audiences", .stringList),
    ("fileSize", .number),
    ("pageCount", .number),
    ("pageWidth", .number),
    ("pageHeight", .number),
    ("securityMethod", .string),
    ("creator", .string),
    ("encodingApplications", .stringList),
    ("kind", .string),
    ("fontNames", .stringList),
    ("dueDate", .date),
    ("completionDate", .date),
    ("startDate", .date),
    ("endDate", .date),
    ("importantDates", .dateList),
    ("allDay", .bool),
    ("accountIdentifier", .string),
    ("accountHandles", .stringList),
    ("mailboxIdentifiers", .stringList),
    ("authorNames", .stringList),
    ("recipientNames", .stringList),
    ("authorEmailAddresses", .stringList),
    ("recipientEmailAddresses", .stringList),
    ("authorAddresses", .stringList),
    ("recipientAddresses", .stringList),
    ("phoneNumbers", .stringList),
    ("emailAddresses", .stringList),
    ("instantMessageAddresses", .stringList),
    ("likelyJunk", .bool),
    ("editors", .stringList),
    ("participants", .stringList),
    ("projects", .stringList),
    ("contentSources", .stringList),
    ("comment", .string),
    ("copyright", .string),
    ("lastUsedDate", .date),
    ("contentCreationDate", .date),
    ("contentModificationDate", .date),
    ("addedDate", .date),
    ("downloadedDate", .date),
    ("duration", .number),
    ("contactKeywords", .stringList),
    ("codecs", .stringList),
    ("mediaTypes", .stringList),
    ("streamable", .bool),
    ("totalBitRate", .number),
    ("videoBitRate", .number),
    ("audioBitRate", .number),
    ("deliveryType", .number),
    ("organizations", .stringList),
    ("role", .string),
    ("languages", .stringList),
    ("rights", .string),
    ("publishers", .stringList),
    ("contributors", .stringList),
    ("coverage", .string),
    ("rating", .number),
    ("ratingDescription", .string),
    ("playCount", .number),
    ("information", .string),
    ("director", .string),
    ("producer", .string),
    ("genre", .string),
    ("performers", .stringList),
    ("originalFormat", .string),
    ("originalSource", .string),
    ("local", .bool),
    ("contentRating", .number),
    ("url", .url),
    ("audioSampleRate", .number),
    ("audioChannelCount", .number),
    ("tempo", .number),
    ("keySignature", .string),
    ("timeSignature", .string),
    ("audioEncodingApplication", .string),
    ("composer", .string),
    ("lyricist", .string),
    ("album", .string),
    ("artist", .string),
    ("audioTrackNumber", .number),
    ("recordingDate", .date),
    ("musicalGenre", .string),
    ("generalMIDISequence", .bool),
    ("musicalInstrumentCategory", .string),
    ("musicalInstrumentName", .string),
    ("pixelHeight", .number),
    ("pixelWidth", .number),
    ("pixelCount", .number),
    ("colorSpace", .string),
    ("bitsPerSample", .number),
    ("flashOn", .bool),
    ("focalLength", .number),
    ("focalLength35mmEquivalent", .number),
    ("acquisitionMake", .string),
    ("acquisitionModel", .string),
    ("cameraOwner", .string),
    ("lensModel", .string),
    ("isoSpeed", .number),
    ("orientation", .number),
    ("layerNames", .stringList),
    ("whiteBalance", .number),
    ("aperture", .number),
    ("profileName", .string),
    ("resolutionWidthDPI", .number),
    ("resolutionHeightDPI", .number),
    ("exposureMode", .number),
    ("exposureTime", .number),
    ("exifVersion", .string),
    ("exifGPSVersion", .string),
    ("hasAlphaChannel", .bool),
    ("redEyeOn", .bool),
    ("meteringMode", .number),
    ("maximumAperture", .number),
    ("fNumber", .number),
    ("exposureProgram", .number),
    ("exposureTimeString", .string),
    ("headline", .string),
    ("instructions", .string),
    ("thoroughfare", .string),
    ("subThoroughfare", .string),
    ("postalCode", .string),
    ("city", .string),
    ("stateOrProvince", .string),
    ("country", .string),
    ("fullyFormattedAddress", .string),
    ("altitude", .number),
    ("latitude", .number),
    ("longitude", .number),
    ("speed", .number),
    ("timestamp", .date),
    ("imageDirection", .number),
    ("namedLocation", .string),
    ("gpsTrack", .number),
    ("gpsStatus", .string),
    ("gpsMeasureMode", .string),
    ("gpsDilutionOfPrecision", .number),
    ("gpsMapDatum", .string),
    ("gpsDestinationLatitude", .number),
    ("gpsDestinationLongitude", .number),
    ("gpsDestinationBearing", .number),
    ("gpsDestinationDistance", .number),
    ("gpsProcessingMethod", .string),
    ("gpsAreaInformation", .string),
    ("gpsDateStamp", .date),
    ("gpsDifferential", .number),
  ]

  /// Type of each standard attribute by name.
  public static let types: [String: AttributeType] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0.type) })

  /// The standard attribute whose name is `bytes` (UTF-8): its name (the string of `all`,
  /// shared rather than made again) and its position in `all`; nil for any other name. For
  /// a decoder that meets names as bytes: a stored record's names are mostly standard.
  static func recognise(_ bytes: UnsafeRawBufferPointer) -> (name: String, tag: Int)? {
    let table = nameTable
    var slot = Int(truncatingIfNeeded: NameTable.hash(bytes)) & table.mask
    while true {
      let entry = table.slots[slot]
      guard entry >= 0 else { return nil }
      if table.names[entry].withUnsafeBytes({ NameTable.equal($0, bytes) }) { return (all[entry].name, entry) }
      slot = (slot + 1) & table.mask
    }
  }

  /// Open addressing over the names' bytes (FNV-1a), at most a quarter full.
  struct NameTable {
    var names: [[UInt8]]
    var slots: [Int]
    var mask: Int

    init(_ names: [String]) {
      self.names = names.map { Array($0.utf8) }
      var size = 16
      while size < names.count * 4 { size *= 2 }
      slots = Array(repeating: -1, count: size)
      mask = size - 1
      for (entry, name) in self.names.enumerated() {
        var slot = name.withUnsafeBytes { Int(truncatingIfNeeded: Self.hash($0)) } & mask
        while slots[slot] >= 0 { slot = (slot + 1) & mask }
        slots[slot] = entry
      }
    }

    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
      var hash: UInt64 = 0xcbf2_9ce4_8422_2325
      for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
      return hash
    }

    static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
      guard a.count == b.count else { return false }
      for i in 0..<a.count where a[i] != b[i] { return false }
      return true
    }
  }

  static let nameTable = NameTable(all.map(\.name))

  /// Attributes stored on the item itself rather than in its attribute set.
  public static let itemFields: Set<String> = ["domainIdentifier", "contentType"]

  /// `kMDItem...` spellings that do not follow the `kMDItem` + capitalised name rule.
  static let irregularAliases: [String: String] = [
    "kMDItemAuthors": "authorNames",
    "kMDItemRecipients": "recipientNames",
    "kMDItemStarRating": "rating",
    "kMDItemDurationSeconds": "duration",
    "kMDItemFSSize": "fileSize",
    "kMDItemLogicalSize": "fileSize",
    "kMDItemNumberOfPages": "pageCount",
    "kMDItemDescription": "contentDescription",
    "kMDItemFSName": "displayName",
    "kMDItemFSContentChangeDate": "contentModificationDate",
    "kMDItemFSCreationDate": "contentCreationDate",
    "kMDItemAuthorAddresses": "authorAddresses",
    "kMDItemEmailAddresses": "emailAddresses",
    "kMDItemPhoneNumbers": "phoneNumbers",
    "kMDItemAlbum": "album",
    "kMDItemMusicalGenre": "musicalGenre",
    "kMDItemWhereFroms": "contentSources",
    "kMDItemAttributeChangeDate": "metadataModificationDate",
    "kMDItemLastUsedDate": "lastUsedDate",
    "kMDItemDateAdded": "addedDate",
    "kMDItemDownloadedDate": "downloadedDate",
    "kMDItemTextContent": "textContent",
    "kMDItemTitle": "title",
  ]

  /// The short name that `name` stands for: `kMDItemTitle` -> `title`; nil when `name` is not
  /// a `kMDItem` alias of a standard attribute.
  public static func resolveAlias(_ name: String) -> String? {
    guard name.hasPrefix("kMDItem") else { return nil }
    if let irregular = irregularAliases[name] { return irregular }
    let rest = name.dropFirst("kMDItem".count)
    guard let first = rest.first else { return nil }
    let candidate = first.lowercased() + rest.dropFirst()
    if types[candidate] != nil { return candidate }
    // Acronym-led names: kMDItemURL -> url, kMDItemGPSTrack -> gpsTrack.
    let lowered = lowerLeadingAcronym(String(rest))
    return types[lowered] != nil ? lowered : nil
  }

  private static func lowerLeadingAcronym(_ s: String) -> String {
    let chars = Array(s)
    var end = 0
    while end < chars.count, chars[end].isUppercase { end += 1 }
    if end > 1, end < chars.count { end -= 1 }  // "GPSTrack": keep the T of Track upper-case
    return String(chars[..<end]).lowercased() + String(chars[end...])
  }
}
