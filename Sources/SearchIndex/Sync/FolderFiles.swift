import Foundation

/// The files of one folder given to `index` or `sync`, compared with what the folder delivered
/// last: which files must be read, which are unchanged, and which were deleted.
///
/// What a folder delivered is kept in `source_state` under the folder's source name
/// (`folder:/absolute/path`, the name `FolderSource` uses), one row per item: the key is the
/// file's path inside the folder (with `"\n"` and the item's number for the second and later
/// items of a file, such as the messages of an mbox; a file that gave no item has one row with
/// the empty identifier), the version is the file's
/// `modification-size-hash` (`FolderFiles.version`). A file whose modification time and size
/// are as recorded is not read; one whose time or size changed is hashed, and read only when
/// its content changed. Items of a file no longer in the folder are deleted, unless another
/// file or source delivered the same identifier meanwhile: items from elsewhere are never
/// touched.
package struct FolderFiles {
  /// What one file delivered: its version and the identifiers of its items.
  package struct Delivered: Sendable, Hashable {
    package var version: String
    package var identifiers: [String]
  }

  /// The folder, absolute and standardised.
  package let root: String
  /// The files to read (new, changed, or every file with `rereadAll`), in walk order.
  package private(set) var changed: [DocumentFile] = []
  /// Files left unread because they are as recorded.
  package private(set) var unchangedFiles = 0
  /// Items of the unchanged files.
  package private(set) var unchangedItems = 0
  /// What the folder delivered before this run, by path inside the folder.
  package private(set) var previous: [String: Delivered]
  /// Versions of files to record without reading them (touched, same content).
  private var touched: [String: String] = [:]
  /// Versions of the files to read, by path inside the folder.
  private var versions: [String: String] = [:]
  /// Paths inside the folder of every file the walk found.
  private let present: Set<String>

  /// The source name of a folder in `source_state` and `sources`.
  package static func sourceName(root: String) -> String { "folder:" + standardised(root) }
  package var sourceName: String { Self.sourceName(root: root) }

  static func standardised(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }

  /// Compares `files` (a walk of `root`, identifiers relative to it) with what the index
  /// recorded for the folder.
  package init(root: String, files: [DocumentFile], writer: IndexWriter, rereadAll: Bool = false) throws {
    self.root = Self.standardised(root)
    self.previous = try writer.delivered(source: Self.sourceName(root: root))
    self.present = Set(files.map(\.identifier))
    for file in files {
      let stamp = Self.stamp(file.path)
      let known = previous[file.identifier]
      if !rereadAll, let known, known.version.hasPrefix(stamp + "-") {
        unchangedFiles += 1
        unchangedItems += known.identifiers.count
        continue
      }
      let version = stamp + "-" + Self.hash(file.path)
      if !rereadAll, let known, known.version == version || Self.sameContent(known.version, version) {
        // Touched, or copied back: the same bytes; only the recorded version moves.
        touched[file.identifier] = version
        unchangedFiles += 1
        unchangedItems += known.identifiers.count
        continue
      }
      versions[file.identifier] = version
      changed.append(file)
    }
  }

  /// The modification time (microseconds) and size of a file, as `FolderSource` records them.
  static func stamp(_ path: String) -> String {
    let status = FileStatus(path: path)
    let modified = status?.modificationInterval ?? 0
    return "\(Int64((modified * 1_000_000).rounded()))-\(status?.size ?? 0)"
  }

  /// The content hash of a file (FNV-1a, as `FolderSource`), read in chunks.
  static func hash(_ path: String) -> String {
    guard let handle = FileHandle(forReadingAtPath: path) else { return "unreadable" }
    defer { try? handle.close() }
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
      chunk.withUnsafeBytes { bytes in
        for byte in bytes {
          hash ^= UInt64(byte)
          hash = hash &* 0x0000_0100_0000_01B3
        }
      }
    }
    return String(hash, radix: 16)
  }

  /// Whether two versions have the same size and hash (the modification time aside).
  private static func sameContent(_ a: String, _ b: String) -> Bool {
    let x = a.split(separator: "-", maxSplits: 1)
    let y = b.split(separator: "-", maxSplits: 1)
    return x.count == 2 && y.count == 2 && x[1] == y[1]
  }

  /// Records what `file` delivered after its items were written (in the same transaction), and
  /// deletes the items it delivered before and no longer does. Returns the deleted items that
  /// a caller without grants may see (a hidden item leaves no trace in a summary).
  package mutating func recordRead(_ file: DocumentFile, identifiers: [String], writer: inout IndexWriter, now: Date) throws -> [String] {
    let version = versions[file.identifier] ?? (Self.stamp(file.path) + "-" + Self.hash(file.path))
    // A file read without error that gave no item (a manual page that only includes another,
    // an empty file) is recorded under the empty identifier, which no item has, so that the
    // next run does not read it again.
    try writer.recordDelivered(source: sourceName, key: file.identifier, version: version, identifiers: identifiers.isEmpty ? [""] : identifiers)
    let delivered = Set(identifiers)  // a mailbox delivers thousands
    let gone = (previous[file.identifier]?.identifiers ?? []).filter { !delivered.contains($0) }
    previous[file.identifier] = Delivered(version: version, identifiers: identifiers)
    return try writer.deleteUndelivered(gone, now: now)
  }

  /// Records the versions of touched files and deletes the items of files no longer in the
  /// folder (and their records). Returns the deleted items a caller without grants may see.
  package mutating func finish(writer: inout IndexWriter, now: Date) throws -> [String] {
    for (key, version) in touched.sorted(by: { $0.key < $1.key }) {
      guard let known = previous[key] else { continue }
      try writer.recordDelivered(source: sourceName, key: key, version: version, identifiers: known.identifiers)
    }
    touched = [:]
    var gone: [String] = []
    for (key, known) in previous.sorted(by: { $0.key < $1.key }) where !present.contains(key) {
      try writer.recordDelivered(source: sourceName, key: key, version: "", identifiers: [])
      previous[key] = nil
      gone += known.identifiers
    }
    // Once for every file that left: each call reads all of `source_state`.
    return try writer.deleteUndelivered(gone, now: now)
  }

  /// Every identifier the folder delivered, as recorded now.
  package var deliveredIdentifiers: Set<String> { Set(previous.values.flatMap(\.identifiers)) }
}

