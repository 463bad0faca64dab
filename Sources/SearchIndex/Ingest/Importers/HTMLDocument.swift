internal import CLibXML2
import Foundation

/// What a reader sees of an HTML page, parsed with libxml2's HTML parser (the same tolerant
/// parser `xmllint --html` uses): the title, the visible text and the metadata `<meta>` gives.
///
/// The text leaves out what a browser does not show (`head`, `script`, `style`, `noscript`,
/// `template`, comments, `hidden` and `aria-hidden` elements) and what every page repeats
/// around its content (`nav`, skip links); entities are decoded by the parser; runs of white
/// space become one space, and block elements (`p`, `div`, `li`, `h1`, `br`, ...) end a line.
/// The tree is walked without recursion, so a page nested a million elements deep costs no
/// stack.
/// https://gnome.pages.gitlab.gnome.org/libxml2/devhelp/libxml2-HTMLparser.html
struct HTMLDocument: Sendable, Hashable {
  /// `<title>`, else the first `<h1>`, else the first other heading; nil when there is none.
  var title: String?
  /// The visible text, one line per block.
  var text: String
  /// `<meta name="author">`.
  var authors: [String] = []
  /// `<meta name="description">`.
  var description: String?
  /// `<meta name="keywords">`, split at commas.
  var keywords: [String] = []
  /// `<html lang>`.
  var language: String?

  /// libxml2 wants `xmlInitParser` called once before parsing from several threads.
  private static let parserInitialised: Bool = {
    xmlInitParser()
    return true
  }()

  /// Parses `bytes`. `encoding` (an IANA name such as `UTF-8`) overrides what the page
  /// declares; nil lets libxml2 decide from a byte order mark or `<meta charset>`, taking
  /// UTF-8 and switching to Latin-1 at the first invalid byte. Never fails: bytes that are not
  /// HTML give whatever text libxml2 recovers, possibly none.
  static func parse(_ bytes: [UInt8], encoding: String? = nil) -> HTMLDocument {
    guard !bytes.isEmpty, bytes.count < Int(Int32.max) else { return HTMLDocument(text: "") }
    _ = parserInitialised
    searchlight_xml_silence_errors()
    let options = Int32(
      bitPattern: HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_NONET.rawValue
        | HTML_PARSE_RECOVER.rawValue)
    var parsed = bytes.withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) { chars in
        htmlReadMemory(chars.baseAddress, Int32(chars.count), nil, encoding, options)
      }
    }
    if parsed == nil, encoding == nil {
      // An encoding the page declares but this libxml2 cannot convert: read it as UTF-8
      // (Latin-1 from the first invalid byte) instead.
      parsed = bytes.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { chars in
          htmlReadMemory(chars.baseAddress, Int32(chars.count), nil, "UTF-8", options)
        }
      }
    }
    guard let document = parsed else { return HTMLDocument(text: "") }
    defer { xmlFreeDoc(document) }
    var walker = Walker()
    walker.walk(document.pointee.children)
    return walker.document
  }

  /// Walks a parsed tree in document order with parent pointers (no recursion, no stack).
  private struct Walker {
    var text = VisibleText()
    var title: String?
    var titleText: VisibleText?
    var firstH1: String?
    var firstHeading: String?
    var headingText: VisibleText?
    var headingIsH1 = false
    /// Open `head` and `title` elements: their text is not the page's.
    var hidden = 0
    /// Open `pre` and `textarea` elements: line breaks in their text are kept.
    var preformatted = 0
    var meta = HTMLDocument(text: "")

    var document: HTMLDocument {
      var result = meta
      result.title = title ?? firstH1 ?? firstHeading
      result.text = text.string
      return result
    }

    mutating func walk(_ first: UnsafeMutablePointer<xmlNode>?) {
      var node = first
      while let current = node {
        if enter(current), let child = current.pointee.children {
          node = child
          continue
        }
        // Leave this node and every ancestor that has no next sibling.
        var leaving: UnsafeMutablePointer<xmlNode>? = current
        node = nil
        while let done = leaving {
          leave(done)
          if let next = done.pointee.next {
            node = next
            break
          }
          let parent = done.pointee.parent
          guard let parent, parent.pointee.type == XML_ELEMENT_NODE else { break }
          leaving = parent
        }
      }
    }

    /// Takes in `node`; true when its children are to be walked.
    mutating func enter(_ node: UnsafeMutablePointer<xmlNode>) -> Bool {
      switch node.pointee.type {
      case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
        guard let content = node.pointee.content else { return false }
        titleText?.append(content, preformatted: false)
        headingText?.append(content, preformatted: false)
        if hidden == 0 { text.append(content, preformatted: preformatted > 0) }
        return false
      case XML_ELEMENT_NODE:
        let name = Self.name(of: node)
        if Self.isBoilerplate(node, name: name) { return false }
        switch name {
        case "script", "style", "noscript", "template":
          return false
        case "head":
          hidden += 1
        case "title":
          hidden += 1
          if title == nil { titleText = VisibleText() }
        case "meta":
          takeMeta(node)
          return false
        case "html":
          if let lang = Self.attribute("lang", of: node)?.trimming(" \t\r\n"), !lang.isEmpty { meta.language = lang }
        case "pre", "textarea":
          preformatted += 1
        case "h1", "h2", "h3", "h4", "h5", "h6":
          if headingText == nil, firstH1 == nil, name == "h1" || firstHeading == nil {
            headingText = VisibleText()
            headingIsH1 = name == "h1"
          }
        default: break
        }
        if Self.blockElements.contains(name) { text.breakLine() } else if Self.cellElements.contains(name) { text.space() }
        return true
      default:
        // Comments, processing instructions, the DTD: nothing a reader sees.
        return false
      }
    }

    /// Closes `node` after its children.
    mutating func leave(_ node: UnsafeMutablePointer<xmlNode>) {
      guard node.pointee.type == XML_ELEMENT_NODE else { return }
      let name = Self.name(of: node)
      switch name {
      case "script", "style", "noscript", "template", "meta": return
      case "head": hidden -= 1
      case "title":
        hidden -= 1
        if let captured = titleText {
          let value = captured.string
          if !value.isEmpty { title = value }
          titleText = nil
        }
      case "pre", "textarea": preformatted -= 1
      case "h1", "h2", "h3", "h4", "h5", "h6":
        if let captured = headingText, headingIsH1 == (name == "h1") {
          let value = captured.string.replacing("\n", with: " ")
          if !value.isEmpty {
            if headingIsH1 { firstH1 = value } else { firstHeading = value }
          }
          headingText = nil
        }
      default: break
      }
      if Self.blockElements.contains(name) { text.breakLine() } else if Self.cellElements.contains(name) { text.space() }
    }

    mutating func takeMeta(_ node: UnsafeMutablePointer<xmlNode>) {
      guard let name = Self.attribute("name", of: node)?.lowercased(),
        let content = Self.attribute("content", of: node)?.trimming(" \t\r\n"), !content.isEmpty
      else { return }
      switch name {
      case "author":
        if !meta.authors.contains(content) { meta.authors.append(content) }
      case "description":
        if meta.description == nil { meta.description = content }
      case "keywords":
        for keyword in content.split(separator: ",") {
          let word = keyword.trimming(" \t\r\n")
          if !word.isEmpty, !meta.keywords.contains(word) { meta.keywords.append(word) }
        }
      default: break
      }
    }

    /// What a page repeats around its content or does not show: its navigation (`nav`),
    /// elements marked `hidden` or `aria-hidden="true"`, and the skip link that screen readers
    /// jump by (`<a href="#main" class="skip-to-content">Skip to content</a>`). Their text
    /// would be every page's first sentence.
    static func isBoilerplate(_ node: UnsafeMutablePointer<xmlNode>, name: String) -> Bool {
      if name == "nav" || attribute("hidden", of: node) != nil { return true }
      if attribute("aria-hidden", of: node)?.lowercased() == "true" { return true }
      guard name == "a", attribute("href", of: node)?.hasPrefix("#") == true else { return false }
      return attribute("class", of: node)?.lowercased().contains("skip") == true
    }

    /// An element's name, lowercased by the HTML parser.
    static func name(of node: UnsafeMutablePointer<xmlNode>) -> String {
      node.pointee.name.map { String(cString: $0) } ?? ""
    }

    /// The value of the attribute `name` (case-insensitive), nil when the element has none.
    static func attribute(_ name: String, of node: UnsafeMutablePointer<xmlNode>) -> String? {
      var property = node.pointee.properties
      while let current = property {
        defer { property = current.pointee.next }
        guard let attributeName = current.pointee.name, String(cString: attributeName).lowercased() == name else { continue }
        var value = ""
        var child = current.pointee.children
        while let text = child {
          if let content = text.pointee.content { value += String(cString: content) }
          child = text.pointee.next
        }
        return value
      }
      return nil
    }

    /// Elements that start and end a line of text.
    static let blockElements: Set<String> = [
      "address", "article", "aside", "blockquote", "body", "br", "caption", "center", "dd", "details", "dialog", "dir",
      "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
      "header", "hgroup", "hr", "html", "legend", "li", "main", "menu", "nav", "ol", "option", "p", "pre", "section",
      "summary", "table", "tbody", "textarea", "tfoot", "thead", "tr", "ul",
    ]
    /// Elements whose text is separated from their neighbours' by a space.
    static let cellElements: Set<String> = ["td", "th", "img", "input", "button", "select", "label"]
  }
}

