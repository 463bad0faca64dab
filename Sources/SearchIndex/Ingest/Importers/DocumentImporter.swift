import Foundation

/// Turns one file into items: one small type per format, chosen by `DocumentImporters`.
///
/// Adding a format is one file with a type conforming to this protocol, plus its line in
/// `DocumentImporters.all`.
package protocol DocumentImporter: Sendable {
  /// Lowercased file extensions (without the dot) this importer reads.
  static var extensions: Set<String> { get }
  /// Whether this importer reads a file whose extension no importer claims, judged by its
  /// first bytes (at most `TextDecoding.sniffLength`).
  static func claims(prefix: [UInt8]) -> Bool
  /// Reads `file`, handing each item and the line it starts on to `body`. Problems that do
  /// not stop the file (a front-matter key dropped) go to `reader.warnings`.
  static func read(_ file: DocumentFile, with reader: inout ItemReader, _ body: ItemReader.Body) throws
  /// Whether this importer reads a gzip-compressed file (`DocumentFile.contents`); true
  /// unless it streams the file or hands its path to another program.
  static var readsCompressedFiles: Bool { get }
}

extension DocumentImporter {
  package static var readsCompressedFiles: Bool { true }
}

/// A file to import: where it is and the identifier a note made from it gets.
package struct DocumentFile: Sendable, Hashable {
  /// The path, as given or joined to the folder given; messages name the file by it.
  package var path: String
  /// The path inside the folder that was given (the file name for a file given by itself):
  /// the identifier of a note.
  package var identifier: String

  package init(path: String, identifier: String) {
    self.path = path
    self.identifier = identifier
  }

  /// The file name.
  package var name: String { (path as NSString).lastPathComponent }
  /// Whether the file is gzip-compressed (`.gz`): its content is the document inside, named
  /// `contentName`.
  package var isCompressed: Bool { (name as NSString).pathExtension.lowercased() == "gz" }
  /// The name of the document: the file name, less `.gz` for a compressed file
  /// (`README.md.gz` holds `README.md`).
  package var contentName: String { isCompressed ? (name as NSString).deletingPathExtension : name }
  /// The last part of the identifier, less `.gz` for a compressed file: what a title made from
  /// the file's name starts from.
  package var documentName: String {
    let last = (identifier as NSString).lastPathComponent
    return isCompressed && (last as NSString).pathExtension.lowercased() == "gz" ? (last as NSString).deletingPathExtension : last
  }
  /// A title made from the file's name `stem`: the stem itself, followed by the folder the file
  /// is in when the name says nothing of its subject (a package's `README`, `changelog.Debian`
  /// or `copyright`), so the documents of a folder of packages do not share a handful of
  /// titles. Only a folder inside the one given counts: a file given by itself, or at the top
  /// of the folder given, keeps its stem.
  package func title(fromName stem: String) -> String {
    let folder = ((identifier as NSString).deletingLastPathComponent as NSString).lastPathComponent
    let subject = stem.split(separator: ".", maxSplits: 1).first.map { $0.lowercased() } ?? ""
    guard !folder.isEmpty, Self.namesWithoutSubject.contains(subject) else { return stem }
    return "\(stem) (\(folder))"
  }

  /// File names (before their first dot, lowercased) that name a kind of document, not its
  /// subject: the files every project and every Debian package ships under the same names.
  static let namesWithoutSubject: Set<String> = [
    "readme", "changelog", "changes", "news", "history", "copyright", "copying", "license", "licence", "authors",
    "thanks", "todo", "install", "bugs", "faq", "contributing", "index", "notice",
  ]

  /// The lowercased extension of the document (`contentName`), empty when there is none.
  package var pathExtension: String { (contentName as NSString).pathExtension.lowercased() }

  /// The file's size in bytes, nil when it cannot be read.
  package var size: Int? {
    FileStatus(path: path).map { Int($0.size) }
  }

  /// The first `count` bytes of the document (decompressed from the file's first megabyte,
  /// for a compressed file).
  func prefix(_ count: Int) throws -> [UInt8] {
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw IngestError(.missingInput, file: path, line: nil, message: "cannot open the file")
    }
    defer { try? handle.close() }
    guard isCompressed else { return [UInt8](try handle.read(upToCount: count) ?? Data()) }
    let start = try handle.read(upToCount: 1 << 20) ?? Data()
    do {
      return try Gzip.decompress(start, limit: count, partialInput: true).bytes
    } catch {
      throw IngestError(file: path, line: nil, message: error.message)
    }
  }

  /// The document's bytes: the file's, decompressed for a compressed file; an error naming
  /// the document `what` ("note", "mailbox") when they are more than `limit` (checked on the
  /// file's size before reading it, and on the decompressed bytes).
  package func contents(atMost limit: Int, what: String) throws -> Data {
    let tooLarge = IngestError(file: path, line: nil, message: "the \(what) is larger than \(limit) bytes")
    if let size, size > limit { throw tooLarge }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw IngestError(.missingInput, file: path, line: nil, message: "cannot read the file")
    }
    guard isCompressed else { return data }
    let decompressed: [UInt8]
    do {
      decompressed = try Gzip.decompress(data, limit: limit + 1).bytes
    } catch {
      throw IngestError(file: path, line: nil, message: error.message)
    }
    if decompressed.count > limit { throw tooLarge }
    return Data(decompressed)
  }
}

