import Foundation

/// A plain-text note: `.txt` files, and files no other importer claims whose content is text
/// (README, NEWS, INSTALL, README.Debian): UTF-8, or Latin-1 decoded. The title is the file
/// name (without `.txt`); the whole text is the text, with no front matter.
package enum PlainTextImporter: DocumentImporter {
  package static let extensions: Set<String> = ["txt"]

  package static func claims(prefix: [UInt8]) -> Bool { TextDecoding.looksLikeText(prefix) }

  package static func read(_ file: DocumentFile, with reader: inout ItemReader, _ body: ItemReader.Body) throws {
    try body(try item(file, with: &reader), 1, [])
  }

  static func item(_ file: DocumentFile, with reader: inout ItemReader) throws -> SearchableItem {
    let text = try NoteFields.text(of: file)
    var item = try NoteFields.item(file, frontMatter: [], with: &reader)
    let name = file.documentName
    let title = file.title(fromName: extensions.contains(file.pathExtension) ? (name as NSString).deletingPathExtension : name)
    NoteFields.finish(&item, file: file, title: title, text: Substring(text))
    return item
  }
}
