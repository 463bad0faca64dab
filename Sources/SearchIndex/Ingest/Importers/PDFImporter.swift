import Foundation

/// A PDF file (`.pdf`, or a file that starts with `%PDF-`), read by poppler's `pdftotext
/// -layout -enc UTF-8` when it is on `PATH` (Debian: `apt-get install poppler-utils`): the
/// title is the document's Title (from `pdfinfo`), else the first line of text, else the file
/// name; Author gives `authorNames` and Pages `pageCount`. Without `pdftotext` the file is
/// skipped with a warning naming poppler-utils. Each tool runs at most `timeout` seconds and
/// its output is cut at `ItemReader.maximumNoteBytes`.
package enum PDFImporter: DocumentImporter {
  /// pdftotext reads the file itself.
  package static let readsCompressedFiles = false
  package static let extensions: Set<String> = ["pdf"]

  package static func claims(prefix: [UInt8]) -> Bool { prefix.starts(with: Array("%PDF-".utf8)) }

  /// How long `pdftotext` or `pdfinfo` may run on one file.
  static let timeout: TimeInterval = 60

  package static func read(_ file: DocumentFile, with reader: inout ItemReader, _ body: ItemReader.Body) throws {
    guard let pdftotext = ExternalTool.find("pdftotext") else {
      throw IngestError(file: file.path, line: nil, message: "pdftotext is not installed (install poppler-utils to index PDF files); not indexed")
    }
    guard FileManager.default.isReadableFile(atPath: file.path) else {
      throw IngestError(.missingInput, file: file.path, line: nil, message: "cannot read the file")
    }
    let limit = ItemReader.maximumNoteBytes
    let extracted: ExternalTool.Output
    do {
      extracted = try ExternalTool.run(pdftotext, ["-layout", "-enc", "UTF-8", file.path, "-"], timeout: timeout, outputLimit: limit)
    } catch {
      throw IngestError(file: file.path, line: nil, message: "pdftotext: \(error.message)")
    }
    guard extracted.status == 0 else {
      let reason = extracted.errorLine ?? "exit status \(extracted.status)"
      throw IngestError(file: file.path, line: nil, message: "pdftotext could not read the PDF: \(reason)")
    }
    if extracted.truncated {
      reader.warnings.append(IngestError(file: file.path, line: nil, message: "the text is longer than \(limit) bytes; the rest is not indexed"))
    }
    // Pages end with a form feed; trailing spaces pad -layout columns.
    let text = TextDecoding.utf8OrWindows1252(extracted.bytes)
      .split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\u{0C}" })
      .map { $0.trimming(" \t\r") }
      .joined(separator: "\n")
    let info = ExternalTool.find("pdfinfo").flatMap { documentInfo(file.path, tool: $0) } ?? [:]

    var item = try NoteFields.item(file, frontMatter: [], with: &reader)
    item.contentType = "document"
    var attributes = item.attributeSet
    if let author = info["Author"], !author.isEmpty { attributes["authorNames"] = .list([.string(author)]) }
    if let pages = info["Pages"].flatMap({ Double($0) }), pages > 0 { attributes["pageCount"] = .number(pages) }
    if let created = info["CreationDate"].flatMap({ ISO8601.parse($0) }) { attributes["contentCreationDate"] = .date(created) }
    item.attributeSet = attributes
    let firstLine = text.split(separator: "\n").lazy.map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
      .first(where: { !$0.isEmpty })
    let name = file.documentName
    let title = info["Title"].flatMap { $0.isEmpty ? nil : $0 } ?? firstLine.map { String($0.prefix(200)) } ?? file.title(fromName: name)
    NoteFields.finish(&item, file: file, title: title, text: Substring(text))
    try body(item, 1, [])
  }

  /// `pdfinfo -isodates -enc UTF-8` fields (Title, Author, Pages, CreationDate...), nil when
  /// it fails.
  static func documentInfo(_ path: String, tool: String) -> [String: String]? {
    guard let output = try? ExternalTool.run(tool, ["-isodates", "-enc", "UTF-8", path], timeout: timeout, outputLimit: 1 << 20),
      output.status == 0
    else { return nil }
    var info: [String: String] = [:]
    for line in TextDecoding.utf8OrWindows1252(output.bytes).split(separator: "\n") {
      guard let colon = line.firstIndex(of: ":") else { continue }
      let key = String(line[..<colon])
      if info[key] == nil { info[key] = line[line.index(after: colon)...].trimming(" \t\r") }
    }
    return info
  }
}
