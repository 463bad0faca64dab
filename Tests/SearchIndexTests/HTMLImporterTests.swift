import Foundation
import Testing
@testable import SearchIndex

@Suite struct HTMLImporterTests {
  func page(_ html: String, encoding: String? = nil) -> HTMLDocument { HTMLDocument.parse(Array(html.utf8), encoding: encoding) }

  @Test func aPageGivesItsTitleVisibleTextAndMetadata() throws {
    let (items, warnings) = try DocumentFixtures.read("tmux.html")
    #expect(warnings.isEmpty)
    let item = try #require(items.first)
    #expect(items.count == 1)
    #expect(item.uniqueIdentifier == "tmux.html")
    #expect(item.contentType == "document")
    let attributes = item.attributeSet
    #expect(attributes["title"] == .string("tmux & screen – a comparison"))
    #expect(attributes["textContent"] == .string("""
      Terminal multiplexers
      tmux lets you switch between several programs in one terminal.
      Sessions
      Windows <and> panes
      Café naïve — done.
      """))
    #expect(attributes["authorNames"] == .list([.string("Nicholas Marriott")]))
    #expect(attributes["contentDescription"] == .string("Terminal multiplexers compared"))
    #expect(attributes["keywords"] == .list([.string("tmux"), .string("screen"), .string("terminal")]))
    #expect(attributes["languages"] == .list([.string("en")]))
    #expect(attributes["displayName"] == .string("tmux.html"))
    #expect(attributes["contentURL"]?.stringValue?.hasSuffix("/Fixtures/documents/tmux.html") == true)
  }

  @Test func scriptStyleNoscriptTemplateAndCommentsAreNotText() {
    let parsed = page("""
      <html><head><style>.x{}</style></head><body>one<script>two()</script><noscript>three</noscript>
      <template><p>four</p></template><!-- five -->six</body></html>
      """)
    #expect(parsed.text == "one six")
  }

  /// A page's navigation, its skip link and what it hides are not its text: they would be
  /// every page's first sentence.
  @Test func navigationSkipLinksAndHiddenElementsAreNotText() {
    let parsed = page("""
      <html><body><a href="#apicontent" class="skip-to-content">Skip to content</a>
      <nav><ul><li>Home</li><li>About</li></ul></nav>
      <div hidden>secret</div><span aria-hidden="true">icon</span><span aria-hidden="false">shown</span>
      <p>Child processes run commands.</p><a href="#top" class="back">Back to top</a></body></html>
      """)
    #expect(parsed.text == "shown\nChild processes run commands.\nBack to top", "\(parsed.text)")
  }

  @Test func withoutATitleTheFirstH1IsTheTitleElseTheFirstHeading() {
    #expect(page("<h2>Second</h2><h1>First  <em>one</em></h1><h1>Later</h1>").title == "First one")
    #expect(page("<body><h3>Only a third</h3><p>x</p></body>").title == "Only a third")
    #expect(page("<p>no heading</p>").title == nil)
  }

  @Test func aPageWithoutATitleIsTitledByItsFileName() throws {
    try withTemporaryDirectory { dir in
      try writeFile("<p>Just text</p>", named: "plain.htm", in: dir)
      var reader = ItemReader(decoder: ItemDecoder(catalog: AttributeCatalog()))
      var titles: [String] = []
      try reader.read(path: dir.path) { item, _, _ in titles.append(item.attributeSet["title"]?.stringValue ?? "") }
      #expect(titles == ["plain.htm"])
    }
  }

  @Test func blockElementsSeparateWordsAndWhiteSpaceCollapses() {
    #expect(page("<div>a</div><div>b</div>x<br>y <span>z</span>\n\n  w<table><tr><td>c1</td><td>c2</td></tr></table>").text
      == "a\nb\nx\ny z w\nc1 c2")
    #expect(page("<pre>line 1\nline 2</pre>").text == "line 1\nline 2")
  }

  @Test func theDeclaredCharsetIsHonoured() {
    // "café" in Latin-1, declared by a meta element.
    let bytes = Array("<html><head><meta charset=\"iso-8859-1\"><title>caf".utf8) + [0xE9] + Array("</title></head></html>".utf8)
    #expect(HTMLDocument.parse(bytes).title == "café")
  }

  /// A page that declares no charset is UTF-8 until a byte says otherwise (shared-mime-info's
  /// DocBook pages: "lêers" read as Latin-1 was "lÃªers").
  @Test func anUndeclaredPageIsReadAsUTF8() {
    let parsed = page("<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 4.01 Transitional//EN\"><HTML><HEAD><TITLE>Unified</TITLE></HEAD><BODY><PRE>verskille tussen lêers</PRE></BODY></HTML>")
    #expect(parsed.text == "verskille tussen lêers", "\(parsed.text)")
    #expect(parsed.title == "Unified")
  }

  @Test func anEncodingLibxml2DoesNotKnowFallsBackToUTF8() {
    #expect(page("<html><head><meta charset=\"x-no-such-charset\"><title>café</title></head><p>naïve</p></html>").text.contains("na"))
  }

  @Test func aGivenEncodingOverridesTheDeclaredOne() {
    // E-mail bodies are decoded by their MIME charset first and handed over as UTF-8.
    #expect(page("<html><head><meta charset=\"iso-8859-1\"></head><p>café</p></html>", encoding: "UTF-8").text == "café")
  }

  @Test func invalidBytesWithoutADeclaredCharsetDoNotStopTheParse() {
    let bytes = Array("<p>ok ".utf8) + [0xFF, 0xFE, 0x80] + Array(" end</p>".utf8)
    let text = HTMLDocument.parse(bytes).text
    #expect(text.hasPrefix("ok "))
    #expect(text.hasSuffix(" end"))
  }

  @Test func deeplyNestedMarkupIsReadWithoutRecursion() {
    let depth = 100_000
    let html = String(repeating: "<div>", count: depth) + "deep" + String(repeating: "</div>", count: depth)
    // libxml2 stops at its own depth limit (and keeps no text past it); neither the parse
    // nor the walk may crash or hang.
    _ = page(html)
    _ = page("<p>" + String(repeating: "<b>", count: 5000) + "bold")
    #expect(page(String(repeating: "<div>", count: 200) + "deep").text == "deep")
  }

  @Test func emptyAndNonHTMLInputGiveNoText() {
    #expect(HTMLDocument.parse([]).text == "")
    #expect(page("   ").text == "")
    #expect(HTMLDocument.parse([0x00, 0x01, 0x02]).title == nil)
  }

  @Test func aFileThatStartsLikeHTMLIsSniffed() throws {
    #expect(HTMLImporter.claims(prefix: Array("\u{FEFF}\n  <!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 4.01//EN\">".utf8)))
    #expect(HTMLImporter.claims(prefix: Array("<html>".utf8)))
    #expect(HTMLImporter.claims(prefix: Array("<?xml version=\"1.0\"?>\n<!-- generated -->\n<html xmlns=\"http://www.w3.org/1999/xhtml\">".utf8)))
    #expect(!HTMLImporter.claims(prefix: Array("<?xml version=\"1.0\"?>\n<feed>".utf8)))
    #expect(!HTMLImporter.claims(prefix: Array("<!-- never closed <html>".utf8)))
    #expect(!HTMLImporter.claims(prefix: Array("Use <html> tags\n".utf8)))
  }
}