/// Text gathered from text nodes with white space collapsed: runs of spaces, tabs, line
/// breaks and no-break spaces become one space; `breakLine()` starts a new line (never a blank
/// line), and nothing leads or trails.
struct VisibleText: Sendable, Hashable {
  private var bytes: [UInt8] = []
  private var pendingSpace = false
  private var pendingBreak = false

  /// Adds the NUL-terminated UTF-8 text at `content`; in preformatted text a line feed is a
  /// line break.
  mutating func append(_ content: UnsafePointer<UInt8>, preformatted: Bool) {
    var pointer = content
    while pointer.pointee != 0 {
      let byte = pointer.pointee
      switch byte {
      case 0x0A where preformatted: pendingBreak = true
      case 0x20, 0x09, 0x0A, 0x0D, 0x0C: pendingSpace = true
      case 0xC2 where pointer[1] == 0xA0:
        // U+00A0 NO-BREAK SPACE (&nbsp;) separates words like a space.
        pendingSpace = true
        pointer += 1
      default:
        if pendingBreak, !bytes.isEmpty {
          bytes.append(0x0A)
        } else if pendingSpace, let last = bytes.last, last != 0x0A {
          bytes.append(0x20)
        }
        pendingBreak = false
        pendingSpace = false
        bytes.append(byte)
      }
      pointer += 1
    }
  }

  /// Ends the current line; the next text starts a new one.
  mutating func breakLine() { pendingBreak = true }

  /// Separates the text before from the text after with a space.
  mutating func space() { pendingSpace = true }

  var string: String { String(decoding: bytes, as: UTF8.self) }
}
