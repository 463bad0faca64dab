import Foundation

/// A Markdown note: front matter gives metadata; the first heading (ATX `# Title`, or Setext
/// `Title` underlined with `===` or `---`) the title, with link syntax reduced to its text;
/// else the file name without its extension. The rest is the text.
package enum MarkdownImporter: DocumentImporter {
  package static let extensions: Set<String> = ["md", "markdown"]

  /// Markdown is chosen by extension only: an extensionless file is plain text.
  package static func claims(prefix: [UInt8]) -> Bool { false }

  package static func read(_ file: DocumentFile, with reader: inout ItemReader, _ body: ItemReader.Body) throws {
    try body(try item(file, with: &reader), 1, [])
  }

  static func item(_ file: DocumentFile, with reader: inout ItemReader) throws -> SearchableItem {
    let text = try NoteFields.text(of: file)
    var (item, title, body) = try note(text, file: file, with: &reader)
    NoteFields.finish(&item, file: file, title: title, text: body)
    return item
  }

  /// The item of a note's text before its title and text are set (front matter applied), the
  /// title (of the leading heading, else the file name without its extension) and the text.
  static func note(
    _ text: String, file: DocumentFile, with reader: inout ItemReader
  ) throws -> (item: SearchableItem, title: String, body: Substring) {
    let front: FrontMatter
    do { front = try FrontMatter.parse(text) } catch {
      throw IngestError(file: file.path, line: error.line, message: error.text)
    }
    let item = try NoteFields.item(file, frontMatter: front.entries, with: &reader)
    var body = front.body
    var title = file.title(fromName: (file.documentName as NSString).deletingPathExtension)
    if item.attributeSet["title"] == nil, let (heading, rest) = leadingHeading(body) {
      title = heading
      body = rest
    }
    return (item, title, body)
  }

  /// The title of the heading `text` starts with (after blank lines) and the text after it,
  /// or nil when the first line is not a level-1 ATX heading or a Setext heading.
  static func leadingHeading(_ text: Substring) -> (String, Substring)? {
    // Only the first lines matter: they are taken one at a time.
    var lines = TextLines(text, separatedBy: \.isNewline)
    var line = lines.next()
    while let blank = line, blank.trimming(" \t\r").isEmpty { line = lines.next() }
    guard let first = line else { return nil }
    if first.hasPrefix("# ") {
      let title = linkText(first.dropFirst(2).trimming(" \t\r#"))
      return title.isEmpty ? nil : (title, text[first.endIndex...])
    }
    // Setext: a paragraph line (not indented as code, not itself a marker) and then a line
    // of only '=' or only '-'.
    let indent = first.prefix(while: { $0 == " " })
    guard indent.count < 4, let second = lines.next() else { return nil }
    // Lines that open another block (a heading, list item, quote, table row or fence) are not
    // a Setext heading's text: "- item" then "---" is a list and a rule.
    let opening = first.dropFirst(indent.count)
    if opening.hasPrefix("#") || opening.hasPrefix(">") || opening.hasPrefix("|") || opening.hasPrefix("```")
      || opening.hasPrefix("~~~") || ["- ", "* ", "+ "].contains(where: { opening.hasPrefix($0) })
    {
      return nil
    }
    let underline = second.trimming(" \t\r")
    guard !underline.isEmpty, underline.allSatisfy({ $0 == "=" }) || underline.allSatisfy({ $0 == "-" }) else { return nil }
    let title = linkText(first.trimming(" \t\r"))
    guard !title.isEmpty, !title.allSatisfy({ $0 == "-" || $0 == "=" }) else { return nil }
    return (title, text[second.endIndex...])
  }

  /// Markdown link syntax reduced to what a reader sees: `[text](url)`, `[text][ref]` and
  /// `![alt](src)` become their text, `<https://...>` its address.
  static func linkText(_ title: String) -> String {
    var result = ""
    var rest = Substring(title)
    while let index = rest.firstIndex(where: { $0 == "[" || $0 == "<" }) {
      var before = rest[..<index]
      let isImage = before.last == "!" && rest[index] == "["
      if isImage { before = before.dropLast() }
      if rest[index] == "<" {
        let inner = rest[rest.index(after: index)...]
        if let close = inner.firstIndex(of: ">"), inner[..<close].contains(":"), !inner[..<close].contains(" ") {
          result += before + inner[..<close]
          rest = inner[inner.index(after: close)...]
        } else {
          result += rest[...index]
          rest = inner
        }
        continue
      }
      let inner = rest[rest.index(after: index)...]
      guard let close = inner.firstIndex(of: "]") else { break }
      let label = inner[..<close]
      var after = inner[inner.index(after: close)...]
      if let open = after.first, open == "(" || open == "[",
        let end = after.firstIndex(of: open == "(" ? ")" : "]")
      {
        after = after[after.index(after: end)...]
        result += before + label
        rest = after
      } else {
        result += rest[...close]
        rest = after
      }
    }
    result += rest
    return result.trimming(" \t")
  }
}
