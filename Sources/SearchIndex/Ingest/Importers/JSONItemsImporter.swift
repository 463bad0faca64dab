import Foundation

/// Items as JSON: a `.json` array of items, `.jsonl`/`.ndjson` lines (one item each), one
/// pretty-printed item or a stream of them (as `jq` writes), or a corpus file
/// (`{"id","title","text"}` lines). A file without a known extension is taken as
/// JSON when it starts like JSON items: `{`, or `[` followed by `{` or `]`.
package enum JSONItemsImporter: DocumentImporter {
  /// JSON Lines are read as a stream from the file, which a compressed file is not.
  package static let readsCompressedFiles = false
  package static let extensions: Set<String> = ["json", "jsonl", "ndjson"]

  package static func claims(prefix: [UInt8]) -> Bool {
    let significant = prefix.drop(while: isSpaceOrByteOrderMark)
    guard let first = significant.first else { return false }
    if first == UInt8(ascii: "{") { return true }
    guard first == UInt8(ascii: "[") else { return false }
    // A Markdown-style text may start with '[' too ("[![badge](...)]", "[section]").
    let next = significant.dropFirst().first(where: { !isSpaceOrByteOrderMark($0) })
    return next == nil || next == UInt8(ascii: "{") || next == UInt8(ascii: "]")
  }

  private static func isSpaceOrByteOrderMark(_ byte: UInt8) -> Bool {
    [0x20, 0x0A, 0x0D, 0x09, 0xEF, 0xBB, 0xBF].contains(byte)
  }

  package static func read(_ file: DocumentFile, with reader: inout ItemReader, _ body: ItemReader.Body) throws {
    let path = file.path
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw IngestError(.missingInput, file: path, line: nil, message: "cannot open the file")
    }
    defer { try? handle.close() }
    try read(handle, name: path, with: &reader, body)
  }

  /// Reads items from `handle` (a file from its start, or standard input) named `name` in
  /// messages. A JSON array starts with '['; an object whose first line does not close it is
  /// pretty-printed (one object, or a stream of them); anything else is read as JSON Lines.
  /// The probe that tells them apart is handed on, so a pipe is read once.
  static func read(_ handle: FileHandle, name: String, with reader: inout ItemReader, _ body: ItemReader.Body) throws {
    let probe = [UInt8](try handle.read(upToCount: 4096) ?? Data())
    let firstByte = probe.first(where: { !isSpaceOrByteOrderMark($0) })
    let isArray = firstByte == UInt8(ascii: "[")
    if isArray || (firstByte == UInt8(ascii: "{") && firstLineIsUnfinished(Data(probe))) {
      try readValues(handle: handle, prefix: probe, isArray: isArray, name: name, with: &reader, body)
    } else {
      try readLines(handle: handle, prefix: probe, name: name, with: &reader, body)
    }
  }

  /// True when the first line that is not blank (within `probe`) is JSON cut short at its
  /// end, as the `{` that opens a pretty-printed object is: an error anywhere else on the
  /// line is a malformed JSON Lines item, reported as such.
  private static func firstLineIsUnfinished(_ probe: Data) -> Bool {
    var lines = probe.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast()
    if var first = lines.first, first.starts(with: [0xEF, 0xBB, 0xBF]) {
      first.removeFirst(3)
      lines[lines.startIndex] = first
    }
    guard let line = lines.first(where: { !$0.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D } }) else { return false }
    var parser = JSONParser(bytes: Array(line))
    do {
      _ = try parser.parseDocument()
      return false
    } catch {
      return error.line == 1 && error.column == String(decoding: line, as: UTF8.self).count + 1
    }
  }

  /// Items of a JSON array (`isArray`) or of whitespace-separated JSON values, each at the line
  /// it starts on, read one at a time (`JSONValueStream`): an array of a million items is
  /// never held whole, nor its parsed values.
  private static func readValues(
    handle: FileHandle, prefix: [UInt8], isArray: Bool, name: String, with reader: inout ItemReader, _ body: ItemReader.Body
  ) throws {
    var values = JSONValueStream(handle: handle, isArray: isArray, maximumValueBytes: ItemReader.maximumLineBytes, prefix: prefix)
    while true {
      let next: (value: JSONValue, line: Int)?
      do {
        next = try values.next()
      } catch let error as JSONParser.SyntaxError {
        throw IngestError(file: name, line: error.line, message: "malformed JSON: \(error.message) (column \(error.column))")
      } catch let error as JSONValueStream.ValueTooLong {
        throw IngestError(file: name, line: error.line, message: "an item longer than \(error.limit) bytes; split the item's text or store it elsewhere")
      }
      guard let (value, line) = next else { return }
      let (item, removed) = try decodeObject(value, file: name, line: line, with: &reader)
      try body(item, line, removed)
    }
  }

  /// Reads JSON Lines from `prefix`, then `handle` (a file or standard input), named `name`
  /// in messages.
  static func readLines(handle: FileHandle, prefix: [UInt8], name: String, with reader: inout ItemReader, _ body: ItemReader.Body) throws {
    var lines = LineReader(handle: handle, maximumLineLength: ItemReader.maximumLineBytes, prefix: prefix)
    var lineNumber = 0
    while true {
      let next: [UInt8]?
      do { next = try lines.nextLine() } catch let error as LineReader.LineTooLong {
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
      let (item, removed) = try decodeObject(value, file: name, line: lineNumber, with: &reader)
      try body(item, lineNumber, removed)
    }
  }

  private static func decodeObject(
    _ value: JSONValue, file: String, line: Int, with reader: inout ItemReader
  ) throws -> (SearchableItem, Set<String>) {
    do {
      if isCorpusDocument(value, format: reader.format) { return (try corpusItem(value, domain: reader.decoder.defaultDomain), []) }
      if reader.isUpdate { return try reader.decoder.decodeUpdate(value) }
      return (try reader.decoder.decode(value), [])
    } catch {
      throw IngestError(file: file, line: line, message: error.message)
    }
  }

  private static func isCorpusDocument(_ value: JSONValue, format: ItemReader.Format) -> Bool {
    switch format {
    case .items: return false
    case .corpus: return true
    case .auto:
      guard case .object(let object) = value else { return false }
      return object["attributes"] == nil && object["text"] != nil
    }
  }

  private static func corpusItem(_ value: JSONValue, domain: String?) throws(ItemDecodingError) -> SearchableItem {
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
      uniqueIdentifier: id, domainIdentifier: domain ?? "corpus", contentType: "document",
      attributeSet: attributes)
  }
}
