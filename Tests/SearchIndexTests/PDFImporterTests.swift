import Foundation
import Testing
@testable import SearchIndex

/// PDF files through poppler's `pdftotext`. Under CI (`CI=true`) pdftotext must be installed
/// (`.ci/run` installs poppler-utils), so the extraction is really tested there.
@Suite struct PDFImporterTests {
  static var hasPdftotext: Bool { ExternalTool.find("pdftotext") != nil }

  @Test func pdftotextIsInstalledUnderCI() {
    if ProcessInfo.processInfo.environment["CI"] == "true" {
      #expect(Self.hasPdftotext, "CI must install poppler-utils: the PDF importer is untested without pdftotext")
    }
  }

  @Test func aPDFGivesItsTextTitleAuthorAndPages() throws {
    guard Self.hasPdftotext else {
      // Without poppler-utils the file is refused with a warning naming the package.
      #expect(throws: IngestError(
        file: DocumentFixtures.file("report.pdf").path, line: nil,
        message: "pdftotext is not installed (install poppler-utils to index PDF files); not indexed")) {
        _ = try DocumentFixtures.read("report.pdf")
      }
      return
    }
    let (items, warnings) = try DocumentFixtures.read("report.pdf")
    #expect(warnings.isEmpty)
    let item = try #require(items.first)
    #expect(item.uniqueIdentifier == "report.pdf")
    #expect(item.contentType == "document")
    #expect(item.attributeSet["title"] == .string("Searchlight PDF fixture"))
    #expect(item.attributeSet["textContent"] == .string("Quarterly Report\nSearchlight indexes portable documents.\nKangaroo statistics improved."))
    #expect(item.attributeSet["authorNames"] == .list([.string("Ada Lovelace")]))
    #expect(item.attributeSet["pageCount"] == .number(1))
    #expect(item.attributeSet["contentCreationDate"] == .date(utc(2026, 12, 1, 9, 30)))
  }

  @Test func aDamagedPDFIsRefusedWithAReason() throws {
    try withTemporaryDirectory { dir in
      let path = try writeFile("%PDF-1.4\nthis is not a PDF body\n", named: "broken", in: dir)
      var reader = ItemReader(decoder: ItemDecoder(catalog: AttributeCatalog()))
      let file = DocumentFile(path: path, identifier: "broken")
      #expect("\(try DocumentImporters.importer(for: file).get())" == "PDFImporter")
      do {
        try reader.read(file) { _, _, _ in Issue.record("a damaged PDF gave an item") }
        Issue.record("a damaged PDF was read")
      } catch let error as IngestError {
        #expect(error.file == path)
        let reason = Self.hasPdftotext ? "pdftotext could not read the PDF: " : "pdftotext is not installed (install poppler-utils"
        #expect(error.message.hasPrefix(reason), "\(error)")
      }
    }
  }

  @Test func aToolThatRunsTooLongIsStopped() throws {
    let sleep = try #require(ExternalTool.find("sleep"))
    let start = Date()
    #expect(throws: ExternalTool.Failure.self) { _ = try ExternalTool.run(sleep, ["10"], timeout: 0.3, outputLimit: 100) }
    #expect(Date().timeIntervalSince(start) < 5)
  }

  @Test func outputPastTheLimitIsCut() throws {
    let yes = try #require(ExternalTool.find("yes"))
    let output = try ExternalTool.run(yes, ["searchlight"], timeout: 10, outputLimit: 10_000)
    #expect(output.truncated)
    #expect(output.bytes.count == 10_000)
  }

  @Test func aMissingToolIsNotFound() {
    #expect(ExternalTool.find("searchlight-no-such-tool") == nil)
  }
}
