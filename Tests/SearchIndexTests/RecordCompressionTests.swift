import Foundation
import Testing
@testable import SearchIndex

/// Stored records compressed with a dictionary trained once per file (`RecordCodec`,
/// `RecordDictionaryBuilder`): the file reads as one written without compression, records
/// written before the dictionary are compressed when it arrives, protected and expiring items
/// never train it, and a damaged record is an error that `check` reports, not a crash.
@Suite struct RecordCompressionTests {
  static let training = 20

  static func items(_ range: Range<Int>, protection: String? = nil, expiration: Date? = nil) -> [SearchableItem] {
    range.map { number in
      SearchableItem(
        uniqueIdentifier: "i\(number)", domainIdentifier: number % 3 == 0 ? "trails" : "notes",
        expirationDate: expiration, protectionClass: protection,
        attributeSet: AttributeSet([
          ("title", .string(["Mist Trail", "half dome", "Angels Landing", "Élan"][number % 4] + " \(number)")),
          ("rating", .number(Double(number % 7) / 2)),
          ("keywords", .list([.string("k\(number % 4)"), .string("granite")])),
          ("textContent", .string("A long walk past the falls, item \(number), with granite views and switchbacks.")),
        ]))
    }
  }

  /// (rowid, storage class, first four bytes) of every record.
  static func storage(_ index: SearchIndex) throws -> [(rowid: Int64, type: String, head: [UInt8])] {
    try index.read { db in
      try db.rows("SELECT rowid, typeof(attributes), substr(attributes, 1, 4) FROM items ORDER BY rowid") {
        ($0.int64(0), $0.string(1) ?? "", Array($0.blob(2).prefix(4)))
      }
    }
  }

  static func dictionary(_ index: SearchIndex) throws -> [UInt8]? {
    try index.read { db in
      switch try db.scalar("SELECT value FROM meta WHERE key = ?", [.text(RecordCodec.dictionaryKey)]) {
      case nil: nil
      case .blob(let bytes)?: bytes
      default: []
      }
    }
  }

  static func open(_ directory: URL, _ name: String) throws -> SearchIndex {
    try SearchIndex(path: directory.appendingPathComponent(name).path)
  }

  @Test func aWriteThatReachesTheSampleCompressesEveryRecordAndReadsAsBefore() throws {
    try withTemporaryDirectory { directory in
      let compressed = try Self.open(directory, "compressed.db")
      let plain = try Self.open(directory, "plain.db")
      try RecordDictionaryBuilder.$trainingRecords.withValue(Self.training) {
        try compressed.indexSearchableItems(Self.items(0..<50))
      }
      try RecordDictionaryBuilder.$trainingRecords.withValue(.max) {
        try plain.indexSearchableItems(Self.items(0..<50))
      }
      #expect(try Self.dictionary(plain) == nil)
      #expect(try Self.storage(plain).allSatisfy { $0.type == "text" && $0.head.first == UInt8(ascii: "{") })
      #expect(try !(Self.dictionary(compressed) ?? []).isEmpty)
      let stored = try Self.storage(compressed)
      #expect(stored.count == 50)
      // The records written before the dictionary was trained are compressed too.
      #expect(stored.allSatisfy { $0.type == "blob" && $0.head == RecordCodec.frameMagic })
      let bytes = try compressed.read { db in try db.scalar("SELECT sum(length(attributes)) FROM items")?.int64Value ?? 0 }
      let json = try plain.read { db in try db.scalar("SELECT sum(length(attributes)) FROM items")?.int64Value ?? 0 }
      #expect(bytes * 2 < json)

      #expect(try compressed.allItems() == plain.allItems())
      #expect(try compressed.item(withIdentifier: "i7") == plain.item(withIdentifier: "i7"))
      #expect(try compressed.checkIntegrity().isHealthy)
      // The full-text index is derived from the records again, and answers as before.
      #expect(try compressed.rebuildFullTextIndex() == 50)
      #expect(try compressed.checkIntegrity().isHealthy)
      let keyword = try compressed.read { db in try db.scalar("SELECT count(*) FROM fts WHERE fts MATCH 'switchbacks'")?.int64Value }
      #expect(keyword == 50)
    }
  }

