import Foundation
import SearchlightTestSupport
import Testing
@testable import SearchIndex

func gzip(_ text: String) -> [UInt8] { GzipFixture.compress(Array(text.utf8)) }
func gzip(_ bytes: [UInt8]) -> [UInt8] { GzipFixture.compress(bytes) }

@Suite struct GzipTests {
  /// Deterministic bytes: text-like (compressible) or noise.
  static func bytes(_ count: Int, seed: UInt64, noise: Bool) -> [UInt8] {
    var state = seed
    let words = Array("the quick brown fox jumps over a lazy dog\n".utf8)
    return (0..<count).map { index in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return noise ? UInt8(truncatingIfNeeded: state >> 33) : words[(index + Int(state >> 60)) % words.count]
    }
  }

  @Test(arguments: [0, 1, 100, 65_535, 65_536, 300_000])
  func whatZlibCompressesComesBackWhole(_ count: Int) throws {
    for noise in [false, true] {
      let original = Self.bytes(count, seed: UInt64(count), noise: noise)
      let (bytes, complete) = try Gzip.decompress(Data(gzip(original)), limit: 1 << 20)
      #expect(bytes == original)
      #expect(complete)
    }
  }

  @Test func aLimitKeepsTheFirstBytesAndSaysThereWereMore() throws {
    let original = Self.bytes(200_000, seed: 3, noise: false)
    for limit in [0, 1, 65_536, 199_999] {
      let (bytes, complete) = try Gzip.decompress(Data(gzip(original)), limit: limit)
      #expect(bytes == Array(original.prefix(limit)))
      #expect(!complete)
    }
    #expect(try Gzip.decompress(Data(gzip(original)), limit: 200_000).complete)
  }

  @Test func membersOneAfterAnotherAreOneTextAndZeroPaddingIsIgnored() throws {
    let joined = gzip("first part\n") + gzip("second part\n") + [0, 0, 0, 0]
    #expect(try Gzip.decompress(Data(joined), limit: 1 << 20).bytes == Array("first part\nsecond part\n".utf8))
  }

  @Test func aCutShortOrForeignFileIsAnError() throws {
    let whole = gzip(Self.bytes(10_000, seed: 5, noise: true))
    let cut = Data(whole.prefix(whole.count / 2))
    #expect(throws: Gzip.Failure(message: "the compressed file is cut short")) { try Gzip.decompress(cut, limit: 1 << 20) }
    #expect(throws: Gzip.Failure(message: "the compressed file is cut short")) { try Gzip.decompress(Data(), limit: 1 << 20) }
    // The start of a file, for sniffing: as far as it goes, no error.
    let start = try Gzip.decompress(cut, limit: 1 << 20, partialInput: true)
    #expect(!start.complete)
    #expect(start.bytes == Array(Self.bytes(10_000, seed: 5, noise: true).prefix(start.bytes.count)))
    let failure = #expect(throws: Gzip.Failure.self) { try Gzip.decompress(Data("plain text, not gzip".utf8), limit: 1 << 20) }
    #expect(failure?.message.hasPrefix("not gzip data, or corrupt (") == true)
  }

  // MARK: Compressed documents

  func writeGzip(_ text: String, named name: String, in dir: URL) throws -> DocumentFile {
    let url = dir.appendingPathComponent(name)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(gzip(text)).write(to: url)
    return DocumentFile(path: url.path, identifier: name)
  }

