import Foundation
import Testing
@testable import SearchIndex

/// The ranked index built from the tokens FTS5's tokenizer records while it indexes an
/// item (`TokenCapture`) is the index built by analysing the texts again: same terms, same
/// postings, same lengths, through adds, updates, deletes and queries.
@Suite struct SharedAnalysisTests {
  /// The logical content of the stored ranked index, by term text (ids differ between
  /// builds): every live document's lengths and terms, and every term's live postings.
  struct Content {
    var documents: [DocID: (lengths: [Int], terms: [String])] = [:]
    var postings: [String: [DocID: [UInt32]]] = [:]
    var documentFrequencies: [String: Int] = [:]

    /// The first few ways `self` and `other` differ, empty when they hold the same.
    func differences(from other: Content) -> [String] {
      var found: [String] = []
      for doc in Set(documents.keys).union(other.documents.keys).sorted() {
        let (a, b) = (documents[doc], other.documents[doc])
        if a?.lengths != b?.lengths || a?.terms != b?.terms {
          found.append("doc \(doc): \(a.map { "\($0.lengths) \($0.terms)" } ?? "absent") vs \(b.map { "\($0.lengths) \($0.terms)" } ?? "absent")")
        }
      }
      for term in Set(postings.keys).union(other.postings.keys).sorted() where postings[term] != other.postings[term] {
        found.append("postings of '\(term)' differ")
      }
      for term in Set(documentFrequencies.keys).union(other.documentFrequencies.keys).sorted()
      where documentFrequencies[term] != other.documentFrequencies[term] {
        found.append("df of '\(term)': \(documentFrequencies[term] ?? 0) vs \(other.documentFrequencies[term] ?? 0)")
      }
      return Array(found.prefix(8))
    }
  }

  static func content(of index: SearchIndex) throws -> Content {
    try index.read { db in
      let fieldCount = RankedSchema.parameters.fieldCount
      var documents = DocumentTable(fieldCount: fieldCount)
      for (number, bytes) in try db.rows(
        "SELECT page, data FROM rk_pages WHERE indexId = ?", [.integer(index.indexID)], { ($0.int64(0), $0.blob(1)) })
      {
        documents.install(try #require(DocumentPage.decode(number: number, fieldCount: fieldCount, bytes: bytes)))
      }
      let texts = Dictionary(
        uniqueKeysWithValues: try db.rows("SELECT id, term, df FROM rk_terms WHERE indexId = ?", [.integer(index.indexID)]) {
          (TermID($0.int64(0)), ($0.string(1) ?? "", Int($0.int64(2))))
        })
      var content = Content()
      // Each live document's terms, from the posting lists that hold it.
      var termsOfDocument: [DocID: [String]] = [:]
      let store = RankedStore(db: db, indexID: index.indexID)
      for (id, (text, df)) in texts {
        if df > 0 { content.documentFrequencies[text] = df }
        for block in try store.postingList(id).blocks {
          let postings = BlockCodec.decode(block, fieldCount: fieldCount)
          for i in 0..<postings.count where documents.contains(postings.docs[i]) {
            content.postings[text, default: [:]][postings.docs[i]] = Array(postings.frequencies(at: i))
            termsOfDocument[postings.docs[i], default: []].append(text)
          }
        }
      }
      for (doc, terms) in termsOfDocument {
        content.documents[doc] = (try #require(documents.fieldLengths(of: doc)), terms.sorted())
      }
      return content
    }
  }

  @Test(arguments: [UInt64(1), 2])
  func capturedTokensBuildTheIndexReanalysisBuilds(seed: UInt64) throws {
    let fixture = try RankedTestIndex()
    var generator = RandomItems(seed: seed, vocabularySize: 300)
    var next = 0
    func newItems(_ count: Int) -> [SearchableItem] {
      (0..<count).map { _ in
        next += 1
        return generator.item("item-\(next)")
      }
    }
    func existing() -> String { "item-\(Int.random(in: 1...next, using: &generator.random))" }
    try fixture.upsert(newItems(300))
    for step in 0..<6 {
      try fixture.index.write { writer in
        // Adds, updates (some with their text unchanged), deletes and FTS5 queries on the
        // writer's connection, all in one transaction.
        for item in newItems(20) { try writer.upsert(item) }
        for _ in 0..<15 { try writer.upsert(generator.item(existing())) }
        let unchanged = try #require(try writer.db.rows(
          "SELECT i.id, f.title FROM items i JOIN fts f ON f.rowid = i.rowid WHERE i.indexId = ? LIMIT 3",
          [.integer(fixture.index.indexID)]) { ($0.string(0) ?? "", $0.string(1) ?? "") }.first)
        try writer.upsert(SearchableItem(uniqueIdentifier: unchanged.0, domainIdentifier: "test", attributeSet: AttributeSet([("title", .string(unchanged.1))])))
        _ = try writer.db.rows("SELECT rowid FROM fts WHERE fts MATCH ?", [.text("trail OR \"\u{1}connect\"")]) { $0.int64(0) }
        _ = try writer.delete(identifiers: (0..<8).map { _ in existing() })
        for item in newItems(5) { try writer.upsert(item) }
        // Every text went through FTS5's tokenizer, so none was analysed twice.
        #expect(writer.ranked.reanalysedColumns == 0, "step \(step)")
      }
    }
    let shared = try Self.content(of: fixture.index)
    #expect(shared.documents.count > 300)
    // Rebuilding analyses every text again.
    try fixture.index.rebuildRankedIndex()
    let reanalysed = try Self.content(of: fixture.index)
    #expect(shared.differences(from: reanalysed) == [])
    #expect(shared.postings.count == reanalysed.postings.count)
  }

