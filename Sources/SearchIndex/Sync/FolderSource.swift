import Foundation

/// A folder of documents as a source, read as `searchlight index` reads one (every
/// `DocumentImporter`): one item per document (an mbox gives one per message), keyed by the
/// file's path inside the folder; a file's version is its modification time, size and a hash
/// of its content.
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

  /// Every file a folder walk of `index` picks up, by path inside the folder, sorted.
  func files() throws -> [DocumentFile] {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
      throw IngestError(.missingInput, file: folder, line: nil, message: "no such folder")
    }
    return try reader().files(at: folder)
  }

  private func reader() -> ItemReader {
    ItemReader(decoder: ItemDecoder(catalog: AttributeCatalog(), defaultDomain: domain), noteDomain: domain)
  }

  /// The items of one file, read as `index` reads it (every importer).
  static func items(of file: DocumentFile, with reader: ItemReader) throws -> [SearchableItem] {
    var reader = reader
    var items: [SearchableItem] = []
    try reader.read(file) { item, _, _ in items.append(item) }
    return items
  }

  /// One record per item, keyed as `index` and `sync` record a folder (`FolderFiles`): the
  /// file's path inside the folder, with `"\n"` and the item's number for the second and later
  /// items of a file (an mbox). A file whose modification time and size are as recorded is
  /// not read unless a record is loaded.
  public func scan() throws -> [SourceRecord] {
    let reader = self.reader()
    var previousKeys: [String: [String]] = [:]
    for key in previousVersions.keys.sorted() {
      let file = key.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? key
      previousKeys[file, default: []].append(key)
    }
    var records: [SourceRecord] = []
    for file in try files() {
      let stamp = FolderFiles.stamp(file.path)
      if let previous = previousVersions[file.identifier], previous.hasPrefix(stamp + "-") {
        for (number, key) in (previousKeys[file.identifier] ?? []).enumerated() {
          records.append(SourceRecord(key: key, version: previous) {
            let items = try Self.items(of: file, with: reader)
            guard number < items.count else {
              throw IngestError(file: file.path, line: nil, message: "the file changed while it was synced")
            }
            return items[number]
          })
        }
        continue
      }
      let version = stamp + "-" + FolderFiles.hash(file.path)
      let items: [SearchableItem]
      do { items = try Self.items(of: file, with: reader) } catch is IngestError {
        continue  // not a document, or one that does not parse: skipped, as `index` skips it
      }
      for (number, item) in items.enumerated() {
        records.append(SourceRecord(key: IndexWriter.deliveredKey(file.identifier, number: number), version: version) { item })
      }
    }
    return records
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
