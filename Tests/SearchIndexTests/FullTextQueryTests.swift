import Testing
import Foundation
@testable import SearchIndex

/// FTS5 strings built from words: quotes doubled, NUL bytes (which end an FTS5 query) as spaces.
@Suite struct FullTextQueryTests {
  @Test(arguments: [
    ("word", "\"word\""), ("say \"hi\"", "\"say \"\"hi\"\"\""), ("\"", "\"\"\"\""), ("a\u{0}b", "\"a b\""), ("", "\"\""),
    ("zürich \"x\"\u{0}", "\"zürich \"\"x\"\" \""),
  ])
  func quoted(_ text: String, _ expected: String) {
    #expect(FullTextQuery.quoted(text) == expected)
  }

  @Test func quotedWordsMatchThroughFTS5() throws {
    try withTemporaryDirectory { directory in
      let index = try SearchIndex(path: directory.appendingPathComponent("index.db").path)
      try index.indexSearchableItems([item("1", domain: "d", [("title", .string("say \"hello\" to zürich"))])])
      let queries = ["hello", "say \"hello", "zurich", "absent\u{0}word"].map(FullTextQuery.quoted)
      #expect(try index.itemCounts(matching: queries, scope: AccessScope()) == [1, 1, 1, 0])
    }
  }
}
