import Foundation

/// An HTML page (`.html`, `.htm`, `.xhtml`, or a file that starts with `<!DOCTYPE html` or
/// `<html`, after an XML declaration or comments), read with libxml2's HTML parser (`HTMLDocument`): the title is `<title>`, else
/// the first heading, else the file name; the text is the visible text only; `<meta>` gives
/// `authorNames`, `contentDescription` and `keywords`, and `<html lang>` gives `languages`.
/// The encoding is the one the page declares, else UTF-8, else Latin-1.
package enum HTMLImporter: DocumentImporter {
  package static let extensions: Set<String> = ["html", "htm", "xhtml"]

  package static func claims(prefix: [UInt8]) -> Bool {
    var bytes = prefix[...]
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
    // An XML declaration (XHTML) and comments may come first.
    for _ in 0..<8 {
      bytes = bytes.drop(while: { [0x20, 0x09, 0x0A, 0x0D, 0x0C].contains($0) })
      let end: [UInt8]
      if bytes.starts(with: Array("<?xml".utf8)) { end = Array("?>".utf8) } else if bytes.starts(with: Array("<!--".utf8)) { end = Array("-->".utf8) } else { break }
      guard let close = bytes.firstRange(of: end) else { return false }
      bytes = bytes[close.upperBound...]
    }
    let start = String(decoding: bytes.prefix(14), as: UTF8.self).lowercased()
    return start.hasPrefix("<!doctype html") || start.hasPrefix("<html")
  }

  package static func read(_ file: DocumentFile, with reader: inout ItemReader, _ body: ItemReader.Body) throws {
    try body(try item(file, with: &reader), 1, [])
  }

  static func item(_ file: DocumentFile, with reader: inout ItemReader) throws -> SearchableItem {
    let bytes = try NoteFields.bytes(of: file)
    let page = HTMLDocument.parse(bytes)
    var item = try NoteFields.item(file, frontMatter: [], with: &reader)
    item.contentType = "document"
    var attributes = item.attributeSet
    if !page.authors.isEmpty { attributes["authorNames"] = .list(page.authors.map(AttributeValue.string)) }
    if let description = page.description { attributes["contentDescription"] = .string(description) }
    if !page.keywords.isEmpty { attributes["keywords"] = .list(page.keywords.map(AttributeValue.string)) }
    if let language = page.language { attributes["languages"] = .list([.string(language)]) }
    item.attributeSet = attributes
    let name = file.documentName
    NoteFields.finish(&item, file: file, title: page.title ?? file.title(fromName: name), text: Substring(page.text))
    return item
  }
}
