import Foundation
import Testing
@testable import SearchIndex

@Suite struct MarkdownImporterTests {
  @Test func setextHeadingGivesTheTitleAndLeavesTheRestAsText() throws {
    let (items, warnings) = try DocumentFixtures.read("setext.md")
    let item = try #require(items.first)
    #expect(item.attributeSet["title"] == .string("libcbor"))
    #expect(item.attributeSet["textContent"] == .string("CBOR for C.\n\nUsage\n-----\n\nLink with -lcbor."))
    #expect(warnings.isEmpty)
  }

  @Test func linkSyntaxInATitleBecomesItsText() throws {
    let (items, _) = try DocumentFixtures.read("linked-title.md")
    #expect(items.first?.attributeSet["title"] == .string("libcbor manual"))
    #expect(items.first?.attributeSet["textContent"] == .string("See the API."))
  }

  @Test func frontMatterKeysThatAreNotAttributeNamesAreNormalised() throws {
    let (items, warnings) = try DocumentFixtures.read("hyphen-key.md")
    let item = try #require(items.first)
    #expect(item.attributeSet["hide_toc"] == .bool(true))
    #expect(item.attributeSet["SPDX_License_Identifier"] == .string("MIT"))
    #expect(item.attributeSet["hide-toc"] == nil)
    #expect(item.attributeSet["title"] == .string("Theming"))
    #expect(warnings.isEmpty)
  }

  @Test func aKeyWithNothingValidLeftIsDroppedWithAWarning() throws {
    try withTemporaryDirectory { dir in
      let path = try writeFile("---\ntitle: T\n'--': 1\nkMDFoo: 2\n---\nBody\n", named: "odd.md", in: dir)
      var reader = ItemReader(decoder: ItemDecoder(catalog: AttributeCatalog()))
      var items: [SearchableItem] = []
      try reader.read(path: path) { item, _, _ in items.append(item) }
      #expect(items.first?.attributeSet.names == ["title", "textContent", "contentModificationDate", "displayName", "fileSize", "contentURL"])
      #expect(reader.warnings == [
        IngestError(file: path, line: 3, message: "front-matter key ''--'' is not a valid attribute name; dropped"),
        IngestError(file: path, line: 4, message: "front-matter key 'kMDFoo' is not a valid attribute name; dropped"),
      ])
    }
  }

  @Test(arguments: [
    ("Title\n=====\nBody", "Title", "\nBody"),
    ("\n\n  Title  \n---\nBody", "Title", "\nBody"),
    ("# ATX [link](u) #\nBody", "ATX link", "\nBody"),
    ("See ![logo](l.png) and <https://x.org>\n===\n", "See logo and https://x.org", "\n"),
    ("[ref title][1]\n===", "ref title", ""),
  ])
  func headingsGiveTheirTitles(_ text: String, _ title: String, _ rest: String) throws {
    let heading = try #require(MarkdownImporter.leadingHeading(Substring(text)))
    #expect(heading.0 == title)
    #expect(String(heading.1) == rest)
  }

  @Test(arguments: [
    "Paragraph line\nnext line\n===",  // the underline must follow the first line
    "    indented code\n===",
    "## Second level\nBody",
    "- list item\n---",
    "> quoted\n===",
    "---\n---",
    "Only one line",
    "",
  ])
  func textsWithoutALeadingHeadingHaveNone(_ text: String) {
    #expect(MarkdownImporter.leadingHeading(Substring(text)) == nil)
  }

  @Test func linkTextKeepsBracketsThatAreNotLinks() {
    #expect(MarkdownImporter.linkText("[WIP] a < b") == "[WIP] a < b")
    #expect(MarkdownImporter.linkText("unclosed [bracket") == "unclosed [bracket")
  }

  @Test(arguments: ["setext.md", "linked-title.md", "hyphen-key.md"])
  func aNoteInMemoryDecodesAsItsFileDoesWithoutTheFileMetadata(_ name: String) throws {
    let (items, _) = try DocumentFixtures.read(name)
    var fromFile = try #require(items.first)
    for fileAttribute in ["contentURL", "displayName", "fileSize", "contentModificationDate"] { fromFile.attributeSet[fileAttribute] = nil }
    let data = try Data(contentsOf: DocumentFixtures.folder.appendingPathComponent(name))
    var decoder = ItemDecoder(catalog: AttributeCatalog())
    var warnings: [IngestError] = []
    let item = try decoder.decodeMarkdown(data, identifier: name, warnings: &warnings)
    #expect(item == fromFile)
    #expect(warnings.isEmpty)
  }

  @Test func aNoteInMemoryTakesItsIdentifierDomainAndTypesFromItsFrontMatterAndDecoder() throws {
    var decoder = ItemDecoder(catalog: AttributeCatalog(), defaultDomain: "recipes")
    var warnings: [IngestError] = []
    let text = "\u{FEFF}---\nrating: 4\nservings: 2\n'--': x\n---\n\nBread\n=====\nFeed daily.\n"
    let item = try decoder.decodeMarkdown(Data(text.utf8), identifier: "bake/sourdough.md", warnings: &warnings)
    #expect(item.uniqueIdentifier == "bake/sourdough.md")
    #expect(item.domainIdentifier == "recipes")
    #expect(item.contentType == "note")
    #expect(item.attributeSet.names == ["rating", "servings", "title", "textContent"])
    #expect(item.attributeSet["title"] == .string("Bread"))
    #expect(item.attributeSet["textContent"] == .string("Feed daily."))
    #expect(decoder.catalog.type(of: "servings") == AttributeType(.number))
    #expect(warnings == [IngestError(file: "bake/sourdough.md", line: 4, message: "front-matter key ''--'' is not a valid attribute name; dropped")])
    // Without a heading or a title key, the identifier's name gives the title.
    let plain = try decoder.decodeMarkdown(Data("Just text".utf8), identifier: "bake/rye.md", warnings: &warnings)
    #expect(plain.attributeSet["title"] == .string("rye"))
  }

  @Test func aNoteInMemoryThatIsBinaryOrHasBadFrontMatterIsAnErrorNamingIt() {
    var decoder = ItemDecoder(catalog: AttributeCatalog())
    var warnings: [IngestError] = []
    #expect(throws: IngestError(file: "n.md", line: 1, message: "front matter starting here is not closed by a '---' line")) {
      try decoder.decodeMarkdown(Data("---\ntitle: T\n".utf8), identifier: "n.md", warnings: &warnings)
    }
    #expect(throws: IngestError(file: "n.md", line: nil, message: DocumentImporters.Refusal.binary.message)) {
      try decoder.decodeMarkdown(Data([0x00, 0x01, 0x02, 0xFF, 0x00]), identifier: "n.md", warnings: &warnings)
    }
    #expect(throws: IngestError(file: "n.md", line: nil, message: "the note is larger than \(ItemReader.maximumNoteBytes) bytes")) {
      try decoder.decodeMarkdown(Data(count: ItemReader.maximumNoteBytes + 1), identifier: "n.md", warnings: &warnings)
    }
  }
}
