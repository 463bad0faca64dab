import Foundation
import Testing
@testable import SearchIndex

/// A delete or rewrite takes the retired document's terms from the texts of its record (the
/// file keeps no forward lists since schema version 7): the tokens FTS5's delete emits,
/// versions written twice in one transaction, mass deletes in bounded memory, and a document
/// retired without its texts.
@Suite struct RankedRemovalTests {
  /// Rewrites and deletes reuse the tokens FTS5's tokenizer emits for the delete: no text is
  /// analysed a second time.
  @Test func deletesAndRewritesTakeTheTokensOfTheFullTextDelete() throws {
    let fixture = try RankedTestIndex()
    var generator = RandomItems(seed: 5, vocabularySize: 200)
    try fixture.upsert((0..<60).map { generator.item("item-\($0)") })
    var reanalysed = -1
    let rewritten = (0..<20).map { generator.item("item-\($0)") }
    let doomed = try (40..<50).compactMap { try fixture.rowid("item-\($0)") }
    try fixture.index.write { writer in
      for item in rewritten { try writer.upsert(item) }
      _ = try writer.delete(identifiers: (40..<50).map { "item-\($0)" })
      reanalysed = writer.ranked.reanalysedColumns
    }
    #expect(reanalysed == 0)
    try fixture.refresh(rewritten.map(\.uniqueIdentifier))
    fixture.deleteFromModel(doomed)
    #expect(try fixture.consistencyProblems() == [])
    for _ in 0..<6 { try fixture.expectExact(generator.query(), k: generator.k(), "after rewrites") }
  }

