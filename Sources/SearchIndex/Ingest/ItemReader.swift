import Foundation

/// Reads items from the inputs `searchlight index` accepts: a JSON array, JSON Lines, `-` for
/// standard input, a corpus file (`{"id","title","text"}` lines), a Markdown or text note, or
/// a folder of any of these (walked recursively in name order).
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

  package init(decoder: ItemDecoder, format: Format = .auto, noteDomain: String = "notes") {
    self.decoder = decoder
    self.format = format
    self.noteDomain = noteDomain
  }

  static let noteExtensions: Set<String> = ["md", "markdown", "txt"]
  static let itemExtensions: Set<String> = ["json", "jsonl", "ndjson"]

  /// The longest line of JSON Lines (one item), in bytes: a longer one is an error naming its
  /// line, found after reading at most this much of it.
  package static let maximumLineBytes = LineReader.defaultMaximumLineLength
  /// The largest JSON array file, in bytes; larger collections belong in JSON Lines.
  package static let maximumArrayBytes = 256 << 20
  /// The largest note (Markdown or text file), in bytes.
  package static let maximumNoteBytes = LineReader.defaultMaximumLineLength

  /// Reads every item at `path` (a file, a folder, or `-`).
  package mutating func read(path: String, _ body: Body) throws {
    if path == "-" {
      try readLines(handle: FileHandle.standardInput, name: "<stdin>", body)
      return
    }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw IngestError(.missingInput, file: path, line: nil, message: "no such file or directory")
    }
    if isDirectory.boolValue {
      try readFolder(path, body)
    } else {
      try readFile(path, relativeName: (path as NSString).lastPathComponent, folderRoot: nil, body)
    }
  }

  private mutating func readFolder(_ root: String, _ body: Body) throws {
    guard let enumerator = FileManager.default.enumerator(atPath: root) else {
      throw IngestError(.missingInput, file: root, line: nil, message: "cannot read the folder")
    }
    var files: [String] = []
    while let relative = enumerator.nextObject() as? String {
      let name = (relative as NSString).lastPathComponent
      if name.hasPrefix(".") { enumerator.skipDescendants(); continue }
      let ext = (relative as NSString).pathExtension.lowercased()
      if Self.noteExtensions.contains(ext) || Self.itemExtensions.contains(ext) { files.append(relative) }
    }
    for relative in files.sorted() {
      try readFile((root as NSString).appendingPathComponent(relative), relativeName: relative, folderRoot: root, body)
    }
  }

  private mutating func readFile(
    _ path: String, relativeName: String, folderRoot: String?, _ body: Body
  ) throws {
    let ext = (path as NSString).pathExtension.lowercased()
    if Self.noteExtensions.contains(ext) {
      try body(try readNote(path, identifier: relativeName), 1, [])
      return
    }
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw IngestError(.missingInput, file: path, line: nil, message: "cannot open the file")
    }
    defer { try? handle.close() }
    // A JSON array starts with '['; anything else is read as JSON Lines.
    var probe = try handle.read(upToCount: 4096) ?? Data()
    let firstByte = probe.first(where: { ![0x20, 0x0A, 0x0D, 0x09, 0xEF, 0xBB, 0xBF].contains($0) })
    if firstByte == UInt8(ascii: "[") {
      // Read at most one byte past the limit, so an endless file ends too.
      while probe.count <= Self.maximumArrayBytes, let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
        probe.append(chunk)
      }
      guard probe.count <= Self.maximumArrayBytes else {
        throw IngestError(file: path, line: nil, message: "the JSON array is larger than \(Self.maximumArrayBytes) bytes; write the items as JSON Lines")
      }
      try readArray(Array(probe), name: path, body)
    } else {
      try handle.seek(toOffset: 0)
      try readLines(handle: handle, name: path, body)
    }
  }

  private mutating func readArray(_ bytes: [UInt8], name: String, _ body: Body) throws {
    var parser = JSONParser(bytes: bytes)
    let elements: [(value: JSONValue, line: Int)]
    do {
      elements = try parser.parseArrayElementsWithLines()
    } catch {
      throw IngestError(file: name, line: error.line, message: "malformed JSON: \(error.message) (column \(error.column))")
    }
    for (value, line) in elements {
      let (item, removed) = try decodeObject(value, file: name, line: line)
      try body(item, line, removed)
    }
  }

  private mutating func readLines(handle: FileHandle, name: String, _ body: Body) throws {
    var reader = LineReader(handle: handle, maximumLineLength: Self.maximumLineBytes)
    var lineNumber = 0
    while true {
      let next: [UInt8]?
      do { next = try reader.nextLine() } catch let error as LineReader.LineTooLong {
        throw IngestError(file: name, line: lineNumber + 1, message: "\(error); split the item's text or store it elsewhere")
      }
      guard let line = next else { break }
      lineNumber += 1
      if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
      var bytes = line
      if lineNumber == 1, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
      let value: JSONValue
      do {
        var parser = JSONParser(bytes: bytes)
        value = try parser.parseDocument()
      } catch {
        throw IngestError(file: name, line: lineNumber, message: "malformed JSON: \(error.message) (column \(error.column))")
      }
      let (item, removed) = try decodeObject(value, file: name, line: lineNumber)
      try body(item, lineNumber, removed)
    }
  }

  private mutating func decodeObject(_ value: JSONValue, file: String, line: Int) throws -> (SearchableItem, Set<String>) {
    do {
      if isCorpusDocument(value) { return (try corpusItem(value), []) }
      if isUpdate { return try decoder.decodeUpdate(value) }
      return (try decoder.decode(value), [])
    } catch {
      throw IngestError(file: file, line: line, message: error.message)
    }
  }

  private mutating func isCorpusDocument(_ value: JSONValue) -> Bool {
    switch format {
    case .items: return false
    case .corpus: return true
    case .auto:
      guard case .object(let object) = value else { return false }
      return object["attributes"] == nil && object["text"] != nil
    }
  }

  private mutating func corpusItem(_ value: JSONValue) throws(ItemDecodingError) -> SearchableItem {
    guard case .object(let object) = value else { throw ItemDecodingError("expected a document object") }
    for key in object.keys where !["id", "_id", "title", "text", "url"].contains(key) {
      throw ItemDecodingError("unknown corpus field '\(key)'; a corpus line has id, title and text")
    }
    let idValue = object["id"] ?? object["_id"]
    let id: String
    switch idValue {
    case .string(let s)?: id = s
    case .number(let n)?: id = JSONValue.format(number: n)
    default: throw ItemDecodingError("missing 'id'")
    }
    var attributes = AttributeSet()
    if case .string(let title)? = object["title"], !title.isEmpty { attributes["title"] = .string(title) }
    if case .string(let text)? = object["text"], !text.isEmpty { attributes["textContent"] = .string(text) }
    if case .string(let url)? = object["url"], !url.isEmpty { attributes["contentURL"] = .url(url) }
    return SearchableItem(
      uniqueIdentifier: id, domainIdentifier: decoder.defaultDomain ?? "corpus", contentType: "document",
      attributeSet: attributes)
  }

  /// A Markdown or text note: front matter gives metadata, the first `# heading` (or the file
  /// name) the title, the rest the text; the file's modification time is the default
  /// modification date.
  package mutating func readNote(_ path: String, identifier: String) throws -> SearchableItem {
    if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size > Self.maximumNoteBytes {
      throw IngestError(file: path, line: nil, message: "the note is larger than \(Self.maximumNoteBytes) bytes")
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw IngestError(.missingInput, file: path, line: nil, message: "cannot read the file")
    }
    guard let text = String(data: data, encoding: .utf8) else {
      throw IngestError(file: path, line: nil, message: "the note is not valid UTF-8")
    }
    let isMarkdown = (path as NSString).pathExtension.lowercased() != "txt"
    let front: FrontMatter
    do {
      front = isMarkdown ? try FrontMatter.parse(text) : FrontMatter(entries: [], body: Substring(text), lineCount: 0)
    } catch {
      throw IngestError(file: path, line: error.line, message: error.text)
    }
    var item = SearchableItem(uniqueIdentifier: identifier)
    item.domainIdentifier = decoder.defaultDomain ?? noteDomain
    item.contentType = "note"
    var attributes = AttributeSet()
    for entry in front.entries {
      let fail = { (message: String) in IngestError(file: path, line: entry.line, message: message) }
      let scalar: String? = if case .scalar(let s, _) = entry.value { s } else { nil }
      switch entry.key {
      case "id", "uniqueIdentifier":
        guard let scalar, !scalar.isEmpty else { throw fail("'id' must be a single value") }
        item.uniqueIdentifier = scalar
        continue
      case "domain", "domainIdentifier":
        guard let scalar else { throw fail("'domain' must be a single value") }
        do { try ItemDecoder.validateDomain(scalar) } catch { throw fail(error.message) }
        item.domainIdentifier = scalar
        continue
      case "contentType":
        guard let scalar else { throw fail("'contentType' must be a single value") }
        item.contentType = scalar
        continue
      case "protectionClass":
        guard let scalar else { throw fail("'protectionClass' must be a single value") }
        item.protectionClass = scalar
        continue
      case "expirationDate":
        guard let scalar, let date = ISO8601.parse(scalar, defaultZone: decoder.defaultZone) else {
          throw fail("'expirationDate' is not an ISO-8601 date")
        }
        item.expirationDate = date
        continue
      default: break
      }
      let name = StandardAttributes.resolveAlias(entry.key) ?? entry.key
      let json = frontMatterJSON(entry.value, type: decoder.catalog.type(of: name))
      do {
        if let (resolved, value) = try decoder.decodeAttribute(name, json, allowNulls: false) { attributes[resolved] = value }
      } catch {
        throw fail(error.message)
      }
    }
    var body = front.body
    if attributes["title"] == nil {
      if isMarkdown, let heading = body.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline).first(where: { !$0.trimming(" \t\r").isEmpty }),
        heading.hasPrefix("# ")
      {
        attributes["title"] = .string(heading.dropFirst(2).trimming(" \t\r#"))
        if let range = body.range(of: heading) { body = body[range.upperBound...] }
      } else {
        attributes["title"] = .string(((identifier as NSString).lastPathComponent as NSString).deletingPathExtension)
      }
    }
    let content = body.trimming(" \t\r\n")
    if !content.isEmpty, attributes["textContent"] == nil { attributes["textContent"] = .string(content) }
    let fileAttributes = try? FileManager.default.attributesOfItem(atPath: path)
    if attributes["contentModificationDate"] == nil, let modified = fileAttributes?[.modificationDate] as? Date {
      attributes["contentModificationDate"] = .date(Date(timeIntervalSince1970: modified.timeIntervalSince1970.rounded(.down)))
    }
    if attributes["displayName"] == nil { attributes["displayName"] = .string((path as NSString).lastPathComponent) }
    if attributes["contentURL"] == nil {
      attributes["contentURL"] = .url(URL(fileURLWithPath: path).standardizedFileURL.absoluteString)
    }
    item.attributeSet = attributes
    return item
  }

  /// Front-matter text converted to JSON by the attribute's type (or by its look, for a new
  /// custom attribute), so `title: 2026` stays text and `rating: 4` becomes a number.
  private func frontMatterJSON(_ value: FrontMatter.Value, type: AttributeType?) -> JSONValue {
    func scalar(_ text: String, quoted: Bool, _ kind: AttributeType.Scalar?) -> JSONValue {
      switch kind {
      case .string?, .url?, .date?: return .string(text)
      case .number?: return Double(text).map(JSONValue.number) ?? .string(text)
      case .bool?: return text == "true" ? .bool(true) : text == "false" ? .bool(false) : .string(text)
      case nil:
        if quoted { return .string(text) }
        if text == "true" { return .bool(true) }
        if text == "false" { return .bool(false) }
        if let number = Double(text), text.first.map({ $0.isNumber || $0 == "-" }) == true { return .number(number) }
        return .string(text)
      }
    }
    switch value {
    case .scalar(let text, let quoted): return scalar(text, quoted: quoted, type?.scalar)
    case .list(let elements): return .array(elements.map { scalar($0.0, quoted: $0.quoted, type?.scalar) })
    }
  }
}

extension Error {
  /// The message of a decoding error, or the error's description.
  var message: String {
    if let error = self as? ItemDecodingError { return error.message }
    return "\(self)"
  }
}