  /// The same bytes can be a whole 64-letter word (which has a stem) or the first 64
  /// letters of a longer word (cut at the token limit: no stem). The stem recorded for a
  /// term must not be applied to a cut occurrence, and the other way round.
  @Test func aWordCutAtTheTokenLimitKeepsNoStemWhenAWholeWordWithTheSameLettersHasOne() throws {
    let whole = String(repeating: "walk", count: 15) + "ings"
    #expect(whole.utf8.count == TextAnalyzer.maxTokenBytes)
    let cut = whole + "zzzzzz"
    for order in [[cut, whole], [whole, cut]] {
      let fixture = try RankedTestIndex()
      try fixture.upsert(order.enumerated().map { index, title in
        SearchableItem(uniqueIdentifier: "item-\(index)", attributeSet: AttributeSet([("title", .string("hiking " + title))]))
      })
      #expect(try fixture.consistencyProblems() == [])
      let stemmed = try #require(RankedAnalysis.queryTerms(of: "\u{1}" + whole)).map { QueryTerm($0) }
      let hits = try fixture.expectExact(stemmed, k: 5, "stem of the whole word, \(order.map(\.count))")
      #expect(hits.count == 1)
      try fixture.expectExact([QueryTerm(whole)], k: 5, "the word, \(order.map(\.count))")
    }
  }
}

/// `PendingDocuments`: the documents a ranked writer holds until it flushes.
@Suite struct PendingDocumentsTests {
  func keys(_ pairs: [(TermID, Int)]) -> [UInt64] { pairs.map { PostingKey.make(term: $0.0, field: UInt64($0.1)) }.sorted() }

  func snapshot(_ pending: PendingDocuments) -> [(DocID, [Int], [TermID], [UInt32])] {
    pending.entriesInOrder().map { entry in
      pending.withTerms { terms, frequencies in
        let range = pending.termRange(of: entry)
        return (
          pending.doc(of: entry), pending.lengths(of: entry), Array(terms[range]),
          Array(frequencies[(range.lowerBound * 2)..<(range.upperBound * 2)])
        )
      }
    }
  }

  @Test func holdsTheLatestVersionOfEachDocumentInRowidOrder() {
    var pending = PendingDocuments(fieldCount: 2)
    func add(_ doc: DocID, _ pairs: [(TermID, Int)]) {
      keys(pairs).withUnsafeBufferPointer { pending.add(doc, lengths: [pairs.count, 1], keys: $0) }
    }
    add(5, [(7, 0), (7, 0), (3, 1)])
    add(9, [(1, 0)])
    #expect(pending.postingCount == 3)
    #expect(snapshot(pending).map(\.0) == [5, 9])
    #expect(snapshot(pending)[0].2 == [3, 7])
    #expect(snapshot(pending)[0].3 == [0, 1, 2, 0])
    // Out of order, replaced and removed.
    add(2, [(4, 1)])
    add(5, [(8, 0)])
    pending.remove(9)
    #expect(!pending.contains(9) && pending.contains(5))
    #expect(pending.postingCount == 2)
    let after = snapshot(pending)
    #expect(after.map(\.0) == [2, 5])
    #expect(after[1].1 == [1, 1] && after[1].2 == [8] && after[1].3 == [1, 0])
    pending.removeAll()
    #expect(pending.isEmpty && pending.postingCount == 0 && pending.entriesInOrder().isEmpty)
  }
}
