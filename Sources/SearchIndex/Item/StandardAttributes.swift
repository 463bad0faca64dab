// The 176 standard attribute names of CSSearchableItemAttributeSet, in Apple's order, with the
// type each one always has. Custom attributes are any other valid name.
// Source: ../shared/reference/searchable-item-attributes.txt (Apple's attribute set).

import Foundation

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
    guard let entry = table.entry(bytes) else { return nil }
    return (table.strings[entry], entry)
  }

  /// Open addressing over the names' bytes, at most a quarter full. Every member of every
  /// record read is looked up here, so the table keeps its bytes, offsets and slots in
  /// memory it owns (no arrays to retain per lookup) and hashes eight bytes at a time.
  ///
  /// `@unchecked Sendable`: written only by `init`, read-only afterwards.
  final class NameTable: @unchecked Sendable {
    let strings: [String]
    private let bytes: UnsafeMutablePointer<UInt8>
    private let starts: UnsafeMutablePointer<Int>
    private let lengths: UnsafeMutablePointer<Int>
    private let slots: UnsafeMutablePointer<Int>
    private let mask: Int

    init(_ names: [String]) {
      strings = names
      let utf8 = names.map { Array($0.utf8) }
      bytes = .allocate(capacity: max(1, utf8.reduce(0) { $0 + $1.count }))
      starts = .allocate(capacity: max(1, names.count))
      lengths = .allocate(capacity: max(1, names.count))
      var at = 0
      for (entry, name) in utf8.enumerated() {
        (bytes + at).initialize(from: name, count: name.count)
        starts[entry] = at
        lengths[entry] = name.count
        at += name.count
      }
      var size = 16
      while size < names.count * 4 { size *= 2 }
      slots = .allocate(capacity: size)
      slots.initialize(repeating: -1, count: size)
      mask = size - 1
      for (entry, name) in utf8.enumerated() {
        var slot = name.withUnsafeBytes { Int(truncatingIfNeeded: Self.hash($0)) } & mask
        while slots[slot] >= 0 { slot = (slot + 1) & mask }
        slots[slot] = entry
      }
    }

    deinit {
      bytes.deallocate()
      starts.deallocate()
      lengths.deallocate()
      slots.deallocate()
    }

    /// The position of the name spelt by `name`, if it is one of the table's.
    func entry(_ name: UnsafeRawBufferPointer) -> Int? {
      var slot = Int(truncatingIfNeeded: Self.hash(name)) & mask
      while true {
        let entry = slots[slot]
        guard entry >= 0 else { return nil }
        if lengths[entry] == name.count, Self.equal(UnsafeRawBufferPointer(start: bytes + starts[entry], count: name.count), name) {
          return entry
        }
        slot = (slot + 1) & mask
      }
    }

    /// The length and the first and last eight bytes (byte by byte below eight), mixed.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
      let count = bytes.count
      var hash = UInt64(count) &* 0x9E37_79B9_7F4A_7C15
      if count >= 8 {
        hash = (hash ^ bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
        hash = (hash ^ bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)) &* 0xC4CE_B9FE_1A85_EC53
      } else {
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
      }
      return hash ^ (hash >> 29)
    }

    static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
      guard a.count == b.count else { return false }
      guard let left = a.baseAddress, let right = b.baseAddress else { return a.count == 0 }
      return memcmp(left, right, a.count) == 0
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
