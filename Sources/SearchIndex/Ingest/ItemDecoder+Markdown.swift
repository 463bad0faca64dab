import Foundation

extension ItemDecoder {
  /// Decodes a Markdown note held in memory into an item, as `searchlight index` reads a `.md`
  /// file.
  ///
  /// The bytes are UTF-8, UTF-16 with a byte order mark, or Latin-1; binary content and notes
  /// larger than the note limit are errors. Front matter gives metadata (`id`, `domain`,
  /// `contentType`, `protectionClass`, `expirationDate` and attributes, converted by their
  /// types), the first heading the title (else `identifier`'s last component without its
  /// extension), the rest `textContent`. The item's identifier is `identifier` unless the
  /// front matter names one; its domain is `defaultDomain`, else `notes`. Nothing comes from a
  /// file: no `contentURL`, `displayName` or modification date unless the front matter sets them.
  ///
  /// ```swift
  /// var decoder = ItemDecoder(catalog: try index.catalog())
  /// var warnings: [IngestError] = []
  /// let note = try decoder.decodeMarkdown(Data("---\nrating: 4\n---\n# Sourdough\nFeed daily.".utf8),
  ///                                       identifier: "recipes/sourdough.md", warnings: &warnings)
  /// try index.indexSearchableItems([note])
  /// ```
  ///
  /// - Parameters:
  ///   - identifier: the note's identifier, and its name in errors and warnings.
  ///   - warnings: receives problems that did not stop the note (a front-matter key that is
  ///     not a valid attribute name, dropped).
  public mutating func decodeMarkdown(
    _ data: Data, identifier: String, warnings: inout [IngestError]
  ) throws(IngestError) -> SearchableItem {
    let text = try NoteFields.text(decoding: data, name: identifier)
    var reader = ItemReader(decoder: self)
    defer {
      self = reader.decoder
      warnings += reader.warnings
    }
    do {
      var (item, title, body) = try MarkdownImporter.note(text, file: DocumentFile(path: identifier, identifier: identifier), with: &reader)
      NoteFields.finish(&item, title: title, text: body)
      return item
    } catch let error as IngestError {
      throw error
    } catch {
      throw IngestError(file: identifier, line: nil, message: error.message)
    }
  }
}
