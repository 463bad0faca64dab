internal import CLibXML2
import Foundation

/// What a reader sees of an HTML page, parsed with libxml2's HTML parser (the same tolerant
/// parser `xmllint --html` uses): the title, the visible text and the metadata `<meta>` gives.
///
/// The text leaves out what a browser does not show (`head`, `script`, `style`, `noscript`,
/// `template`, comments, `hidden` and `aria-hidden` elements) and what every page repeats
/// around its content (`nav`, skip links); entities are decoded by the parser; runs of white
/// space become one space, and block elements (`p`, `div`, `li`, `h1`, `br`, ...) end a line.
/// The parser reports the page through SAX callbacks and no tree is built, so a page costs
/// memory for its text, not for its elements.
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
    if let page = read(bytes, encoding: encoding) { return page }
    // An encoding the page declares but this libxml2 cannot convert: read it as UTF-8
    // (Latin-1 from the first invalid byte) instead.
    if encoding == nil, let page = read(bytes, encoding: "UTF-8") { return page }
    return HTMLDocument(text: "")
  }

  /// The page as libxml2's HTML parser reports it through SAX callbacks: no tree is built (a
  /// 8 MB page's tree took 100 MB). Nil when the parser reported nothing at all.
  private static func read(_ bytes: [UInt8], encoding: String?) -> HTMLDocument? {
    let options = Int32(
      bitPattern: HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_NONET.rawValue
        | HTML_PARSE_RECOVER.rawValue)
    let reader = Reader()
    let parsed = bytes.withUnsafeBufferPointer { buffer -> Bool in
      buffer.withMemoryRebound(to: CChar.self) { chars -> Bool in
        guard let context = htmlCreateMemoryParserCtxt(chars.baseAddress, Int32(chars.count)) else { return false }
        var handler = htmlSAXHandler()
        handler.startElement = { user, name, attributes in
          guard let user, let name else { return }
          Unmanaged<Reader>.fromOpaque(user).takeUnretainedValue().start(name, attributes)
        }
        handler.endElement = { user, name in
          guard let user, let name else { return }
          Unmanaged<Reader>.fromOpaque(user).takeUnretainedValue().end(name)
        }
        let characters: charactersSAXFunc = { user, characters, length in
          guard let user, let characters, length > 0 else { return }
          Unmanaged<Reader>.fromOpaque(user).takeUnretainedValue().characters(UnsafeBufferPointer(start: characters, count: Int(length)))
        }
        handler.characters = characters
        handler.cdataBlock = characters
        // The context frees the handler it holds: its own is put back before that.
        let copy = UnsafeMutablePointer<htmlSAXHandler>.allocate(capacity: 1)
        copy.initialize(to: handler)
        let original = context.pointee.sax
        context.pointee.sax = copy
        context.pointee.userData = Unmanaged.passUnretained(reader).toOpaque()
        _ = htmlCtxtUseOptions(context, options)
        // Undeclared text is UTF-8 until a byte says otherwise, as `htmlReadMemory` reads it
        // (an HTML context alone starts as Latin-1).
        context.pointee.charset = Int32(XML_CHAR_ENCODING_UTF8.rawValue)
        if let encoding, let converter = xmlFindCharEncodingHandler(encoding) {
          _ = xmlSwitchToEncoding(context, converter)
        }
        _ = htmlParseDocument(context)
        context.pointee.sax = original
        copy.deallocate()
        if let document = context.pointee.myDoc { xmlFreeDoc(document) }
        htmlFreeParserCtxt(context)
        return true
      }
    }
    guard parsed, reader.sawAnything else { return nil }
    return reader.document
  }

  /// The parser's events, in document order, turned into the page: elements that are not
  /// shown are skipped with all they hold.
  private final class Reader {
    var walker = Walker()
    /// Open elements inside one that is skipped (its own start counted).
    var skipped = 0
    var sawAnything = false
    var document: HTMLDocument { walker.document }

    func start(_ name: UnsafePointer<xmlChar>, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
      sawAnything = true
      if skipped > 0 {
        skipped += 1
        return
      }
      let element = Element(name: String(cString: name), attributes: attributes)
      if !walker.enter(element) { skipped = 1 }
    }

    func end(_ name: UnsafePointer<xmlChar>) {
      if skipped > 1 {
        skipped -= 1
        return
      }
      skipped = 0
      walker.leave(String(cString: name))
    }

    func characters(_ bytes: UnsafeBufferPointer<UInt8>) {
      sawAnything = true
      guard skipped == 0 else { return }
      walker.text(bytes)
    }
  }

  /// An element as the parser reports its start: its lowercased name and attributes.
  struct Element {
    var name: String
    var attributes: [(name: String, value: String)] = []

    init(name: String, attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
      self.name = name
      guard var pair = attributes else { return }
      // Name, value, name, value, ..., NULL; a value is NULL for a bare `hidden`.
      while let attributeName = pair.pointee {
        let value = pair[1].map { String(cString: $0) } ?? ""
        self.attributes.append((String(cString: attributeName), value))
        pair += 2
      }
    }

    /// The value of the attribute `name` (case-insensitive), nil when the element has none.
    func attribute(_ name: String) -> String? {
      attributes.first { $0.name.lowercased() == name }?.value
    }
  }

  /// The page gathered from the parser's events: the text, the title and the metadata.
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

    /// Text, outside any skipped element.
    mutating func text(_ bytes: UnsafeBufferPointer<UInt8>) {
      titleText?.append(bytes, preformatted: false)
      headingText?.append(bytes, preformatted: false)
      if hidden == 0 { text.append(bytes, preformatted: preformatted > 0) }
    }

    /// Takes in an element's start; false when what it holds is skipped (its end still comes
    /// to `leave`).
    mutating func enter(_ element: Element) -> Bool {
      let name = element.name
      if Self.isBoilerplate(element) { return false }
      switch name {
      case "script", "style", "noscript", "template":
        return false
      case "head":
        hidden += 1
      case "title":
        hidden += 1
        if title == nil { titleText = VisibleText() }
      case "meta":
        takeMeta(element)
        return false
      case "html":
        if let lang = element.attribute("lang")?.trimming(" \t\r\n"), !lang.isEmpty { meta.language = lang }
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
    }

    /// Closes the element `name` after what it holds.
    mutating func leave(_ name: String) {
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

    mutating func takeMeta(_ element: Element) {
      guard let name = element.attribute("name")?.lowercased(),
        let content = element.attribute("content")?.trimming(" \t\r\n"), !content.isEmpty
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
    static func isBoilerplate(_ element: Element) -> Bool {
      if element.name == "nav" || element.attribute("hidden") != nil { return true }
      if element.attribute("aria-hidden")?.lowercased() == "true" { return true }
      guard element.name == "a", element.attribute("href")?.hasPrefix("#") == true else { return false }
      return element.attribute("class")?.lowercased().contains("skip") == true
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

  /// Adds the UTF-8 text `content` (whole characters); in preformatted text a line feed is a
  /// line break.
  mutating func append(_ content: UnsafeBufferPointer<UInt8>, preformatted: Bool) {
    var index = 0
    while index < content.count {
      let byte = content[index]
      switch byte {
      case 0x0A where preformatted: pendingBreak = true
      case 0x20, 0x09, 0x0A, 0x0D, 0x0C: pendingSpace = true
      case 0xC2 where index + 1 < content.count && content[index + 1] == 0xA0:
        // U+00A0 NO-BREAK SPACE (&nbsp;) separates words like a space.
        pendingSpace = true
        index += 1
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
      index += 1
    }
  }

  /// Ends the current line; the next text starts a new one.
  mutating func breakLine() { pendingBreak = true }

  /// Separates the text before from the text after with a space.
  mutating func space() { pendingSpace = true }

  var string: String { String(decoding: bytes, as: UTF8.self) }
}
