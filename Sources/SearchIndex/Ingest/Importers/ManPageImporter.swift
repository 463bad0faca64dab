import Foundation

/// A manual page: troff with the `man` or BSD `mdoc` macros (`tar.1.gz`, `ssh.1.gz`,
/// `.man` files), read as `man` shows it (`ManPage`). The title is the page's name from its
/// NAME section (`tar`), the description what that section says it does ("an archiving
/// utility"), the other names it gives `alternateNames`; the text is the rendered page. A page
/// that only includes another (`.so man1/gzip.1`, how Debian ships `gunzip.1.gz`) is an alias
/// and gives no item.
package enum ManPageImporter: DocumentImporter {
  package static let extensions: Set<String> = ["man"]

  /// Pages are named by their section (`.1`, `.3pm`, `.8`): chosen by their first request.
  package static func claims(prefix: [UInt8]) -> Bool { ManPage.looksLikeManPage(prefix) }

  package static func read(_ file: DocumentFile, with reader: inout ItemReader, _ body: ItemReader.Body) throws {
    let page = ManPage.parse(try NoteFields.text(of: file))
    guard page.includes == nil else { return }
    var item = try NoteFields.item(file, frontMatter: [], with: &reader)
    item.contentType = "document"
    var attributes = item.attributeSet
    if let summary = page.summary, !summary.isEmpty { attributes["contentDescription"] = .string(summary) }
    if page.names.count > 1 { attributes["alternateNames"] = .list(page.names.dropFirst().map(AttributeValue.string)) }
    item.attributeSet = attributes
    let title = page.names.first ?? page.headerName ?? file.title(fromName: (file.documentName as NSString).deletingPathExtension)
    NoteFields.finish(&item, file: file, title: title, text: Substring(page.text))
    try body(item, 1, [])
  }
}