  /// One transaction writes an item three times, deletes it, writes others twice and deletes
  /// them, with intermediate flushes between some of the steps: the retired version is
  /// always the stored one.
  @Test(arguments: [400, 1_000_000])
  func versionsWrittenSeveralTimesInOneTransactionRetireTheStoredOne(_ flushThreshold: Int) throws {
    try RankedWriter.$flushThreshold.withValue(flushThreshold) {
      let fixture = try RankedTestIndex()
      var generator = RandomItems(seed: 11, vocabularySize: 150)
      try fixture.upsert((0..<80).map { generator.item("item-\($0)") })
      var last: [String: SearchableItem] = [:]
      // Items 0, 1 and 2 are deleted (and 0 and 1 written again under new rowids).
      let replaced = try (0..<3).map { try #require(try fixture.rowid("item-\($0)")) }
      try fixture.index.write { writer in
        for round in 0..<3 {
          for number in 0..<30 {
            let item = generator.item("item-\(number)")
            try writer.upsert(item)
            last[item.uniqueIdentifier] = item
          }
          _ = try writer.delete(identifiers: ["item-\(round)"])
          last["item-\(round)"] = nil
        }
        for number in 80..<100 {
          let item = generator.item("item-\(number)")
          try writer.upsert(item)
          last[item.uniqueIdentifier] = item
        }
        _ = try writer.delete(identifiers: ["item-85", "item-86"])
        last["item-85"] = nil
        last["item-86"] = nil
      }
      fixture.deleteFromModel(replaced)
      try fixture.refresh(last.keys.sorted())
      #expect(try fixture.consistencyProblems() == [])
      for _ in 0..<6 { try fixture.expectExact(generator.query(), k: generator.k(), "flush every \(flushThreshold)") }
    }
  }

  /// Items edited as apps edit them (words appended to the text, a title changed, a text
  /// cut short, one item edited twice and one edited then deleted, with and without
  /// intermediate flushes): a rewritten item keeps the stored postings whose frequencies did
  /// not change while no field they occur in grew shorter, and the index stays exact (every
  /// bound still bounds its live postings; every answer is the reference model's).
  @Test(arguments: [300, 1_000_000])
  func anEditedItemKeepsThePostingsThatDidNotChange(_ flushThreshold: Int) throws {
    try RankedWriter.$flushThreshold.withValue(flushThreshold) {
      let fixture = try RankedTestIndex()
      var generator = RandomItems(seed: 41, vocabularySize: 160)
      let originals = (0..<90).map { generator.item("item-\($0)") }
      try fixture.upsert(originals)
      func edited(_ item: SearchableItem, _ change: (inout AttributeSet) -> Void) -> SearchableItem {
        var attributes = item.attributeSet
        change(&attributes)
        return SearchableItem(uniqueIdentifier: item.uniqueIdentifier, domainIdentifier: item.domainIdentifier, attributeSet: attributes)
      }
      var last: [String: SearchableItem] = [:]
      var kept = 0
      let deleted = try #require(try fixture.rowid("item-5"))
      try fixture.index.write { writer in
        for (number, item) in originals.enumerated().prefix(60) {
          let text = item.attributeSet["textContent"]?.stringValue ?? ""
          let version: SearchableItem
          switch number % 4 {
          case 0: version = edited(item) { $0["textContent"] = .string(text + " " + generator.words(1...4)) }
          case 1: version = edited(item) { $0["title"] = .string(generator.words(1...6)) }
          case 2: version = edited(item) { $0["textContent"] = .string(String(text.prefix(text.count / 2))) }
          default: version = edited(item) { $0["contentDescription"] = .string(generator.words(1...8)) }
          }
          try writer.upsert(version)
          last[item.uniqueIdentifier] = version
          if number % 10 == 3 {
            // Edited again in the same write: the stored version is still the one retired.
            let again = edited(version) { $0["textContent"] = .string(generator.words(2...30)) }
            try writer.upsert(again)
            last[item.uniqueIdentifier] = again
          }
        }
        _ = try writer.delete(identifiers: ["item-5"])
        last["item-5"] = nil
        kept = writer.ranked.documentsKeepingPostings
      }
      #expect(kept > 0, "no rewrite kept a posting")
      fixture.deleteFromModel([deleted])
      try fixture.refresh(last.keys.sorted())
      #expect(try fixture.consistencyProblems() == [])
      let report = try fixture.index.checkIntegrity()
      #expect(report.isHealthy, "\(report.lines)")
      for _ in 0..<12 { try fixture.expectExact(generator.query(), k: generator.k(), "after edits, flush every \(flushThreshold)") }
    }
  }

  /// Five writes of random edits (words added or dropped, a new title, the text emptied or
  /// given back, keywords changed), deletes and re-adds, some items edited twice in a write,
  /// with flushes forced every few postings and every few retired documents (so a flush often
  /// falls between an item's retire and its new version): after each write the index is
  /// consistent and exact.
  @Test func randomEditsInManyWritesStayExact() throws {
    try RankedWriter.$flushThreshold.withValue(250) {
      try RankedWriter.$retiredBeforeFlush.withValue(6) {
        let fixture = try RankedTestIndex()
        var generator = RandomItems(seed: 43, vocabularySize: 120)
        var current = Dictionary(uniqueKeysWithValues: (0..<70).map { ("item-\($0)", generator.item("item-\($0)")) })
        try fixture.upsert(current.keys.sorted().map { current[$0]! })
        var kept = 0
        for round in 0..<5 {
          var deletedRowids: [Int64] = []
          var touched: Set<String> = []
          try fixture.index.write { writer in
            for number in 0..<70 where Int.random(in: 0..<3, using: &generator.random) == 0 {
              let id = "item-\(number)"
              let edits = Int.random(in: 0..<5, using: &generator.random) == 0 ? 2 : 1
              for _ in 0..<edits {
                var attributes = current[id]?.attributeSet ?? generator.item(id).attributeSet
                let text = attributes["textContent"]?.stringValue ?? ""
                switch Int.random(in: 0..<6, using: &generator.random) {
                case 0: attributes["textContent"] = .string(text + " " + generator.words(1...5))
                case 1: attributes["textContent"] = .string(text.split(separator: " ").dropLast(3).joined(separator: " "))
                case 2: attributes["title"] = .string(generator.words(1...6))
                case 3: attributes["textContent"] = nil
                case 4: attributes["keywords"] = .list([.string(generator.word())])
                default: attributes["contentDescription"] = .string(generator.words(0...6))
                }
                let item = SearchableItem(uniqueIdentifier: id, domainIdentifier: "test", attributeSet: attributes)
                try writer.upsert(item)
                current[id] = item
                touched.insert(id)
              }
              if Int.random(in: 0..<12, using: &generator.random) == 0, let rowid = try fixture.rowid(id) {
                _ = try writer.delete(identifiers: [id])
                current[id] = nil
                deletedRowids.append(rowid)
              }
            }
            kept += writer.ranked.documentsKeepingPostings
          }
          fixture.deleteFromModel(deletedRowids)
          try fixture.refresh(touched.sorted())
          #expect(try fixture.consistencyProblems() == [], "round \(round)")
          for _ in 0..<5 { try fixture.expectExact(generator.query(), k: generator.k(), "round \(round)") }
        }
        #expect(kept > 0, "no edit kept a posting")
        let report = try fixture.index.checkIntegrity()
        #expect(report.isHealthy, "\(report.lines)")
      }
    }
  }

  /// A delete of many items flushes whenever it holds `retiredBeforeFlush` retired documents.
  @Test func massDeletesFlushAsTheyGo() throws {
    try RankedWriter.$retiredBeforeFlush.withValue(7) {
      let fixture = try RankedTestIndex()
      var generator = RandomItems(seed: 23, vocabularySize: 200)
      try fixture.upsert((0..<200).map { generator.item("item-\($0)") })
      try fixture.delete((0..<200).filter { $0 % 3 != 0 }.map { "item-\($0)" })
      #expect(try fixture.consistencyProblems() == [])
      for _ in 0..<6 { try fixture.expectExact(generator.query(), k: generator.k(), "after the mass delete") }
      try fixture.upsert((0..<50).map { generator.item("item-\($0 * 2)") })
      #expect(try fixture.consistencyProblems() == [])
      for _ in 0..<4 { try fixture.expectExact(generator.query(), k: generator.k(), "after re-adding") }
    }
  }

  /// A mass delete that flushes as it goes (and removes its items in chunks) compacts once,
  /// at its end, so no tombstone is left; it reports its steps in order: the items removed
  /// chunk by chunk up to all of them, the compaction's postings up to all of them, then the
  /// commit.
  @Test func aMassDeleteCompactsOnceAtItsEndAndReportsEachStep() throws {
    try RankedWriter.$retiredBeforeFlush.withValue(7) {
      try IndexWriter.$deletionChunk.withValue(9) {
        let fixture = try RankedTestIndex()
        var generator = RandomItems(seed: 31, vocabularySize: 200)
        try fixture.upsert((0..<200).map { generator.item("item-\($0)") })
        let doomed = (0..<200).filter { $0 % 3 != 0 }.map { "item-\($0)" }
        let rowids = try doomed.compactMap(fixture.rowid)
        var reports: [MaintenanceProgress] = []
        let deleted = try fixture.index.deleteSearchableItems(withIdentifiers: doomed) { reports.append($0) }
        fixture.deleteFromModel(rowids)
        #expect(deleted == doomed.count)
        #expect(try fixture.index.read { db in try fixture.index.rankedStatistics(in: db)?.tombstones } == 0)
        #expect(try fixture.consistencyProblems() == [])
        let report = try fixture.index.checkIntegrity()
        #expect(report.isHealthy, "\(report.lines)")
        for _ in 0..<4 { try fixture.expectExact(generator.query(), k: generator.k(), "after the mass delete") }

        // The steps, each once and in order.
        var steps: [MaintenanceProgress.Phase] = []
        for report in reports where steps.last != report.phase { steps.append(report.phase) }
        #expect(steps == [.removingItems, .compactingRankedIndex, .committing])
        let removing = reports.filter { $0.phase == .removingItems }
        #expect(removing.map(\.done) == Array(stride(from: 0, to: doomed.count, by: 9)) + [doomed.count])
        #expect(removing.allSatisfy { $0.total == doomed.count })
        let compacting = reports.filter { $0.phase == .compactingRankedIndex }
        #expect(zip(compacting, compacting.dropFirst()).allSatisfy { $0.done <= $1.done && $0.total == $1.total })
        #expect(compacting.first?.done == 0)
        #expect(compacting.last.map { $0.done == $0.total && $0.total > 0 } == true)
      }
    }
  }

  /// Deleting every item in chunks: the full-text and ranked indexes are emptied at once, the
  /// rows go chunk by chunk, and the file checks healthy with nothing left.
  @Test func deletingEveryItemInChunksLeavesAHealthyEmptyIndex() throws {
    try IndexWriter.$deletionChunk.withValue(4) {
      let fixture = try RankedTestIndex()
      var generator = RandomItems(seed: 37, vocabularySize: 80)
      try fixture.upsert((0..<30).map { generator.item("item-\($0)") })
      var items: [Int] = []
      #expect(try fixture.index.deleteAllSearchableItems { if $0.phase == .removingItems { items.append($0.done) } } == 30)
      #expect(items == [0, 4, 8, 12, 16, 20, 24, 28, 30])
      #expect(try fixture.index.allItems().isEmpty)
      let report = try fixture.index.checkIntegrity()
      #expect(report.isHealthy, "\(report.lines)")
      #expect(try fixture.ranked(generator.query(), k: 5).isEmpty)
    }
  }

  /// A stored document indexed again without its old texts (no caller of the writer does
  /// this) cannot have its postings found: the ranked index is built again from the records.
  @Test func aDocumentRetiredWithoutItsTextsRebuildsFromTheRecords() throws {
    let fixture = try RankedTestIndex()
    var generator = RandomItems(seed: 29, vocabularySize: 120)
    try fixture.upsert((0..<40).map { generator.item("item-\($0)") })
    let rowid = try #require(try fixture.rowid("item-7"))
    try fixture.index.write { writer in
      try writer.ranked.index(rowid, columns: ["zzunrecorded", "", "", "", ""])
    }
    // The records did not change, so neither do the answers; the stray text is nowhere.
    #expect(try fixture.consistencyProblems() == [])
    #expect(try fixture.ranked([QueryTerm("zzunrecorded")], k: 5).isEmpty)
    for _ in 0..<4 { try fixture.expectExact(generator.query(), k: generator.k(), "after the rebuild") }
  }
}
