import Foundation
import Testing
@testable import SearchIndex

/// The `searchlight` FTS5 tokenizer inside SQLite: what MATCH finds once items are indexed.
@Suite struct FTS5TokenizerTests {
  /// Ids of the items whose `fts` row matches `query` (an FTS5 query string), best bm25 first.
  func matches(_ index: SearchIndex, _ query: String) throws -> [String] {
    try index.read { db in
      try db.rows(
        "SELECT i.id FROM fts JOIN items i ON i.rowid = fts.rowid WHERE fts MATCH ? ORDER BY bm25(fts), i.id",
        [.text(query)]
      ) { $0.string(0) ?? "" }
    }
  }

  func note(_ id: String, _ title: String, _ text: String = "") -> SearchableItem {
    item(id, [("title", .string(title)), ("textContent", .string(text))])
  }

  @Test func chineseJapaneseAndKoreanSentencesAreFoundByAWord() throws {
    try withTemporaryDirectory { directory in
      let index = try SearchIndex(path: directory.appendingPathComponent("cjk.db").path)
      try index.indexSearchableItems([
        note("zh", "旅行计划", "我们下个月去北京参观天安门和故宫。"),
        note("ja", "出張メモ", "来週は東京で新しいスイーツの店を取材します。"),
        note("ko", "여행 메모", "서울은 한국의 수도입니다. 다음 주에 방문합니다."),
        note("en", "Trip notes", "Beijing, Tokyo and Seoul next year."),
      ])
      #expect(try matches(index, "\"北京\"") == ["zh"])
      #expect(try matches(index, "\"天安门\"") == ["zh"])
      #expect(try matches(index, "\"東京\"") == ["ja"])
      #expect(try matches(index, "\"スイーツ\"") == ["ja"])
      #expect(try matches(index, "\"서울\"") == ["ko"])
      #expect(try matches(index, "\"수도\"") == ["ko"])
      // Characters of a word in the wrong order, or spanning a sentence break, do not match.
      #expect(try matches(index, "\"京北\"").isEmpty)
      #expect(try matches(index, "\"门和故\"") == ["zh"])
      #expect(try matches(index, "\"국한\"").isEmpty)
      #expect(try matches(index, "\"tokyo\"") == ["en"])
    }
  }

  @Test func stemmedQueriesFindEveryFormAndExactFormsRankFirst() throws {
    try withTemporaryDirectory { directory in
      let index = try SearchIndex(path: directory.appendingPathComponent("stems.db").path)
      try index.indexSearchableItems([
        note("exact", "Connected sensors", "The sensors are connected to the hub."),
        note("other", "Connection report", "Sensors keep connecting and disconnecting from the hub."),
        note("none", "Battery report", "The hub runs on batteries."),
      ])
      // An exact query matches the written form only.
      #expect(try matches(index, "\"connected\"") == ["exact"])
      // A stemmed query (the marker before the word) matches every word with the same stem.
      #expect(Set(try matches(index, "\"\u{1}connected\"")) == ["exact", "other"])
      // Asking for both, as the planner does, ranks the exact form above the other forms.
      #expect(try matches(index, "\"connected\" OR \"\u{1}connected\"") == ["exact", "other"])
      #expect(try matches(index, "\"\u{1}battery\"") == ["none"])
    }
  }

  @Test func camelCasePartsAndApostrophesAreWords() throws {
    try withTemporaryDirectory { directory in
      let index = try SearchIndex(path: directory.appendingPathComponent("words.db").path)
      try index.indexSearchableItems([
        note("class", "Refactor MyWindowClass"),
        note("ns", "NSWindow frames"),
        note("irish", "O’Brien's garden"),
      ])
      #expect(try matches(index, "\"window\"") == ["class"])
      #expect(try matches(index, "\"mywindowclass\"") == ["class"])
      #expect(try matches(index, "\"nswindow\"") == ["ns"])
      #expect(try matches(index, "\"obriens\"") == ["irish"])
      #expect(try matches(index, "\"\u{1}obrien\"") == ["irish"])
      // Prefix queries see camelCase parts too.
      #expect(try matches(index, "\"wind\"*") == ["class"])
    }
  }

  @Test func aVersionOneFileIsRetokenizedWhenOpenedForWriting() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("v1.db").path
      do {
        let index = try SearchIndex(path: path)
        try index.indexSearchableItems([note("a", "Refactor MyWindowClass", "Sensors connected")])
      }
      // Turn the file back into what version 1 wrote: unicode61 and schemaVersion 1.
      do {
        let db = try Connection(path: path)
        try db.execute("""
          CREATE VIRTUAL TABLE fts_old USING fts5(title, keywords, description, body, other,
            tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');
          INSERT INTO fts_old(rowid, title, body) SELECT rowid, 'Refactor MyWindowClass', 'Sensors connected' FROM items;
          DROP TABLE fts;
          ALTER TABLE fts_old RENAME TO fts;
          UPDATE meta SET value = 1 WHERE key = 'schemaVersion';
          """)
        #expect(try db.scalar("SELECT count(*) FROM fts WHERE fts MATCH 'window'")?.int64Value == 0)
      }
      let index = try SearchIndex(path: path)
      #expect(try matches(index, "\"window\"") == ["a"])
      #expect(try matches(index, "\"\u{1}connect\"") == ["a"])
      let version = try index.read { db in try db.scalar("SELECT value FROM meta WHERE key = 'schemaVersion'")?.int64Value }
      #expect(version == Int64(Schema.version))
      let sql = try index.read { db in try db.scalar("SELECT sql FROM sqlite_master WHERE name = 'fts'")?.stringValue }
      #expect(sql?.contains("tokenize = 'searchlight'") == true)
    }
  }

  @Test func positionsGroupColocatedTokens() {
    let analyzer = TextAnalyzer(stemming: true)
    #expect(analyzer.positions("MyWindow connected", mode: .document) == [
      ["mywindow", "my", "window"], ["connected", "\u{1}connect"],
    ])
    #expect(analyzer.positions("MyWindow connected", mode: .query) == [["mywindow"], ["connected"]])
  }
}