  @Test(arguments: [
    ("README.md.gz", "# Title\nText\n", "MarkdownImporter"),
    ("changelog.Debian.gz", "pkg (1.0-1) unstable; urgency=low\n", "PlainTextImporter"),
    ("changelog.gz", "2026-12-01 Someone\n\tFixed it.\n", "PlainTextImporter"),
    ("NEWS.txt.GZ", "News\n", "PlainTextImporter"),
    ("page.html.gz", "<p>x", "HTMLImporter"),
    ("inbox.mbox.gz", "From a@b.org Tue Dec  1 09:00:00 2026\n", "MailboxImporter"),
    ("items.jsonl.gz", "{\"id\":\"a\"}\n", "no importer reads '.jsonl.gz' files"),
    ("items.gz", "{\"id\":\"a\"}\n", "no importer reads '.gz' files"),
    ("paper.pdf.gz", "%PDF-1.7\n", "no importer reads '.pdf.gz' files"),
    ("logo.png.gz", "x", "no importer reads '.png.gz' files"),
    ("backup.tar.gz", "x", "no importer reads '.tar.gz' files"),
    ("twice.txt.gz.gz", "x", "no importer reads '.gz.gz' files"),
    ("blob.gz", "a\u{0}b", "binary file (not text); not indexed"),
  ])
  func aCompressedFileIsJudgedByTheDocumentInside(_ name: String, _ text: String, _ expected: String) throws {
    try withTemporaryDirectory { dir in
      let file = try writeGzip(text, named: name, in: dir)
      switch try DocumentImporters.importer(for: file) {
      case .success(let importer): #expect("\(importer)" == expected)
      case .failure(let refusal): #expect(refusal.message == expected)
      }
    }
  }

  @Test func aFolderWalkTakesCompressedDocumentsAndPassesOverCompressedArchivesAndItems() throws {
    try withTemporaryDirectory { dir in
      for name in ["a.md.gz", "changelog.gz", "b.tar.gz", "c.jsonl.gz", "d.pdf.gz", "e.gz.gz", "f.png.gz"] {
        _ = try writeGzip("x\n", named: name, in: dir)
      }
      let reader = ItemReader(decoder: ItemDecoder(catalog: AttributeCatalog()))
      #expect(try reader.files(at: dir.path).map(\.identifier) == ["a.md.gz", "changelog.gz"])
    }
  }

  @Test func compressedNotesAreReadDecompressedAndNamedByTheFile() throws {
    try withTemporaryDirectory { dir in
      _ = try writeGzip("---\nrating: 4\n---\n# Release notes\nFixed the parser.\n", named: "docs/NOTES.md.gz", in: dir)
      _ = try writeGzip("pkg (1.0-1) unstable; urgency=low\n\n  * First upload.\n", named: "docs/changelog.Debian.gz", in: dir)
      _ = try writeGzip("Plain text.\n", named: "docs/hello.txt.gz", in: dir)
      var reader = ItemReader(decoder: ItemDecoder(catalog: AttributeCatalog()))
      var items: [SearchableItem] = []
      for file in try reader.files(at: dir.path) {
        try reader.read(file) { item, _, _ in items.append(item) }
      }
      #expect(items.map(\.uniqueIdentifier) == ["docs/NOTES.md.gz", "docs/changelog.Debian.gz", "docs/hello.txt.gz"])
      #expect(items.map { $0.attributeSet["title"] } == [.string("Release notes"), .string("changelog.Debian (docs)"), .string("hello")])
      #expect(items[0].attributeSet["rating"] == .number(4))
      #expect(items[0].attributeSet["textContent"] == .string("Fixed the parser."))
      #expect(items[1].attributeSet["textContent"] == .string("pkg (1.0-1) unstable; urgency=low\n\n  * First upload."))
      #expect(items[2].attributeSet["displayName"] == .string("hello.txt.gz"))
    }
  }

  @Test func aCompressedNoteIsLimitedByItsDecompressedSize() throws {
    try withTemporaryDirectory { dir in
      let file = try writeGzip(String(repeating: "a", count: 1000), named: "big.txt.gz", in: dir)
      #expect(throws: IngestError(file: file.path, line: nil, message: "the note is larger than 10 bytes")) {
        try file.contents(atMost: 10, what: "note")
      }
      #expect(try file.contents(atMost: 1000, what: "note").count == 1000)
      let corrupt = dir.appendingPathComponent("bad.txt.gz")
      try Data(gzip("some text").prefix(12)).write(to: corrupt)
      #expect(throws: IngestError(file: corrupt.path, line: nil, message: "the compressed file is cut short")) {
        try DocumentFile(path: corrupt.path, identifier: "bad.txt.gz").contents(atMost: 100, what: "note")
      }
    }
  }
}
