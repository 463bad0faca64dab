import Foundation
import Testing
@testable import SearchIndex

/// What a folder delivered (`source_state`, written through `IndexWriter.recordDelivered`):
/// the rows of one file are found through the primary key, and the items of files that leave
/// are deleted unless another file or source still delivers them.
@Suite struct FolderRecordsTests {
  static let source = "folder:/notes"

  func keys(_ writer: IndexWriter) throws -> [String: [String]] {
    try writer.delivered(source: Self.source).mapValues(\.identifiers)
  }

  @Test func aFilesRowsAreFoundByTheirKeyRangeAndNoOtherFilesAre() throws {
    try withTemporaryDirectory { directory in
      let index = try SearchIndex(path: directory.appendingPathComponent("i.db").path)
      try index.write { writer in
        try writer.recordDelivered(source: Self.source, key: "a.md", version: "1", identifiers: ["a"])
        // "a.md\tb.md" sorts inside "a.md"'s key range, before its second item "a.md\n2".
        try writer.recordDelivered(source: Self.source, key: "a.md\tb.md", version: "1", identifiers: ["tab"])
        try writer.recordDelivered(source: Self.source, key: "a.mdx", version: "1", identifiers: ["x"])
        try writer.recordDelivered(source: Self.source, key: "list.mbox", version: "1", identifiers: ["m1", "m2", "m3"])
        try writer.recordDelivered(source: Self.source, key: "a.md", version: "2", identifiers: ["a", "a2"])
        try writer.recordDelivered(source: Self.source, key: "list.mbox", version: "2", identifiers: ["m1"])
        #expect(try keys(writer) == ["a.md": ["a", "a2"], "a.md\tb.md": ["tab"], "a.mdx": ["x"], "list.mbox": ["m1"]])
        try writer.recordDelivered(source: Self.source, key: "a.md", version: "", identifiers: [])
        #expect(try keys(writer) == ["a.md\tb.md": ["tab"], "a.mdx": ["x"], "list.mbox": ["m1"]])

        let plan = try writer.db.rows(
          "EXPLAIN QUERY PLAN " + IndexWriter.deliveredRowsDeletion,
          [.integer(1), .text(Self.source), .text("a.md"), .text("a.md\u{B}"), .text("a.md"), .text("a.md\n")]
        ) { $0.string(3) ?? "" }.joined(separator: "\n")
        #expect(plan.contains("USING PRIMARY KEY (indexId=? AND source=? AND sourceKey>? AND sourceKey<?)"), "\(plan)")
      }
    }
  }

  @Test func itemsOfFilesThatLeaveAreDeletedOnceUnlessStillDelivered() throws {
    try withTemporaryDirectory { directory in
      let index = try SearchIndex(path: directory.appendingPathComponent("i.db").path)
      try index.write { writer in
        for id in ["a", "b", "shared", "secret"] {
          _ = try writer.upsert(item(id, domain: "notes", protection: id == "secret" ? "vault" : nil, [("title", .string(id))]))
        }
        try writer.recordDelivered(source: Self.source, key: "a.md", version: "1", identifiers: ["a"])
        try writer.recordDelivered(source: Self.source, key: "b.md", version: "1", identifiers: ["b", "secret"])
        try writer.recordDelivered(source: "folder:/other", key: "s.md", version: "1", identifiers: ["shared"])
        // Both files leave together; "shared" is named twice and another folder delivers it.
        try writer.recordDelivered(source: Self.source, key: "a.md", version: "", identifiers: [])
        try writer.recordDelivered(source: Self.source, key: "b.md", version: "", identifiers: [])
        let visible = try writer.deleteUndelivered(["a", "shared", "b", "secret", "a"], now: Date())
        #expect(visible == ["a", "b"])
      }
      #expect(try index.allItems().map(\.uniqueIdentifier) == ["shared"])
    }
  }
}
