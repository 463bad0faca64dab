import Foundation
import Testing
@testable import SearchIndex

@Suite struct ItemReaderTests {
  func readAll(
    _ path: String, format: ItemReader.Format = .auto, domain: String? = nil, catalog: AttributeCatalog = AttributeCatalog()
  ) throws -> [(item: SearchableItem, line: Int?)] {
    var reader = ItemReader(decoder: ItemDecoder(catalog: catalog, defaultDomain: domain), format: format)
    var result: [(SearchableItem, Int?)] = []
    try reader.read(path: path) { item, line, _ in result.append((item, line)) }
    return result
  }

  /// The ingest error reading `path` raises.
  func ingestError(_ path: String, format: ItemReader.Format = .auto) -> IngestError? {
    do {
      _ = try readAll(path, format: format)
      return nil
    } catch {
      return error as? IngestError
    }
  }

  // MARK: JSON arrays

  @Test func arrayElementsCarryTheLineTheyStartOn() throws {
    try withTemporaryDirectory { dir in
      let path = try writeFile("""
        [
          {"id":"a"},
          {"id":"b",
           "attributes":{"title":"B"}},

          {"id":"c"}
        ]
        """, named: "items.json", in: dir)
      let read = try readAll(path)
      #expect(read.map(\.item.uniqueIdentifier) == ["a", "b", "c"])
      #expect(read.map(\.line) == [2, 3, 6])
      #expect(read[1].item.attributeSet["title"] == .string("B"))
    }
  }

  @Test func aBadArrayElementIsReportedAtItsLine() throws {
    try withTemporaryDirectory { dir in
      let path = try writeFile("[\n  {\"id\":\"a\"},\n\n  {\"id\":\"b\",\"attributes\":{\"rating\":\"x\"}}\n]\n", named: "items.json", in: dir)
      #expect(ingestError(path) == IngestError(file: path, line: 4, message: "attribute 'rating' is a number, got a string"))
    }
  }

