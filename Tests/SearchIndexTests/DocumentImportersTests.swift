import Foundation
import Testing
@testable import SearchIndex

@Suite struct DocumentImportersTests {
  func importer(_ name: String, _ text: String) throws -> String {
    try withTemporaryDirectory { dir in
      _ = try writeFile(text, named: name, in: dir)
      let file = DocumentFile(path: dir.appendingPathComponent(name).path, identifier: name)
      switch try DocumentImporters.importer(for: file) {
      case .success(let importer): return "\(importer)"
      case .failure(let refusal): return refusal.message
      }
    }
  }

  @Test(arguments: [
    ("notes.md", "# T", "MarkdownImporter"),
    ("notes.markdown", "# T", "MarkdownImporter"),
    ("notes.txt", "{\"id\":1}", "PlainTextImporter"),
    ("items.jsonl", "not json", "JSONItemsImporter"),
    ("items", "{\"id\":\"a\"}\n", "JSONItemsImporter"),
    ("array", " [\n  {\"id\":\"a\"}\n]", "JSONItemsImporter"),
    ("empty-array", "[]", "JSONItemsImporter"),
    ("README", "[![build](b.svg)](ci) Project\n", "PlainTextImporter"),
    ("INSTALL", "Run make.\n", "PlainTextImporter"),
    ("README.Debian", "Notes\n", "PlainTextImporter"),
    ("page.html", "plain words", "HTMLImporter"),
    ("page.XHTML", "<x/>", "HTMLImporter"),
    ("index", "<!doctype html><p>x", "HTMLImporter"),
    ("message.eml", "anything", "EmailImporter"),
    ("message", "From: a@b.org\nSubject: hi\n\nbody", "EmailImporter"),
    ("copyright", "Format: https://x\nUpstream-Name: y\n", "PlainTextImporter"),
    ("inbox.mbox", "", "MailboxImporter"),
    ("Inbox", "From a@b.org Tue Dec  1 09:00:00 2026\nFrom: a@b.org\nDate: 1 Dec 2026 09:00 +0000\n\nx", "MailboxImporter"),
    ("paper.pdf", "", "PDFImporter"),
    ("paper", "%PDF-1.7\n", "PDFImporter"),
    ("picture.png", "text after all", "no importer reads '.png' files"),
    ("blob", "a\u{0}b", "binary file (not text); not indexed"),
  ])
  func importersAreChosenByExtensionThenByContent(_ name: String, _ text: String, _ expected: String) throws {
    #expect(try importer(name, text) == expected)
  }

  @Test func aFolderWalkSkipsHiddenFilesAndFormatsNoImporterReads() throws {
    try withTemporaryDirectory { dir in
      for name in ["README", "a.md", "b.png", ".hidden", ".git/config", "sub/NEWS", "c.tar.gz"] {
        _ = try writeFile("x\n", named: name, in: dir)
      }
      let reader = ItemReader(decoder: ItemDecoder(catalog: AttributeCatalog()))
      #expect(try reader.files(at: dir.path).map(\.identifier) == ["README", "a.md", "sub/NEWS"])
    }
  }

  @Test(arguments: [
    ("hide-toc", "hide_toc"),
    ("SPDX-License-Identifier", "SPDX_License_Identifier"),
    ("a  b..c", "a_b_c"),
    ("-leading", "leading"),
    ("2nd-pass", "_2nd_pass"),
    ("café", "cafe"),
    ("x-", "x"),
  ])
  func invalidKeysAreNormalisedToValidNames(_ key: String, _ name: String) throws {
    #expect(NoteFields.attributeName(normalising: key) == name)
    try AttributeCatalog.validateCustomName(name)
  }

  @Test(arguments: ["---", "'--'", "kMD-thing", "日本"])
  func keysWithNothingValidLeftAreNotNormalised(_ key: String) {
    #expect(NoteFields.attributeName(normalising: key) == nil)
  }

  @Test func checkingRejectsWhatTheWriterWouldAndDeclaresInferredTypes() throws {
    var checker = ItemChecker(catalog: AttributeCatalog())
    try checker.check(item("a", [("pages", .number(3))]))
    #expect(checker.catalog.type(of: "pages") == .number)
    #expect(throws: ItemDecodingError("attribute 'pages' is number, got string")) {
      try checker.check(item("b", [("pages", .string("many"))]))
    }
    #expect(throws: ItemDecodingError("empty identifier")) { try checker.check(item("", [])) }
  }
}
