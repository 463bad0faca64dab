import Foundation
import Testing
@testable import SearchIndex

@Suite struct PlainTextImporterTests {
  @Test func anExtensionlessTextFileIsAPlainTextNoteNamedByItsFile() throws {
    let (items, _) = try DocumentFixtures.read("README")
    let item = try #require(items.first)
    #expect(item.uniqueIdentifier == "README")
    #expect(item.contentType == "note")
    #expect(item.attributeSet["title"] == .string("README"))
    #expect(item.attributeSet["textContent"] == .string("tmux for Debian\n---------------\n\nThe terminal multiplexer."))
    #expect(item.attributeSet["displayName"] == .string("README"))
    #expect(item.attributeSet["contentURL"]?.stringValue?.hasSuffix("/Fixtures/documents/README") == true)
  }

  @Test func latin1TextIsDecodedNotRejected() throws {
    let (items, _) = try DocumentFixtures.read("NEWS")
    #expect(items.first?.attributeSet["textContent"] == .string("Version 2: café crème, naïve résumé."))
  }

  @Test func aBinaryFileIsRefusedAndNeverReadAsJSON() throws {
    #expect(throws: IngestError(file: DocumentFixtures.file("firmware").path, line: nil, message: "binary file (not text); not indexed")) {
      _ = try DocumentFixtures.read("firmware")
    }
  }

  @Test func aDottedNameKeepsItsWholeNameAsTitleButTxtLosesItsExtension() throws {
    try withTemporaryDirectory { dir in
      _ = try writeFile("Debian notes\n", named: "README.Debian", in: dir)
      _ = try writeFile("Plain\n", named: "notes.txt", in: dir)
      var reader = ItemReader(decoder: ItemDecoder(catalog: AttributeCatalog()))
      var titles: [String] = []
      try reader.read(path: dir.path) { item, _, _ in titles.append(item.attributeSet["title"]?.stringValue ?? "") }
      #expect(titles == ["README.Debian", "notes"])
    }
  }

  @Test func utf16WithAByteOrderMarkIsDecoded() {
    let data = Data([0xFF, 0xFE]) + "hé".data(using: .utf16LittleEndian)!
    #expect(TextDecoding.decode(data) == "hé")
  }

  @Test(arguments: [
    ([UInt8]("plain\ttext\r\n".utf8), true),
    ([0x63, 0x61, 0x66, 0xE9], true),
    ([0x61, 0x00, 0x62], false),
    ([UInt8](repeating: 0x01, count: 5) + [UInt8](repeating: 0x61, count: 20), false),
    ([], true),
  ])
  func textIsToldFromBinary(_ bytes: [UInt8], _ isText: Bool) {
    #expect(TextDecoding.looksLikeText(bytes) == isText)
  }
}