  /// `sl_member` reads one string of a record as `json_extract` of `sl_record` does, from
  /// compressed and plain records alike: members, list elements, and NULL for a member that is
  /// missing or not a string, an element past the list's end, or a scalar asked for an element.
  @Test func aMemberReadsAsJSONExtractOfTheRecord() throws {
    try withTemporaryDirectory { directory in
      let compressed = try Self.open(directory, "compressed.db")
      let plain = try Self.open(directory, "plain.db")
      var items = Self.items(0..<30)
      items[3].attributeSet["textContent"] = .string(String(repeating: "line \"quoted\" é 😀\n\t", count: 2_000))
      try RecordDictionaryBuilder.$trainingRecords.withValue(Self.training) { try compressed.indexSearchableItems(items) }
      try RecordDictionaryBuilder.$trainingRecords.withValue(.max) { try plain.indexSearchableItems(items) }
      let cases: [(name: String, ord: Int64, path: String)] = [
        ("title", -1, "$.title"), ("textContent", -1, "$.textContent"), ("keywords", 0, "$.keywords[0]"), ("keywords", 1, "$.keywords[1]"),
        ("keywords", 2, "$.keywords[2]"), ("keywords", -1, "$.missing"), ("rating", -1, "$.missing"), ("missing", -1, "$.missing"),
        ("title", 0, "$.missing"),
      ]
      for index in [compressed, plain] {
        try index.read { db in
          for (name, ord, path) in cases {
            let sql = "SELECT count(*), sum(sl_member(attributes, ?, ?) IS json_extract(sl_record(attributes), ?)), count(sl_member(attributes, ?, ?)) FROM items"
            let row = try db.rows(sql, [.text(name), .integer(ord), .text(path), .text(name), .integer(ord)]) { ($0.int64(0), $0.int64(1), $0.int64(2)) }[0]
            #expect(row.0 == 30 && row.1 == 30, "\(name)[\(ord)] against \(path)")
            #expect((row.2 == 0) == (path == "$.missing" || path == "$.keywords[2]"), "\(name)[\(ord)]")
          }
        }
      }
    }
  }

  @Test func rewritesDeletesAndUnchangedItemsReadTheCompressedRecord() throws {
    try withTemporaryDirectory { directory in
      let index = try Self.open(directory, "index.db")
      try RecordDictionaryBuilder.$trainingRecords.withValue(Self.training) {
        try index.indexSearchableItems(Self.items(0..<30))
        // The same items again: every stored record is compared (decompressed) and kept.
        var kept = 0
        try index.write { writer in
          for item in Self.items(0..<30) where try !writer.upsert(item) { kept += 1 }
        }
        #expect(kept == 30)
        // A rewrite deletes the old text from the contentless full-text index, which takes
        // the old record's texts.
        var changed = Self.items(4..<5)[0]
        changed.attributeSet["textContent"] = .string("rewritten with quartz")
        try index.indexSearchableItems([changed])
        _ = try index.deleteSearchableItems(withIdentifiers: ["i5"])
      }
      let counts = try index.read { db in
        (try db.scalar("SELECT count(*) FROM fts WHERE fts MATCH 'switchbacks'")?.int64Value,
         try db.scalar("SELECT count(*) FROM fts WHERE fts MATCH 'quartz'")?.int64Value)
      }
      #expect(counts.0 == 28 && counts.1 == 1)
      #expect(try index.item(withIdentifier: "i4")?.attributeSet["textContent"] == .string("rewritten with quartz"))
      #expect(try Self.storage(index).allSatisfy { $0.type == "blob" })
      #expect(try index.checkIntegrity().isHealthy)
    }
  }

  @Test func smallWritesGetTheDictionaryWhenTheFileHoldsEnough() throws {
    try withTemporaryDirectory { directory in
      let index = try Self.open(directory, "index.db")
      try RecordDictionaryBuilder.$trainingRecords.withValue(Self.training) {
        try index.indexSearchableItems(Self.items(0..<8))
        try index.indexSearchableItems(Self.items(8..<16))
        #expect(try Self.dictionary(index) == nil)
        #expect(try Self.storage(index).allSatisfy { $0.type == "text" })
        try index.indexSearchableItems(Self.items(16..<24))
      }
      #expect(try Self.dictionary(index) != nil)
      #expect(try Self.storage(index).allSatisfy { $0.type == "blob" })
      #expect(try index.allItems() == Self.items(0..<24).sorted { $0.uniqueIdentifier < $1.uniqueIdentifier })
    }
  }

