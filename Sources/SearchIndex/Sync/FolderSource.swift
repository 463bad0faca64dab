import Foundation

/// A folder of Markdown and text notes as a source: one item per file (front matter gives
/// metadata), keyed by the file's path inside the folder; a file's version is its
/// modification time, size and a hash of its content.
public struct FolderSource: ItemSource {
  public let folder: String
  public let domain: String
  /// Versions from the last sync, so unchanged files are not read again.
  public var previousVersions: [String: String] = [:]

  public init(folder: String, domain: String = "notes") {
    self.folder = URL(fileURLWithPath: folder).standardizedFileURL.path
    self.domain = domain
  }

  public var name: String { "folder:\(folder)" }
  public var configuration: JSONValue { ["kind": "folder", "folder": .string(folder), "domain": .string(domain)] }

  static let extensions: Set<String> = ["md", "markdown", "txt"]

  /// Every note file, by path inside the folder, sorted.
  func files() throws -> [String] {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
      throw IngestError(.missingInput, file: folder, line: nil, message: "no such folder")
    }
    guard let enumerator = FileManager.default.enumerator(atPath: folder) else {
      throw IngestError(.missingInput, file: folder, line: nil, message: "cannot read the folder")
    }
    var files: [String] = []
    while let relative = enumerator.nextObject() as? String {
      let name = (relative as NSString).lastPathComponent
      if name.hasPrefix(".") { enumerator.skipDescendants(); continue }
      if Self.extensions.contains((relative as NSString).pathExtension.lowercased()) { files.append(relative) }
    }
    return files.sorted()
  }

  public func scan() throws -> [SourceRecord] {
    let domain = self.domain
    let folder = self.folder
    return try files().map { relative in
      let path = (folder as NSString).appendingPathComponent(relative)
      let attributes = try? FileManager.default.attributesOfItem(atPath: path)
      let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
      let size = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
      let stamp = "\(Int64((modified * 1_000_000).rounded()))-\(size)"
      var version: String
      if let previous = previousVersions[relative], previous.hasPrefix(stamp + "-") {
        version = previous
      } else {
        let data = FileManager.default.contents(atPath: path) ?? Data()
        version = stamp + "-" + String(Self.fnv1a(data), radix: 16)
      }
      return SourceRecord(key: relative, version: version) {
        var reader = ItemReader(decoder: ItemDecoder(catalog: AttributeCatalog(), defaultDomain: domain), noteDomain: domain)
        return try reader.readNote(path, identifier: relative)
      }
    }
  }

  /// FNV-1a, 64-bit: a fast content fingerprint for change detection (not for security).
  static func fnv1a(_ data: Data) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in data {
      hash ^= UInt64(byte)
      hash = hash &* 0x0000_0100_0000_01B3
    }
    return hash
  }

  // MARK: IndexDelegate

  public func reindexAll(into index: SearchIndex) throws {
    _ = try Synchronizer(index: index, source: self).sync(full: true)
  }

  public func reindex(identifiers: [String], into index: SearchIndex) throws {
    let wanted = Set(identifiers)
    let entries = try scan().compactMap { record -> JournalEntry? in
      let item = try record.load()
      return wanted.contains(item.uniqueIdentifier) ? .upsert(item, source: name, sourceKey: record.key, version: record.version) : nil
    }
    try index.stage(entries)
    try index.applyPendingWork()
  }

  public func searchableItems(forIdentifiers identifiers: [String], protectionClass: String?) throws -> [SearchableItem] {
    let wanted = Set(identifiers)
    var found: [SearchableItem] = []
    for record in try scan() {
      let item = try record.load()
      guard wanted.contains(item.uniqueIdentifier) else { continue }
      if let protection = item.protectionClass, protection != protectionClass { continue }
      found.append(item)
    }
    return found
  }
}