/// The importers, and how one is chosen for a file.
package enum DocumentImporters {
  /// Every importer; the first whose extensions hold a file's extension reads it, else the
  /// first that claims the file's first bytes.
  package static let all: [any DocumentImporter.Type] = [
    JSONItemsImporter.self, MarkdownImporter.self, HTMLImporter.self, MailboxImporter.self, EmailImporter.self,
    PDFImporter.self, ManPageImporter.self, PlainTextImporter.self,
  ]

  /// Extensions of files a folder walk passes over without a word: formats no importer reads
  /// (images, archives, media, compiled code, office documents). Named
  /// explicitly, such a file is skipped with a warning.
  package static let ignoredExtensions: Set<String> = [
    "png", "jpg", "jpeg", "gif", "bmp", "ico", "icns", "webp", "tif", "tiff", "svg", "heic", "psd",
    "gz", "tgz", "bz2", "xz", "zst", "lz", "lzma", "zip", "tar", "7z", "rar", "deb", "rpm", "jar", "whl",
    "mp3", "mp4", "m4a", "wav", "ogg", "oga", "flac", "mov", "avi", "mkv", "webm",
    "o", "a", "so", "dylib", "dll", "exe", "class", "pyc", "wasm", "bin",
    "ttf", "otf", "woff", "woff2", "db", "sqlite", "sqlite3",
    "doc", "docx", "xls", "xlsx", "ppt", "pptx", "odt", "ods", "odp", "rtf",
  ]

  /// Why a file has no importer: a warning's text.
  package enum Refusal: Error, Sendable, Hashable {
    /// The extension is one no importer reads.
    case unsupportedExtension(String)
    /// The content is not text (a NUL byte or many control characters).
    case binary

    package var message: String {
      switch self {
      case .unsupportedExtension(let ext): "no importer reads '.\(ext)' files"
      case .binary: "binary file (not text); not indexed"
      }
    }
  }

  /// The importer for `file`: by extension, else by content. A compressed file (`.gz`) is
  /// judged by the document inside.
  package static func importer(for file: DocumentFile) throws -> Result<any DocumentImporter.Type, Refusal> {
    let ext = file.pathExtension
    let refusal = Refusal.unsupportedExtension(file.isCompressed ? (ext.isEmpty ? "gz" : "\(ext).gz") : ext)
    let chosen: any DocumentImporter.Type
    if !ext.isEmpty, let importer = all.first(where: { $0.extensions.contains(ext) }) {
      chosen = importer
    } else if ignoredExtensions.contains(ext) || (file.isCompressed && ext == "gz") {
      return .failure(refusal)
    } else {
      let prefix = try file.prefix(TextDecoding.sniffLength)
      guard let importer = all.first(where: { $0.claims(prefix: prefix) }) else { return .failure(.binary) }
      chosen = importer
    }
    guard !file.isCompressed || chosen.readsCompressedFiles else { return .failure(refusal) }
    return .success(chosen)
  }

  /// Whether a folder walk picks up a file with this name: not hidden, not of a format no
  /// importer reads (a compressed file: judged by the name inside, `README.md.gz`, and never
  /// a format read as a stream, `.json.gz`), and not one of SQLite's side files
  /// (`items.db-wal`, `-shm`, `-journal`: an index kept inside the folder it indexes).
  package static func walkIncludes(_ name: String) -> Bool {
    var ext = (name as NSString).pathExtension.lowercased()
    if ext == "gz" {
      ext = ((name as NSString).deletingPathExtension as NSString).pathExtension.lowercased()
      if ext == "gz" { return false }
      if let importer = all.first(where: { $0.extensions.contains(ext) }), !importer.readsCompressedFiles { return false }
    }
    if name.hasPrefix(".") || ignoredExtensions.contains(ext) { return false }
    let parts = ext.split(separator: "-", maxSplits: 1)
    if parts.count == 2, ignoredExtensions.contains(String(parts[0])), ["wal", "shm", "journal"].contains(parts[1]) { return false }
    return true
  }
}
