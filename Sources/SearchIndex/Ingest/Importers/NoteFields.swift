import Foundation

/// What Markdown and plain-text notes share: reading and decoding the file, applying front
/// matter, and the file's own metadata (path, name, modification date).
enum NoteFields {
  /// The text of a note file: UTF-8, UTF-16 with a byte order mark, or Latin-1, without a
  /// leading byte order mark. Binary content is an error.
  static func text(of file: DocumentFile) throws -> String {
    try text(decoding: try file.contents(atMost: ItemReader.maximumNoteBytes, what: "note"), name: file.path)
  }

  /// The text of a note's bytes (see `text(of:)`); `name` names the note in errors.
  static func text(decoding data: Data, name: String) throws(IngestError) -> String {
    if data.count > ItemReader.maximumNoteBytes {
      throw IngestError(file: name, line: nil, message: "the note is larger than \(ItemReader.maximumNoteBytes) bytes")
    }
    guard var text = TextDecoding.decode(data) else {
      throw IngestError(file: name, line: nil, message: DocumentImporters.Refusal.binary.message)
    }
    if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
    return text
  }

  /// The bytes of a document file of at most `ItemReader.maximumNoteBytes`.
  static func bytes(of file: DocumentFile) throws -> [UInt8] {
    [UInt8](try file.contents(atMost: ItemReader.maximumNoteBytes, what: "file"))
  }

  /// A note item with its identifier, domain and content type, and the attributes and item
  /// fields its front matter gives. Keys that are not valid attribute names are normalised
  /// (`hide-toc` -> `hide_toc`) or, when nothing valid is left, dropped with a warning.
  static func item(
    _ file: DocumentFile, frontMatter entries: [FrontMatter.Entry], with reader: inout ItemReader
  ) throws -> SearchableItem {
    let path = file.path
    var item = SearchableItem(uniqueIdentifier: file.identifier)
    item.domainIdentifier = reader.decoder.defaultDomain ?? reader.noteDomain
    item.contentType = "note"
    var attributes = AttributeSet()
    for entry in entries {
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
        guard let scalar, let date = ISO8601.parse(scalar, defaultZone: reader.decoder.defaultZone) else {
          throw fail("'expirationDate' is not an ISO-8601 date")
        }
        item.expirationDate = date
        continue
      default: break
      }
      var name = StandardAttributes.resolveAlias(entry.key) ?? entry.key
      if reader.decoder.catalog.type(of: name) == nil, (try? AttributeCatalog.validateCustomName(name)) == nil {
        guard let normalised = attributeName(normalising: name) else {
          reader.warnings.append(fail("front-matter key '\(entry.key)' is not a valid attribute name; dropped"))
          continue
        }
        name = normalised
      }
      let json = frontMatterJSON(entry.value, type: reader.decoder.catalog.type(of: name))
      do {
        if let (resolved, value) = try reader.decoder.decodeAttribute(name, json, allowNulls: false) { attributes[resolved] = value }
      } catch {
        throw fail(error.message)
      }
    }
    item.attributeSet = attributes
    return item
  }

  /// A valid custom attribute name made from a front-matter key: each run of characters other
  /// than ASCII letters, digits and `_` becomes one `_` (letters lose their accents first),
  /// and a leading digit gets a `_` before it. Nil when nothing valid is left (no letter or
  /// digit, the reserved `kMD` prefix, more than 128 bytes).
  static func attributeName(normalising key: String) -> String? {
    let folded = key.folding(options: [.diacriticInsensitive], locale: nil)
    var name = ""
    var pendingSeparator = false
    for scalar in folded.unicodeScalars {
      if scalar.isASCII, scalar == "_" || CharacterSet.alphanumerics.contains(scalar) {
        if pendingSeparator, !name.isEmpty { name.append("_") }
        pendingSeparator = false
        name.unicodeScalars.append(scalar)
      } else {
        pendingSeparator = true
      }
    }
    if name.first?.isNumber == true { name = "_" + name }
    guard name.contains(where: { $0.isLetter || $0.isNumber }), (try? AttributeCatalog.validateCustomName(name)) != nil else {
      return nil
    }
    return name
  }

  /// Sets the title, the text and the file's metadata where the note did not: `contentURL`
  /// (the file's URL), `displayName` (its name), `fileSize` (bytes) and
  /// `contentModificationDate` (its modification time, in whole seconds).
  static func finish(_ item: inout SearchableItem, file: DocumentFile, title: String, text: Substring) {
    finish(&item, title: title, text: text)
    var attributes = item.attributeSet
    let status = FileStatus(path: file.path)
    if attributes["contentModificationDate"] == nil, let modified = status?.modificationInterval {
      attributes["contentModificationDate"] = .date(Date(timeIntervalSince1970: modified.rounded(.down)))
    }
    if attributes["displayName"] == nil { attributes["displayName"] = .string(file.name) }
    if attributes["fileSize"] == nil, let size = status?.size {
      attributes["fileSize"] = .number(Double(size))
    }
    if attributes["contentURL"] == nil {
      attributes["contentURL"] = .url(URL(fileURLWithPath: file.path).standardizedFileURL.absoluteString)
    }
    item.attributeSet = attributes
  }

  /// Sets the title and the text where the note did not: what a note has without a file.
  static func finish(_ item: inout SearchableItem, title: String, text: Substring) {
    var attributes = item.attributeSet
    if attributes["title"] == nil { attributes["title"] = .string(title) }
    let content = text.trimming(" \t\r\n")
    if !content.isEmpty, attributes["textContent"] == nil { attributes["textContent"] = .string(content) }
    item.attributeSet = attributes
  }

  /// Front-matter text converted to JSON by the attribute's type (or by its look, for a new
  /// custom attribute), so `title: 2026` stays text and `rating: 4` becomes a number.
  private static func frontMatterJSON(_ value: FrontMatter.Value, type: AttributeType?) -> JSONValue {
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
