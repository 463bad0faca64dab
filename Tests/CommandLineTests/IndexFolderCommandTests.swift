import Foundation
import Testing
@testable import SearchIndex

/// `searchlight index` over a folder of real documents (`Tests/Fixtures/documents/`): the good
/// files are indexed in one run, the bad ones reported and counted.
@Suite struct IndexFolderCommandTests {
  static let documents = fixtures.appendingPathComponent("documents").path

  @Test func aFolderWithBadFilesIndexesTheGoodOnesAndReportsTheBad() throws {
    try Workspace.with { workspace in
      let result = try workspace.run("index", "--db", "docs.db", "--domain", "docs", Self.documents)
      #expect(result.status == 0, "\(result)")
      #expect(result.stderr == """
        warning: \(Self.documents)/broken.jsonl:2: attribute 'rating' is a number, got a string
        warning: \(Self.documents)/firmware: binary file (not text); not indexed

        """)
      #expect(result.stdout.hasPrefix("indexed 5 items from 5 files; 2 skipped; into docs.db (default) in "), "\(result)")
      let index = try SearchIndex(path: workspace.path("docs.db"), create: false)
      let items = try index.allItems()
      #expect(items.map(\.uniqueIdentifier) == ["NEWS", "README", "hyphen-key.md", "linked-title.md", "setext.md"])
      #expect(items.allSatisfy { $0.domainIdentifier == "docs" })
      let titles = items.map { $0.attributeSet["title"]?.stringValue ?? "" }
      #expect(titles == ["NEWS", "README", "Theming", "libcbor manual", "libcbor"])
      #expect(try index.catalog().customTypes == ["SPDX_License_Identifier": .string, "hide_toc": .bool])
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
