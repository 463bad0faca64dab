import Foundation
import Testing
@testable import SearchIndex

/// `searchlight index` over a folder of real documents (`Tests/Fixtures/documents/`): the good
/// files are indexed in one run, the bad ones reported and counted.
@Suite struct IndexFolderCommandTests {
  static let documents = fixtures.appendingPathComponent("documents").path

  /// Whether poppler's pdftotext is installed; `.ci/run` installs it, and `PDFImporterTests`
  /// fails under CI without it.
  static let hasPdftotext = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
    FileManager.default.isExecutableFile(atPath: "\($0)/pdftotext")
  }

  @Test func aFolderWithBadFilesIndexesTheGoodOnesAndReportsTheBad() throws {
    try Workspace.with { workspace in
      let result = try workspace.run("index", "--db", "docs.db", "--domain", "docs", Self.documents)
      #expect(result.status == 0, "\(result)")
      let pdfWarning = Self.hasPdftotext
        ? "" : "warning: \(Self.documents)/report.pdf: pdftotext is not installed (install poppler-utils to index PDF files); not indexed\n"
      #expect(result.stderr == """
        warning: \(Self.documents)/broken.jsonl:2: attribute 'rating' is a number, got a string
        warning: \(Self.documents)/firmware: binary file (not text); not indexed

        """ + pdfWarning)
      let summary = Self.hasPdftotext ? "indexed 13 items from 11 files; 2 skipped; " : "indexed 12 items from 10 files; 3 skipped; "
      #expect(result.stdout.hasPrefix(summary + "into docs.db (default) in "), "\(result)")
      let index = try SearchIndex(path: workspace.path("docs.db"), create: false)
      let items = try index.allItems()
      let pdf = Self.hasPdftotext ? ["report.pdf"] : []
      #expect(items.map(\.uniqueIdentifier) == [
        "NEWS", "README", "empty.txt", "hyphen-key.md", "linked-title.md", "list.mbox#1", "list.mbox#2", "list.mbox#3",
        "meeting.eml",
      ] + pdf + ["setext.md", "terminal.txt", "tmux.html"])
      #expect(items.allSatisfy { $0.domainIdentifier == "docs" })
      let titles = items.map { $0.attributeSet["title"]?.stringValue ?? "" }
      #expect(titles == [
        "NEWS", "README", "empty", "Theming", "libcbor manual", "First message", "Re: First message ✓", "Latin-1 body",
        "Réunion café ☕ à jeudi",
      ] + (Self.hasPdftotext ? ["Searchlight PDF fixture"] : []) + ["libcbor", "terminal", "tmux & screen – a comparison"])
      let types = Dictionary(uniqueKeysWithValues: items.map { ($0.uniqueIdentifier, $0.contentType ?? "") })
      #expect(types["tmux.html"] == "document")
      #expect(types["meeting.eml"] == "email")
      #expect(types["list.mbox#2"] == "email")
      #expect(try index.catalog().customTypes == [
        "SPDX_License_Identifier": .string, "attachmentNames": .stringList, "hide_toc": .bool,
      ])
    }
  }

  @Test func eachDocumentFormatIsFoundByAQuery() throws {
    try Workspace.with { workspace in
      try FileManager.default.createDirectory(atPath: workspace.path("docs"), withIntermediateDirectories: true)
      for name in ["tmux.html", "meeting.eml", "list.mbox", "report.pdf"] {
        try workspace.write("docs/\(name)", bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(Self.documents)/\(name)"))))
      }
      let result = try workspace.run("index", "--db", "docs.db", "docs")
      #expect(result.status == 0, "\(result)")
      if Self.hasPdftotext {
        #expect(result.stderr == "", "\(result)")
        #expect(result.stdout.hasPrefix("indexed 6 items from 4 files; 0 skipped; "), "\(result)")
      } else {
        #expect(result.stdout.hasPrefix("indexed 5 items from 3 files; 1 skipped; "), "\(result)")
      }
      for (words, id) in [("multiplexers", "tmux.html"), ("quarterly", "meeting.eml"), ("rabbits", "list.mbox#1")]
        + (Self.hasPdftotext ? [("kangaroo", "report.pdf")] : [])
      {
        let found = try workspace.run("query", "--db", "docs.db", "--format", "json", "--", "search \"\(words)\"")
        #expect(found.status == 0, "\(found)")
        #expect(found.stdout.contains(id), "\(words): \(found)")
      }
      // Script text and attachments are not indexed.
      for hidden in ["scriptword", "nothing"] {
        let script = try workspace.run("query", "--db", "docs.db", "--format", "json", "--", "search \"\(hidden)\"")
        #expect(script.status == 0, "\(script)")
        #expect(!script.stdout.contains(".html") && !script.stdout.contains(".eml"), "\(hidden): \(script)")
      }
    }
  }

  /// A folder of manual pages, as `man1/` holds them: each page an item titled by its name;
  /// an alias (`.so`) is read and gives none.
  @Test func aFolderOfManualPagesIsIndexedByName() throws {
    try Workspace.with { workspace in
      let pages = fixtures.appendingPathComponent("manpages").path
      let result = try workspace.run("index", "--db", "man.db", pages)
      #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
      #expect(result.stdout.hasPrefix("indexed 2 items from 3 files; 0 skipped; "), "\(result)")
      let found = try workspace.run("query", "--db", "man.db", "--", #"search "frobnication" | table title, contentDescription"#)
      #expect(found.status == 0, "\(found)")
      #expect(found.stdout.contains("frob   adjust the frobnication of files"), "\(found)")
      let mdoc = try workspace.run("query", "--db", "man.db", "--format", "json", "--", #"search title == "grab" | count"#)
      #expect(mdoc.stdout.contains(#""content":{"type":"count","count":1}"#), "\(mdoc)")
    }
  }

  @Test func withoutPdftotextAPDFIsSkippedWithOneWarningNamingPopplerUtils() throws {
    try Workspace.with { workspace in
      try FileManager.default.createDirectory(atPath: workspace.path("docs"), withIntermediateDirectories: true)
      try workspace.write("docs/report.pdf", bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(Self.documents)/report.pdf"))))
      try workspace.write("docs/note.md", "# Note\n")
      // An empty PATH: no pdftotext to be found.
      let result = try workspace.run(["index", "--db", "docs.db", "docs"], environment: ["PATH": workspace.path("no-tools")])
      #expect(result.status == 0, "\(result)")
      #expect(result.stderr == "warning: docs/report.pdf: pdftotext is not installed (install poppler-utils to index PDF files); not indexed\n")
      #expect(result.stdout.hasPrefix("indexed 1 item from 1 file; 1 skipped; "), "\(result)")
      let strict = try workspace.run(["index", "--db", "strict.db", "--strict", "docs"], environment: ["PATH": workspace.path("no-tools")])
      #expect(strict.status == 65, "\(strict)")
    }
  }

  @Test func garbageInEveryDocumentFormatIsSkippedOrReadButNeverCrashes() throws {
    try Workspace.with { workspace in
      try FileManager.default.createDirectory(atPath: workspace.path("junk"), withIntermediateDirectories: true)
      var generator = SystemRandomNumberGenerator()
      for name in ["a.html", "b.eml", "c.mbox", "d.pdf", "e.xhtml"] {
        try workspace.write("junk/\(name)", bytes: (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })
      }
      try workspace.write("junk/f.html", String(repeating: "<div><table><tr><td>", count: 20_000) + "deep")
      try workspace.write("junk/g.eml", "From: x@y\nContent-Type: multipart/mixed; boundary=\"\"\n\n--\n")
      try workspace.write("junk/h.mbox", "From nobody\n")
      let result = try workspace.run("index", "--db", "junk.db", "junk")
      #expect(result.exitedNormally, "\(result)")
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout.hasPrefix("indexed "), "\(result)")
      for line in result.stderr.split(separator: "\n") { #expect(line.hasPrefix("warning: junk/"), "\(line)") }
    }
  }

  @Test func withStrictTheFirstBadFileStopsTheRunAndNothingIsWritten() throws {
    try Workspace.with { workspace in
      let result = try workspace.run("index", "--db", "docs.db", "--strict", Self.documents)
      #expect(result.status == 65)
      #expect(result.stdout == "")
      let location = "\(Self.documents)/broken.jsonl:2"
      #expect(result.stderr == "error: \(location): attribute 'rating' is a number, got a string\n --> \(location)\n")
      #expect(!workspace.exists("docs.db"))
    }
  }

  /// A terminal log is indexed with its escapes and bells, which output shows as pictures.
  @Test func aDocumentsControlCharactersPrintAsPictures() throws {
    try Workspace.with { workspace in
      let indexed = try workspace.run("index", "--db", "docs.db", "\(Self.documents)/terminal.txt", "\(Self.documents)/empty.txt")
      #expect(indexed.status == 0, "\(indexed)")
      #expect(indexed.stdout.hasPrefix("indexed 2 items from 2 files; 0 skipped; "), "\(indexed)")
      let result = try workspace.run("query", "--db", "docs.db", "--", #"search "bell" | table title, textContent"#)
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout.contains("\u{241B}[2J\u{241B}[1mcleared"), "\(result.stdout)")
      #expect(result.stdout.contains("bell \u{2407} twice"), "\(result.stdout)")
      #expect(!result.stdout.contains("\u{1B}") && !result.stdout.contains("\u{07}"))
      let empty = try workspace.run("query", "--db", "docs.db", "--format", "json", "--", #"displayName == "empty.txt" | table title, fileSize"#)
      #expect(empty.status == 0, "\(empty)")
      #expect(empty.stdout.contains(#""rows":[["empty",0]]"#), "\(empty.stdout)")
    }
  }

  @Test func anExtensionlessFileNamedExplicitlyIsTextNotJSON() throws {
    try Workspace.with { workspace in
      let result = try workspace.run(
        "index", "--db", "docs.db", "\(Self.documents)/README", "\(Self.documents)/NEWS", "\(Self.documents)/firmware")
      #expect(result.status == 0, "\(result)")
      #expect(result.stderr == "warning: \(Self.documents)/firmware: binary file (not text); not indexed\n")
      #expect(result.stdout.hasPrefix("indexed 2 items from 2 files; 1 skipped; "))
      let index = try SearchIndex(path: workspace.path("docs.db"), create: false)
      #expect(try index.item(withIdentifier: "NEWS")?.attributeSet["textContent"] == .string("Version 2: café crème, naïve résumé."))
      #expect(try index.item(withIdentifier: "README")?.domainIdentifier == "notes")
    }
  }

  @Test func aDroppedFrontMatterKeyIsAWarningAndTheNoteIsKept() throws {
    try Workspace.with { workspace in
      try workspace.write("notes/odd.md", "---\n---x: 1\nkMDNope: 2\n---\n# Odd\n")
      let result = try workspace.run("index", "--db", "index.db", "--strict", "notes")
      #expect(result.status == 0, "\(result)")
      #expect(result.stderr == "warning: notes/odd.md:3: front-matter key 'kMDNope' is not a valid attribute name; dropped\n")
      #expect(result.stdout.hasPrefix("indexed 1 item from 1 file; 0 skipped; "))
      let item = try SearchIndex(path: workspace.path("index.db"), create: false).item(withIdentifier: "odd.md")
      #expect(item?.attributeSet["x"] == .number(1))
      #expect(item?.attributeSet["title"] == .string("Odd"))
    }
  }

  @Test func helpDescribesStrictAndTheSummary() throws {
    try Workspace.with { workspace in
      let help = try workspace.run("index", "--help")
      #expect(help.status == 0)
      #expect(help.stdout.contains("--strict"))
      #expect(help.stdout.contains("\n  warning: FILE:LINE: why\n"))
      #expect(help.stdout.contains("\n  indexed N items from M files; K skipped; "))
    }
  }
}
