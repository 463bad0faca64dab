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

  /// A terminal log keeps its escapes and bells: they are stored as written (output shows them
  /// as control pictures, `ControlCharacterOutputTests`), not taken as a sign of a binary file.
  @Test func aFewControlCharactersAreStoredAsWritten() throws {
    let (items, warnings) = try DocumentFixtures.read("terminal.txt")
    #expect(warnings.isEmpty)
    let item = try #require(items.first)
    #expect(item.attributeSet["title"] == .string("terminal"))
    #expect(item.attributeSet["textContent"] == .string(
      "Build log\n\u{1B}[2J\u{1B}[1mcleared\u{1B}[0m the screen and rang the bell \u{07} twice \u{07}."))
  }

  /// An empty file is still a document a person may look for by name, as in Spotlight.
  @Test func anEmptyFileIsANoteFoundByItsName() throws {
    let (items, warnings) = try DocumentFixtures.read("empty.txt")
    #expect(warnings.isEmpty)
    let item = try #require(items.first)
    #expect(item.uniqueIdentifier == "empty.txt")
    #expect(item.attributeSet["title"] == .string("empty"))
    #expect(item.attributeSet["textContent"] == nil)
    #expect(item.attributeSet["fileSize"] == .number(0))
  }

  /// The documents every package ships under the same names take their folder into the
  /// title; other names, files at the top of the folder given and Markdown headings do not.
  @Test func namesWithoutASubjectTakeTheirFolderIntoTheTitle() throws {
    try withTemporaryDirectory { dir in
      _ = try writeFile("Bash notes\n", named: "bash/README", in: dir)
      _ = try writeFile("Format: x\n", named: "bash/copyright", in: dir)
      _ = try writeFile("vim (2:9.0) unstable\n", named: "vim/changelog.Debian", in: dir)
      _ = try writeFile("text\n", named: "vim/NEWS.txt", in: dir)
      _ = try writeFile("No heading here\n", named: "tmux/README.md", in: dir)
      _ = try writeFile("# tmux plugins\nText\n", named: "tmux/plugins/Readme.md", in: dir)
      _ = try writeFile("Plain\n", named: "vim/usage.txt", in: dir)
      _ = try writeFile("Top\n", named: "README", in: dir)
      _ = try writeFile("Nearly\n", named: "vim/READMEs", in: dir)
      _ = try writeFile("<!doctype html><p>no title</p>\n", named: "site/index.html", in: dir)
      var reader = ItemReader(decoder: ItemDecoder(catalog: AttributeCatalog()))
      var titles: [String: String] = [:]
      try reader.read(path: dir.path) { item, _, _ in titles[item.uniqueIdentifier] = item.attributeSet["title"]?.stringValue ?? "" }
      #expect(titles == [
        "bash/README": "README (bash)", "bash/copyright": "copyright (bash)", "vim/changelog.Debian": "changelog.Debian (vim)",
        "vim/NEWS.txt": "NEWS (vim)", "tmux/README.md": "README (tmux)", "tmux/plugins/Readme.md": "tmux plugins",
        "vim/usage.txt": "usage", "README": "README", "vim/READMEs": "READMEs", "site/index.html": "index.html (site)",
      ])
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

  /// Byte strings and whether each is text.
  static let samples: [([UInt8], Bool)] = [
    ([UInt8]("plain\ttext\r\n".utf8), true),
    ([0x63, 0x61, 0x66, 0xE9], true),
    ([0x61, 0x00, 0x62], false),
    ([UInt8](repeating: 0x01, count: 5) + [UInt8](repeating: 0x61, count: 20), false),
    // Up to three stray controls in a short text; one in a hundred bytes beyond that.
    ([UInt8]("bell \u{07} and \u{07}\n".utf8), true),
    ([UInt8](repeating: 0x07, count: 4) + [UInt8](repeating: 0x61, count: 100), false),
    ([UInt8](repeating: 0x07, count: 6) + [UInt8](repeating: 0x61, count: 600), true),
    // Escape is text (coloured logs); DEL is not.
    ([UInt8](repeating: 0x1B, count: 8) + [UInt8](repeating: 0x61, count: 100), true),
    ([UInt8](repeating: 0x7F, count: 8) + [UInt8](repeating: 0x61, count: 100), false),
    ([], true),
  ]

  @Test(arguments: samples)
  func textIsToldFromBinary(_ bytes: [UInt8], _ isText: Bool) {
    #expect(TextDecoding.looksLikeText(bytes) == isText)
    // The same answer from `Data`'s bytes in place and from a collection without contiguous storage.
    #expect(TextDecoding.looksLikeText(Data(bytes)) == isText)
    #expect(TextDecoding.looksLikeText(bytes.lazy.map { $0 }) == isText)
  }
}