  @Test func protectedAndExpiringItemsNeverTrainTheDictionary() throws {
    try withTemporaryDirectory { directory in
      let index = try Self.open(directory, "index.db")
      let marker = "zqxsecretmarkerzqx"
      var hidden = Self.items(100..<140, protection: "complete") + Self.items(200..<240, expiration: Date().addingTimeInterval(86_400))
      for offset in hidden.indices { hidden[offset].attributeSet["title"] = .string("\(marker) \(offset)") }
      try RecordDictionaryBuilder.$trainingRecords.withValue(Self.training) {
        try index.indexSearchableItems(hidden)
        // Eighty records, none of which may train it: no dictionary yet.
        #expect(try Self.dictionary(index) == nil)
        try index.indexSearchableItems(Self.items(0..<Self.training))
      }
      let dictionary = try #require(try Self.dictionary(index))
      #expect(!dictionary.isEmpty)
      #expect(!dictionary.containsSubsequence(Array(marker.utf8.prefix(8))))
      // The hidden items' records are compressed with it like any other.
      #expect(try Self.storage(index).allSatisfy { $0.type == "blob" })
      #expect(try index.item(withIdentifier: "i100")?.attributeSet["title"] == .string("\(marker) 0"))
    }
  }

  @Test func aWriteThatFailsLeavesNoDictionaryBehind() throws {
    struct Stop: Error {}
    try withTemporaryDirectory { directory in
      let index = try Self.open(directory, "index.db")
      try RecordDictionaryBuilder.$trainingRecords.withValue(Self.training) {
        #expect(throws: Stop.self) {
          try index.write { writer in
            for item in Self.items(0..<30) { try writer.upsert(item) }
            throw Stop()
          }
        }
        #expect(try Self.dictionary(index) == nil)
        // The next write on the same connections must not compress with the rolled-back
        // dictionary: a handful of items stays JSON and reads back.
        try index.indexSearchableItems(Self.items(0..<5))
      }
      #expect(try Self.storage(index).allSatisfy { $0.type == "text" })
      #expect(try index.allItems().count == 5)
      #expect(try index.checkIntegrity().isHealthy)
    }
  }

  @Test func recordsThatDoNotShrinkStayJSON() throws {
    try withTemporaryDirectory { directory in
      let index = try Self.open(directory, "index.db")
      try RecordDictionaryBuilder.$trainingRecords.withValue(Self.training) {
        try index.indexSearchableItems(Self.items(0..<30) + [item("empty")])
      }
      let stored = try Self.storage(index)
      #expect(stored.filter { $0.type == "text" }.map(\.head) == [Array("{}".utf8)])
      #expect(try index.item(withIdentifier: "empty")?.attributeSet.isEmpty == true)
    }
  }

  @Test func aVersion6FileIsCompressedByItsNextWrite() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("v6.db").path
      try RecordDictionaryBuilder.$trainingRecords.withValue(.max) {
        try SearchIndex(path: path).indexSearchableItems(Self.items(0..<30))
      }
      // What version 6 wrote: the same tables and the ranked index's forward lists, every
      // record JSON, no dictionary.
      do {
        let db = try Connection(path: path)
        try db.execute("""
          UPDATE meta SET value = 6 WHERE key = 'schemaVersion';
          CREATE TABLE rk_docs(doc INTEGER PRIMARY KEY, indexId INTEGER NOT NULL, terms BLOB NOT NULL);
          INSERT INTO rk_docs SELECT rowid, indexId, x'01' FROM items;
          """)
      }
      let before = try SearchIndex(path: path, readOnly: true).allItems()
      try RecordDictionaryBuilder.$trainingRecords.withValue(Self.training) {
        let index = try SearchIndex(path: path)
        #expect(try Self.storage(index).allSatisfy { $0.type == "text" })
        try index.indexSearchableItems(Self.items(30..<31))
        #expect(try index.read { db in try Schema.storedVersion(db) } == Schema.version)
        #expect(try index.read { db in try db.scalar("SELECT 1 FROM sqlite_master WHERE name = 'rk_docs'") } == nil)
        #expect(try Self.storage(index).allSatisfy { $0.type == "blob" })
        #expect(try index.allItems().filter { $0.uniqueIdentifier != "i30" } == before)
        #expect(try index.checkIntegrity().isHealthy)
      }
    }
  }

  @Test func aDamagedRecordIsReportedNotACrash() throws {
    try withTemporaryDirectory { directory in
      let index = try Self.open(directory, "index.db")
      try RecordDictionaryBuilder.$trainingRecords.withValue(Self.training) {
        try index.indexSearchableItems(Self.items(0..<30))
      }
      do {
        // A valid frame header over garbage, and a frame cut short.
        let writer = try Connection(path: directory.appendingPathComponent("index.db").path)
        try writer.execute("UPDATE items SET attributes = X'28B52FFD2040' || randomblob(40) WHERE id = 'i3'")
        try writer.execute("UPDATE items SET attributes = substr(attributes, 1, length(attributes) - 5) WHERE id = 'i4'")
      }
      #expect(throws: SearchIndexError.self) { try index.item(withIdentifier: "i3") }
      #expect(throws: SearchIndexError.self) { try index.item(withIdentifier: "i4") }
      #expect(try index.item(withIdentifier: "i5") != nil)
      // `check` shows each line as its check ends: the same lines, in order, once each.
      var streamed: [String] = []
      let report = try index.checkIntegrity { streamed.append($0) }
      #expect(!report.isHealthy)
      #expect(streamed == report.lines)
      #expect(report.lines.contains { $0.hasPrefix("records: item i3 does not decode") })
      let damaged = try index.read { db in try SearchIndex.recordsThatDoNotDecode(db) }
      #expect(damaged.map(\.id) == ["i3", "i4"])
      #expect(damaged.allSatisfy { $0.message.contains("decompress") || $0.message.contains("content size") })
    }
  }

  /// A folder of documents has records of megabytes: a sample keeps the first kilobytes of
  /// each, and such records compress and read back whole.
  @Test func largeRecordsTrainFromTheirFirstKilobytesAndReadBackWhole() throws {
    let huge = String(repeating: "granite switchbacks above the valley ", count: 2_000)
    #expect(RecordDictionaryBuilder.sample(Array(huge.utf8)).count == RecordDictionaryBuilder.sampleBytes)
    #expect(RecordDictionaryBuilder.sample(Array("{}".utf8)) == Array("{}".utf8))
    try withTemporaryDirectory { directory in
      let index = try Self.open(directory, "index.db")
      var items = Self.items(0..<30)
      for offset in items.indices { items[offset].attributeSet["textContent"] = .string("\(offset) " + huge) }
      try RecordDictionaryBuilder.$trainingRecords.withValue(Self.training) {
        try index.indexSearchableItems(items)
      }
      #expect(try Self.storage(index).allSatisfy { $0.type == "blob" })
      #expect(try index.item(withIdentifier: "i29")?.attributeSet["textContent"] == .string("29 " + huge))
      #expect(try index.checkIntegrity().isHealthy)
    }
  }

  @Test func trainingOnTooLittleGivesAnEmptyDictionaryThatStillReads() throws {
    #expect(RecordCodec.train([Array("{}".utf8)]).isEmpty)
    try withTemporaryDirectory { directory in
      let index = try Self.open(directory, "index.db")
      let tiny = (0..<30).map { item("t\($0)", [("rating", .number(Double($0)))]) }
      try RecordDictionaryBuilder.$trainingRecords.withValue(Self.training) {
        try index.indexSearchableItems(tiny)
      }
      #expect(try Self.dictionary(index) != nil)
      #expect(try index.allItems().map(\.uniqueIdentifier).sorted() == tiny.map(\.uniqueIdentifier).sorted())
      #expect(try index.item(withIdentifier: "t7")?.attributeSet["rating"] == .number(7))
    }
  }
}

extension Array where Element: Equatable {
  fileprivate func containsSubsequence(_ needle: [Element]) -> Bool {
    guard !needle.isEmpty, needle.count <= count else { return needle.isEmpty }
    return (0...(count - needle.count)).contains { Array(self[$0..<($0 + needle.count)]) == needle }
  }
}