  @Test func aMalformedArrayIsReportedAtTheSyntaxError() throws {
    try withTemporaryDirectory { dir in
      let path = try writeFile("[\n  {\"id\":\"a\"},\n  {\"id\" \"b\"}\n]\n", named: "items.json", in: dir)
      #expect(ingestError(path) == IngestError(
        file: path, line: 3, message: "malformed JSON: expected ':' after member name (column 9)"))
    }
  }

  // MARK: Pretty-printed JSON

  @Test func aPrettyPrintedItemIsOneItem() throws {
    try withTemporaryDirectory { dir in
      let path = try writeFile("""
        \u{FEFF}
        {
          "id": "a",
          "attributes": {
            "title": "A"
          }
        }

        """, named: "item.json", in: dir)
      let read = try readAll(path)
      #expect(read.map(\.item.uniqueIdentifier) == ["a"])
      #expect(read.map(\.line) == [2])
      #expect(read[0].item.attributeSet["title"] == .string("A"))
    }
  }

  @Test func aStreamOfPrettyPrintedItemsCarriesTheLinesTheyStartOn() throws {
    try withTemporaryDirectory { dir in
      let path = try writeFile("{\"id\": \"a\",\n \"attributes\": {}}\n{\n  \"id\": \"b\"\n}\n\n{\"id\": \"c\"}\n", named: "items.json", in: dir)
      let read = try readAll(path)
      #expect(read.map(\.item.uniqueIdentifier) == ["a", "b", "c"])
      #expect(read.map(\.line) == [1, 3, 7])
    }
  }

  @Test func aMalformedPrettyPrintedItemIsReportedAtTheSyntaxError() throws {
    try withTemporaryDirectory { dir in
      let path = try writeFile("{\n  \"id\": \"a\",\n  \"attributes\" {}\n}\n", named: "item.json", in: dir)
      #expect(ingestError(path) == IngestError(
        file: path, line: 3, message: "malformed JSON: expected ':' after member name (column 16)"))
      // An item that is not one (other JSON in a folder of documents) says what is wrong with it.
      let other = try writeFile("{\n  \"type\": \"module\"\n}\n", named: "other.json", in: dir)
      #expect(ingestError(other)?.line == 1)
      #expect(ingestError(other)?.message.hasPrefix("malformed JSON") == false)
    }
  }

  /// A first line that is JSON gone wrong before its end is a bad JSON Lines item, not the
  /// start of a pretty-printed one.
  @Test func aFirstLineMalformedBeforeItsEndIsAJSONLinesError() throws {
    try withTemporaryDirectory { dir in
      let path = try writeFile("{\"id\" \"a\",\n\"x\": 1}\n", named: "items.json", in: dir)
      #expect(ingestError(path) == IngestError(
        file: path, line: 1, message: "malformed JSON: expected ':' after member name (column 7)"))
    }
  }

  // MARK: JSON Lines

  @Test func jsonLinesCountBlankLinesInLineNumbers() throws {
    try withTemporaryDirectory { dir in
      let path = try writeFile("{\"id\":\"a\"}\n\n{\"id\":\"b\"}\n  \t\n{\"id\":\"c\"}", named: "items.jsonl", in: dir)
      let read = try readAll(path)
      #expect(read.map(\.item.uniqueIdentifier) == ["a", "b", "c"])
      #expect(read.map(\.line) == [1, 3, 5])
    }
  }

  @Test func aBadLineAfterBlankLinesIsReportedAtItsOwnLine() throws {
    try withTemporaryDirectory { dir in
      let path = try writeFile("{\"id\":\"a\"}\n\n\n{\"id\":\"b\",}\n{\"id\":\"c\"}\n", named: "items.jsonl", in: dir)
      #expect(ingestError(path) == IngestError(
        file: path, line: 4, message: "malformed JSON: expected a quoted member name (column 11)"))
    }
  }

  @Test func jsonLinesAcceptWindowsLineEndingsAndAByteOrderMark() throws {
    try withTemporaryDirectory { dir in
      let path = try writeFile("\u{FEFF}{\"id\":\"a\"}\r\n{\"id\":\"b\"}\r\n", named: "items.jsonl", in: dir)
      let read = try readAll(path)
      #expect(read.map(\.item.uniqueIdentifier) == ["a", "b"])
      #expect(read.map(\.line) == [1, 2])
    }
  }

  @Test func anEmptyFileHoldsNoItems() throws {
    try withTemporaryDirectory { dir in
      let path = try writeFile("", named: "empty.jsonl", in: dir)
      #expect(try readAll(path).isEmpty)
    }
  }

  @Test func aDecodingErrorNamesTheFileAndLine() throws {
    try withTemporaryDirectory { dir in
      let path = try writeFile("{\"id\":\"a\"}\n{\"id\":\"b\",\"attributes\":{\"my-attr\":1}}\n", named: "items.jsonl", in: dir)
      let error = try #require(ingestError(path))
      #expect(error.kind == .badData)
      #expect(error.description == "\(path):2: invalid attribute name 'my-attr': only ASCII letters, digits and '_' are allowed")
    }
  }

  @Test func aMissingPathIsMissingInput() throws {
    try withTemporaryDirectory { dir in
      let path = dir.appendingPathComponent("nope.jsonl").path
      #expect(ingestError(path) == IngestError(.missingInput, file: path, line: nil, message: "no such file or directory"))
    }
  }

  @Test func updateReadingReportsNullAttributesAsRemoved() throws {
    try withTemporaryDirectory { dir in
      let path = try writeFile(#"{"id":"a","attributes":{"rating":2,"title":null}}"# + "\n", named: "update.jsonl", in: dir)
      var reader = ItemReader(decoder: ItemDecoder(catalog: AttributeCatalog()))
      var seen: [(SearchableItem, Set<String>)] = []
      #expect(throws: IngestError(file: path, line: 1, message: "attribute 'title' is null; leave it out instead")) {
        try reader.read(path: path) { item, _, removed in seen.append((item, removed)) }
      }
      reader.isUpdate = true
      try reader.read(path: path) { item, _, removed in seen.append((item, removed)) }
      #expect(seen.map(\.0) == [item("a", [("rating", .number(2))])])
      #expect(seen.map(\.1) == [["title"]])
    }
  }

  // MARK: Corpus lines

  @Test func corpusLinesAreDetectedAndBecomeDocuments() throws {
    try withTemporaryDirectory { dir in
      let path = try writeFile(
        "{\"id\":\"d1\",\"title\":\"Flow\",\"text\":\"Boundary layers.\"}\n{\"_id\":7,\"text\":\"No title.\"}\n",
        named: "corpus.jsonl", in: dir)
      let read = try readAll(path).map(\.item)
      #expect(read.map(\.uniqueIdentifier) == ["d1", "7"])
      #expect(read.allSatisfy { $0.domainIdentifier == "corpus" && $0.contentType == "document" })
      #expect(read[0].attributeSet == AttributeSet([("title", .string("Flow")), ("textContent", .string("Boundary layers."))]))
      #expect(read[1].attributeSet == AttributeSet([("textContent", .string("No title."))]))
    }
  }

  @Test func corpusLinesRejectUnknownFields() throws {
    try withTemporaryDirectory { dir in
      let path = try writeFile("{\"id\":\"d1\",\"text\":\"x\",\"author\":\"y\"}\n", named: "corpus.jsonl", in: dir)
      #expect(ingestError(path, format: .corpus)?.message == "unknown corpus field 'author'; a corpus line has id, title and text")
    }
  }

  @Test func theItemsFormatNeverReadsCorpusLines() throws {
    try withTemporaryDirectory { dir in
      let path = try writeFile("{\"id\":\"d1\",\"text\":\"x\"}\n", named: "corpus.jsonl", in: dir)
      #expect(ingestError(path, format: .items)?.message == "unknown item field 'text'; attributes go inside \"attributes\"")
    }
  }

  // MARK: Notes

  @Test func notesFolderGivesIdsTitlesTypesAndText() throws {
    try withTemporaryDirectory { dir in
      let folder = dir.appendingPathComponent("notes")
      try writeFile("""
        ---
        rating: 4
        keywords: [milk, eggs]
        servings: 2
        ---
        # Groceries

        Buy milk.
        """, named: "groceries.md", in: folder)
      try writeFile("Just text without a heading.\n", named: "shopping-list.md", in: folder)
      try writeFile("""
        ---
        id: trip-1
        domain: travel
        title: 2026
        dueDate: 2026-06-01
        tags: ["a", b]
        ---
        Pack the bags.
        """, named: "sub/trip.md", in: folder)
      try writeFile("---\ntitle: not front matter\n---\nhello\n", named: "plain.txt", in: folder)
      try writeFile("# Hidden\n", named: ".hidden.md", in: folder)
      try writeFile("# In a hidden folder\n", named: ".git/notes.md", in: folder)
      try writeFile("not an item", named: "picture.png", in: folder)
      try writeFile("{\"id\":\"j1\",\"attributes\":{\"title\":\"From JSON Lines\"}}\n", named: "data.jsonl", in: folder)

      let read = try readAll(folder.path)
      let items = read.map(\.item)
      #expect(items.map(\.uniqueIdentifier) == ["j1", "groceries.md", "plain.txt", "shopping-list.md", "trip-1"])
      let byID = Dictionary(uniqueKeysWithValues: items.map { ($0.uniqueIdentifier, $0) })

      let groceries = try #require(byID["groceries.md"])
      #expect(groceries.domainIdentifier == "notes")
      #expect(groceries.contentType == "note")
      #expect(groceries.attributeSet["title"] == .string("Groceries"))
      #expect(groceries.attributeSet["textContent"] == .string("Buy milk."))
      #expect(groceries.attributeSet["rating"] == .number(4))
      #expect(groceries.attributeSet["keywords"] == .list([.string("milk"), .string("eggs")]))
      #expect(groceries.attributeSet["servings"] == .number(2))
      #expect(groceries.attributeSet["displayName"] == .string("groceries.md"))
      #expect(groceries.attributeSet["contentURL"]?.stringValue?.hasPrefix("file://") == true)
      #expect(groceries.attributeSet["contentURL"]?.stringValue?.hasSuffix("/notes/groceries.md") == true)
      if case .date? = groceries.attributeSet["contentModificationDate"] {} else {
        Issue.record("a note gets its file's modification date")
      }

      let untitled = try #require(byID["shopping-list.md"])
      #expect(untitled.attributeSet["title"] == .string("shopping-list"))
      #expect(untitled.attributeSet["textContent"] == .string("Just text without a heading."))

      let trip = try #require(byID["trip-1"])
      #expect(trip.domainIdentifier == "travel")
      #expect(trip.attributeSet["title"] == .string("2026"))
      #expect(trip.attributeSet["dueDate"] == .date(utc(2026, 6, 1)))
      #expect(trip.attributeSet["tags"] == .list([.string("a"), .string("b")]))
      #expect(trip.attributeSet["textContent"] == .string("Pack the bags."))

      let plain = try #require(byID["plain.txt"])
      #expect(plain.attributeSet["title"] == .string("plain"))
      #expect(plain.attributeSet["textContent"] == .string("---\ntitle: not front matter\n---\nhello"))
      #expect(plain.attributeSet["displayName"] == .string("plain.txt"))
    }
  }

  @Test func notesWithWindowsLineEndingsKeepTheirFrontMatterHeadingAndText() throws {
    try withTemporaryDirectory { dir in
      let path = try writeFile("---\r\nrating: 2\r\n---\r\n# Heading\r\n\r\nBody line.\r\n", named: "windows.md", in: dir)
      let item = try #require(try readAll(path).first?.item)
      #expect(item.attributeSet["rating"] == .number(2))
      #expect(item.attributeSet["title"] == .string("Heading"))
      #expect(item.attributeSet["textContent"] == .string("Body line."))
    }
  }

  @Test func aNoteWithAByteOrderMarkKeepsItsFrontMatterAndHeading() throws {
    try withTemporaryDirectory { dir in
      let path = try writeFile("\u{FEFF}---\nrating: 2\n---\n# Heading\nBody.\n", named: "bom.md", in: dir)
      let item = try #require(try readAll(path).first?.item)
      #expect(item.attributeSet["rating"] == .number(2))
      #expect(item.attributeSet["title"] == .string("Heading"))
      #expect(item.attributeSet["textContent"] == .string("Body."))
    }
  }

  @Test func notesInAFolderAreIdentifiedByTheirPathInsideIt() throws {
    try withTemporaryDirectory { dir in
      try writeFile("# A\n", named: "a/b/deep.md", in: dir)
      #expect(try readAll(dir.path).map(\.item.uniqueIdentifier) == ["a/b/deep.md"])
    }
  }

  @Test func aSingleNoteFileIsIdentifiedByItsFileName() throws {
    try withTemporaryDirectory { dir in
      let path = try writeFile("# Title\nBody\n", named: "sub/one.markdown", in: dir)
      let read = try readAll(path)
      #expect(read.map(\.item.uniqueIdentifier) == ["one.markdown"])
      #expect(read.map(\.line) == [1])
    }
  }

  @Test func theDefaultDomainAppliesToNotes() throws {
    try withTemporaryDirectory { dir in
      let path = try writeFile("# A\n", named: "a.md", in: dir)
      #expect(try readAll(path, domain: "journal").first?.item.domainIdentifier == "journal")
    }
  }

  @Test func frontMatterUsesTheCatalogTypeOfAKnownAttribute() throws {
    try withTemporaryDirectory { dir in
      let path = try writeFile("---\nsku: 00123\nprice: 12\n---\n", named: "a.md", in: dir)
      let catalog = AttributeCatalog(customTypes: ["sku": .string])
      let item = try #require(try readAll(path, catalog: catalog).first?.item)
      #expect(item.attributeSet["sku"] == .string("00123"))
      #expect(item.attributeSet["price"] == .number(12))
    }
  }

  @Test(arguments: [
    ("---\ntitle: A\ndueDate: tomorrow\n---\n", 3,
     "attribute 'dueDate' is a date, but \"tomorrow\" does not parse as ISO-8601 (e.g. 2026-05-01T08:00:00Z)"),
    ("---\nrating: high\n---\n", 2, "attribute 'rating' is a number, got a string"),
    ("---\ndomain: bad..domain\n---\n", 2, "invalid domain \"bad..domain\": use dot-separated names such as mail.inbox"),
    ("---\nexpirationDate: never\n---\n", 2, "'expirationDate' is not an ISO-8601 date"),
    ("---\nid: [a, b]\n---\n", 2, "'id' must be a single value"),
    ("---\ntitle: A\n", 1, "front matter starting here is not closed by a '---' line"),
  ])
  func badFrontMatterIsReportedAtItsLineInTheNote(_ text: String, _ line: Int, _ message: String) throws {
    try withTemporaryDirectory { dir in
      let path = try writeFile(text, named: "note.md", in: dir)
      #expect(ingestError(path) == IngestError(file: path, line: line, message: message))
    }
  }

  @Test func aNoteThatIsNotUTF8IsDecodedAsLatin1() throws {
    try withTemporaryDirectory { dir in
      let url = dir.appendingPathComponent("latin1.md")
      try Data([0x23, 0x20, 0x63, 0x61, 0x66, 0xE9, 0x0A]).write(to: url)
      #expect(try readAll(url.path).first?.item.attributeSet["title"] == .string("café"))
    }
  }

  @Test func aFolderOfGoodAndBadFilesStopsAtTheFirstBadOneWhenReadWhole() throws {
    try withTemporaryDirectory { dir in
      try writeFile("# A\n", named: "a.md", in: dir)
      let blob = try writeFile("x\u{0}y", named: "blob", in: dir)
      #expect(ingestError(dir.path) == IngestError(file: blob, line: nil, message: "binary file (not text); not indexed"))
    }
  }
}
