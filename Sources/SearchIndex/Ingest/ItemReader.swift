import Foundation

/// Reads items from the inputs `searchlight index` accepts: a JSON array, JSON Lines, `-` for
/// standard input, a corpus file (`{"id","title","text"}` lines), a Markdown or text note, an
/// extensionless text file, or a folder of any of these (walked recursively in name order).
/// Each file is read by one `DocumentImporter`, chosen by `DocumentImporters`.
///
/// Items are handed to `body` one at a time with the line they start on, so a million-line
/// file streams into one transaction without being held in memory.
package struct ItemReader {
  /// How to read JSON inputs.
  package enum Format: String, Sendable {
    /// Canonical items, or a corpus file when its first object has `text` and no `attributes`.
    case auto
    /// Canonical items only.
    case items
    /// `{"id","title","text"}` lines (test collections such as Cranfield).
    case corpus
  }

  /// Receives each item, the line it starts on, and the attributes an update sets to null.
  package typealias Body = (SearchableItem, _ line: Int?, _ removed: Set<String>) throws -> Void

  package var decoder: ItemDecoder
  package var format: Format
  /// Read items as merge updates (`index --update`): attributes set to `null` are handed to
  /// the body as `removed` instead of being rejected.
  package var isUpdate = false
  /// The domain for notes and corpus documents that name none.
  package var noteDomain: String
  /// Problems that did not stop a file (a front-matter key that was dropped), in the order
  /// found; the caller reports and clears them.
  package var warnings: [IngestError] = []

  package init(decoder: ItemDecoder, format: Format = .auto, noteDomain: String = "notes") {
    self.decoder = decoder
    self.format = format
    self.noteDomain = noteDomain
  }

  /// The longest line of JSON Lines (one item), in bytes: a longer one is an error naming its
  /// line, found after reading at most this much of it.
  package static let maximumLineBytes = LineReader.defaultMaximumLineLength
  /// The largest mailbox file, in bytes (it is read whole).
  package static let maximumMailboxBytes = 256 << 20
  /// The largest note (Markdown or text file), in bytes.
  package static let maximumNoteBytes = LineReader.defaultMaximumLineLength

  /// Reads every item at `path` (a file, a folder, or `-`), stopping at the first problem:
  /// a file no importer reads is an error here.
  package mutating func read(path: String, _ body: Body) throws {
    if path == "-" {
      try readStandardInput(body)
      return
    }
    for file in try files(at: path) { try read(file, body) }
  }

  /// Reads items from standard input: JSON Lines, a JSON array or pretty-printed items.
  package mutating func readStandardInput(_ body: Body) throws {
    try JSONItemsImporter.read(FileHandle.standardInput, name: "<stdin>", with: &self, body)
  }

  /// The files at `path`: the file itself, or every file a folder walk picks up (recursively,
  /// in name order, without hidden files and folders or files of formats no importer reads).
  package func files(at path: String) throws -> [DocumentFile] {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw IngestError(.missingInput, file: path, line: nil, message: "no such file or directory")
    }
    guard isDirectory.boolValue else { return [DocumentFile(path: path, identifier: (path as NSString).lastPathComponent)] }
    guard let enumerator = FileManager.default.enumerator(atPath: path) else {
      throw IngestError(.missingInput, file: path, line: nil, message: "cannot read the folder")
    }
    var files: [String] = []
    while let relative = enumerator.nextObject() as? String {
      let name = (relative as NSString).lastPathComponent
      if name.hasPrefix(".") { enumerator.skipDescendants(); continue }
      guard DocumentImporters.walkIncludes(name) else { continue }
      let full = (path as NSString).appendingPathComponent(relative)
      var isFolder: ObjCBool = false
      if FileManager.default.fileExists(atPath: full, isDirectory: &isFolder), !isFolder.boolValue { files.append(relative) }
    }
    return files.sorted().map { DocumentFile(path: (path as NSString).appendingPathComponent($0), identifier: $0) }
  }

  /// Reads one file with the importer its extension or content chooses; a file no importer
  /// reads is an `IngestError` naming why.
  package mutating func read(_ file: DocumentFile, _ body: Body) throws {
    switch try DocumentImporters.importer(for: file) {
    case .success(let importer): try importer.read(file, with: &self, body)
    case .failure(let refusal): throw IngestError(file: file.path, line: nil, message: refusal.message)
    }
  }

  /// A Markdown or text note (by its extension; anything else is read as plain text): front
  /// matter gives metadata, the first heading (or the file name) the title, the rest the
  /// text; the file's modification time is the default modification date.
  package mutating func readNote(_ path: String, identifier: String) throws -> SearchableItem {
    let file = DocumentFile(path: path, identifier: identifier)
    if MarkdownImporter.extensions.contains(file.pathExtension) { return try MarkdownImporter.item(file, with: &self) }
    return try PlainTextImporter.item(file, with: &self)
  }
}

extension Error {
  /// The message of a decoding error, or the error's description.
  var message: String {
    if let error = self as? ItemDecodingError { return error.message }
    return "\(self)"
  }
}