extension IndexWriter {
  /// The `source_state` key of the `number`th item (from 0) of the file `key`.
  static func deliveredKey(_ key: String, number: Int) -> String { number == 0 ? key : key + "\n" + String(number + 1) }

  /// What a folder source delivered, by file.
  package func delivered(source: String) throws -> [String: FolderFiles.Delivered] {
    var files: [String: FolderFiles.Delivered] = [:]
    let rows = try db.rows(
      "SELECT sourceKey, id, version FROM source_state WHERE indexId = ? AND source = ? ORDER BY sourceKey",
      [.integer(indexID), .text(source)]) { ($0.string(0) ?? "", $0.string(1) ?? "", $0.string(2) ?? "") }
    for (key, id, version) in rows {
      let parts = key.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
      let file = String(parts[0])
      let number = parts.count == 2 ? Int(parts[1]) ?? 1 : 0
      // Changed in place: a copy taken out and put back copied a mailbox's identifiers once
      // per message. The empty identifier records a file that gave no item.
      let empty = FolderFiles.Delivered(version: version, identifiers: [])
      if id.isEmpty { files[file] = files[file] ?? empty } else { files[file, default: empty].identifiers.append(id) }
      if number == 0 { files[file]?.version = version }
    }
    // Keys sort as text ("a\n10" before "a\n2"); the order of a file's items does not matter.
    return files
  }

  /// Deletes the rows of one file (index, source, key, key + "\u{B}", key, key + "\n"): the
  /// range [key, key + "\u{B}") lets the primary key find them (an OR of the two conditions
  /// alone made SQLite read every row of the folder, once per file); the condition inside it
  /// leaves other files whose names continue with a control character before "\n".
  static let deliveredRowsDeletion = """
    DELETE FROM source_state WHERE indexId = ? AND source = ? AND sourceKey >= ? AND sourceKey < ?
      AND (sourceKey = ? OR sourceKey > ?)
    """

  /// Replaces the records of file `key` of `source` with one per identifier (none removes
  /// them).
  package mutating func recordDelivered(source: String, key: String, version: String, identifiers: [String]) throws {
    try db.run(Self.deliveredRowsDeletion, [.integer(indexID), .text(source), .text(key), .text(key + "\u{B}"), .text(key), .text(key + "\n")])
    for (number, id) in identifiers.enumerated() {
      try db.run("INSERT OR REPLACE INTO source_state(indexId, source, sourceKey, id, version) VALUES (?, ?, ?, ?, ?)",
                 [.integer(indexID), .text(source), .text(Self.deliveredKey(key, number: number)), .text(id), .text(version)])
    }
  }

  /// Identifiers of stored items in `domain` (and its sub-domains), for full reconciliation.
  package func identifiers(inDomain domain: String) throws -> Set<String> {
    Set(try db.rows(
      "SELECT id FROM items WHERE indexId = ? AND (domain = ? OR (domain >= ? AND domain < ?))",
      [.integer(indexID), .text(domain), .text(domain + "."), .text(domain + "/")]) { $0.string(0) ?? "" })
  }

  /// Deletes the items `identifiers` that no source records as delivered any more (another
  /// file or source may have delivered the same identifier); returns those of them that a
  /// caller without grants could see (not protected, not expired at `now`).
  package mutating func deleteUndelivered(_ identifiers: [String], now: Date) throws -> [String] {
    guard !identifiers.isEmpty else { return [] }
    // `source_state` has no index by item (it would double the table): one pass over the
    // index's rows, each tested against the identifiers, finds every claimed one at once,
    // where a count per identifier read them all once each (minutes for a folder of 20,000
    // files losing half of them).
    let claimed = Set(try db.rows(
      "SELECT DISTINCT id FROM source_state WHERE indexId = ? AND id IN (SELECT value FROM json_each(?))",
      [.integer(indexID), .text(JSONValue.array(identifiers.map(JSONValue.string)).compactText)]) { $0.string(0) ?? "" })
    var doomed: [String] = []
    var visible: [String] = []
    var seen = Set<String>()
    for id in identifiers where !claimed.contains(id) && seen.insert(id).inserted {
      let row = try db.rows(
        "SELECT protection, expiration FROM items WHERE indexId = ? AND id = ?", [.integer(indexID), .text(id)]
      ) { ($0.string(0), $0.isNull(1) ? nil : $0.double(1)) }.first
      guard let (protection, expiration) = row else { continue }
      doomed.append(id)
      if protection == nil, expiration.map({ $0 > now.timeIntervalSince1970 }) ?? true { visible.append(id) }
    }
    _ = try delete(identifiers: doomed)
    return visible
  }
}
