import Foundation
import QueryEngine
import SearchlightTestSupport
import Stages
import Testing
@testable import SearchIndex

/// A `SearchIndex` in a temporary file plus an independent reference model of what its
/// ranked index must answer: BM25F over the TextAnalyzer tokens of each item's FTS5
/// columns (the texts the index is built from), with position counts as lengths.
final class RankedTestIndex {
  let path: String
  private(set) var index: SearchIndex
  private(set) var model = ReferenceModel(parameters: RankedSchema.parameters)

  init() throws {
    path = TemporaryFiles.database("ranked")
    index = try SearchIndex(path: path)
  }

  /// Opens the file again with a new `SearchIndex` (no cached state).
  func reopen() throws {
    index = try SearchIndex(path: path)
  }

  func upsert(_ items: [SearchableItem]) throws {
    try index.indexSearchableItems(items)
    try refresh(items.map(\.uniqueIdentifier))
  }

  func delete(_ identifiers: [String]) throws {
    let rowids = try identifiers.compactMap(rowid)
    try index.deleteSearchableItems(withIdentifiers: identifiers)
    for rowid in rowids { model.delete(rowid) }
  }

  /// Drops items deleted behind the fixture's back from the model.
  func deleteFromModel(_ rowids: [Int64]) {
    for rowid in rowids { model.delete(rowid) }
  }

  /// Re-reads the FTS5 rows of these items into the model.
  func refresh(_ identifiers: [String]) throws {
    try index.read { db in
      for identifier in identifiers {
        guard let rowid = try db.scalar("SELECT rowid FROM items WHERE id = ?", [.text(identifier)])?.int64Value else {
          continue
        }
        model.delete(rowid)
        guard let texts = try index.fullTextColumns(ofItems: [rowid])[rowid] else { continue }
        var fields: [[String]] = []
        var lengths: [Int] = []
        for text in texts {
          var tokens: [String] = []
          var positions = 0
          TextAnalyzer(stemming: true).tokenize(text, mode: .document) { token in
            if !token.colocated { positions += 1 }
            let text = token.token.text
            tokens.append(text)
            // The ranked index also holds the stem term of a word that is its own stem (FTS5's
            // analyzer writes none for it): every form of a word is one term there.
            if token.stemmable, PorterStemmer.stem(text) == text {
              tokens.append("\u{1}" + text)
            }
          }
          fields.append(tokens)
          lengths.append(positions)
        }
        if fields.contains(where: { !$0.isEmpty }) { model.upsert(id: rowid, fields: fields, lengths: lengths) }
      }
    }
  }

  func rowid(_ identifier: String) throws -> Int64? {
    try index.read { db in try db.scalar("SELECT rowid FROM items WHERE id = ?", [.text(identifier)])?.int64Value }
  }

  /// The ranked index's answer with `algorithm` (nil: exhaustive).
  func ranked(
    _ terms: [QueryTerm], k: Int, filter: CandidateFilter = .none, algorithm: RetrievalAlgorithm? = .automatic
  ) throws -> [SearchHit] {
    try index.read { db in
      try #require(try index.rankedSearch(terms, k: k, filter: filter, in: db, algorithm: algorithm))
    }
  }

  /// Expects every pruning algorithm to return exactly the exhaustive top k, and the
  /// exhaustive top k to agree with the reference model. Returns the exhaustive hits.
  @discardableResult
  func expectExact(
    _ terms: [QueryTerm], k: Int, allow: ((DocID) -> Bool)? = nil, _ label: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> [SearchHit] {
    let filter: CandidateFilter = allow.map { .predicate($0) } ?? .none
    let expected = try ranked(terms, k: k, filter: filter, algorithm: nil)
    for algorithm in RetrievalAlgorithm.allCases {
      let actual = try ranked(terms, k: k, filter: filter, algorithm: algorithm)
      #expect(actual == expected, "\(label) \(algorithm) k=\(k)", sourceLocation: sourceLocation)
    }
    let reference = model.search(terms, k: k, allow: allow ?? { _ in true })
    #expect(agreesWithReference(expected, reference), "\(label) reference k=\(k)\n\(expected.prefix(5))\n\(reference.prefix(5))",
            sourceLocation: sourceLocation)
    return expected
  }

  // MARK: - Query path

  static let registry = StandardLibrary.registry()

  /// Runs `query` through `QueryExecutor` and returns the items of its last reply, with
  /// the SQL the execution ran.
  /// The items of `query`; without `usingRankedIndex`, every text search through FTS5 alone
  /// (the reference the ranked paths must equal).
  func query(_ query: String, scope: AccessScope = AccessScope(now: RankedTestIndex.now), usingRankedIndex: Bool = true) throws -> [ResultItem] {
    let executor = QueryExecutor(index: index, registry: Self.registry)
    var options = QueryOptions(scope: scope, clock: QueryClock(now: Self.now, timeZone: TimeZone(identifier: "UTC")!))
    options.usesRankedIndex = usingRankedIndex
    var items: [ResultItem] = []
    try executor.run(query, options: options) { reply in items += reply.content.resultItems }
    return items
  }

  /// The explanation of `query` (to see which path it takes).
  func explain(_ query: String) throws -> String {
    let executor = QueryExecutor(index: index, registry: Self.registry)
    let options = QueryOptions(scope: AccessScope(now: Self.now), clock: QueryClock(now: Self.now, timeZone: TimeZone(identifier: "UTC")!))
    return try Explainer(executor: executor).explain(try executor.prepare(query, options: options), options: options)
  }

  static let now = ISO8601.parse("2026-11-29T12:00:00Z")!

  // MARK: - Consistency

  /// Structural checks of the stored ranked index against the items: the live
  /// documents are exactly the items with indexed text, document frequencies match
  /// the forward lists, blocks are well formed and every stored bound bounds the
  /// current pseudo-frequency of its live postings. Empty when consistent.
  func consistencyProblems() throws -> [String] {
    try index.read { db in
      var problems: [String] = []
      let indexID = index.indexID
      guard let stats = try RankedStore(db: db, indexID: indexID).statistics() else { return ["no statistics row"] }
      let fieldCount = RankedSchema.parameters.fieldCount
      // Pages: live documents and lengths.
      var documents = DocumentTable(fieldCount: fieldCount)
      for (number, bytes) in try db.rows("SELECT page, data FROM rk_pages WHERE indexId = ?", [.integer(indexID)], { ($0.int64(0), $0.blob(1)) }) {
        guard let page = DocumentPage.decode(number: number, fieldCount: fieldCount, bytes: bytes) else {
          problems.append("page \(number) malformed")
          continue
        }
        documents.install(page)
      }
      let expectedLive = Set(model.documents.keys)
      for doc in expectedLive where !documents.contains(doc) { problems.append("item \(doc) not live in pages") }
      if documents.count != expectedLive.count { problems.append("pages hold \(documents.count) live docs, expected \(expectedLive.count)") }
      if stats.documentCount != expectedLive.count { problems.append("N \(stats.documentCount) != \(expectedLive.count)") }
      var totals = Array(repeating: 0, count: fieldCount)
      var withField = Array(repeating: 0, count: fieldCount)
      for doc in expectedLive {
        let lengths = documents.fieldLengths(of: doc) ?? []
        if lengths != model.documents[doc]?.lengths { problems.append("lengths of \(doc) \(lengths) != \(model.documents[doc]?.lengths ?? [])") }
        for f in 0..<min(fieldCount, lengths.count) {
          totals[f] += lengths[f]
          if lengths[f] > 0 { withField[f] += 1 }
        }
      }
      if totals != stats.totalFieldLengths { problems.append("total lengths \(stats.totalFieldLengths) != \(totals)") }
      if withField != stats.fieldDocumentCounts { problems.append("documents per field \(stats.fieldDocumentCounts) != \(withField)") }
      let tombstones = try db.rows("SELECT doc FROM rk_dead WHERE indexId = ?", [.integer(indexID)]) { $0.int64(0) }
      if tombstones.count != stats.tombstones { problems.append("tombstone count \(stats.tombstones) != rows \(tombstones.count)") }
      let dead = Set(tombstones)
      let inflation = stats.basis?.inflation(currentAverages: stats.averageFieldLengths, parameters: RankedSchema.parameters) ?? 1
      let scorer = BM25FScorer(parameters: RankedSchema.parameters, averageFieldLengths: stats.averageFieldLengths)
      let terms = try db.rows("SELECT id, term, df FROM rk_terms WHERE indexId = ?", [.integer(indexID)]) {
        (TermID($0.int64(0)), $0.string(1) ?? "", Int($0.int64(2)))
      }
      for (id, text, storedDF) in terms {
        let list = try RankedStore(db: db, indexID: indexID).postingList(id)
        var previousLast = DocID.min
        var live = 0
        for block in list.blocks {
          if !(1...BlockCodec.capacity).contains(block.postingCount) { problems.append("'\(text)' block size \(block.count)") }
          if block.firstDoc <= previousLast { problems.append("'\(text)' blocks overlap") }
          previousLast = block.lastDoc
          let postings = BlockCodec.decode(block, fieldCount: fieldCount)
          if postings.docs.first != block.firstDoc || postings.docs.last != block.lastDoc { problems.append("'\(text)' header") }
          for i in 0..<postings.count {
            let doc = postings.docs[i]
            guard let lengths = documents.fieldLengths(of: doc) else {
              if !dead.contains(doc) { problems.append("'\(text)' keeps posting of \(doc), neither live nor a tombstone") }
              continue
            }
            live += 1
            var ptf = 0.0
            for f in 0..<fieldCount { ptf += Double(postings.frequency(at: i, field: f)) * scorer.norm(field: f, length: lengths[f]) }
            if ptf > Double(block.maxPseudoTF) * inflation * (1 + 1e-12) { problems.append("'\(text)' bound \(block.maxPseudoTF) < \(ptf)") }
          }
        }
        if live != storedDF { problems.append("'\(text)' live postings \(live) != df \(storedDF)") }
      }
      return problems
    }
  }
}

/// Items with random text in every FTS5 column, random states, ratings and dates, over
/// a skewed vocabulary that exercises folding, stems and camelCase parts.
struct RandomItems {
  var random: SplitMix64
  let vocabulary: [String]

  static let states = ["Oregon", "California", "Utah", "Colorado", "Washington"]

  init(seed: UInt64, vocabularySize: Int) {
    random = SplitMix64(seed: seed)
    let stems = ["connect", "run", "hike", "water", "fall", "trail", "budget", "launch", "wing", "flow"]
    let suffixes = ["", "s", "ing", "ed", "er", "ion", "ly"]
    var words: [String] = []
    for stem in stems { for suffix in suffixes { words.append(stem + suffix) } }
    words += ["Café", "naïve", "MyWindowClass", "über", "résumé", "O’Brien", "don't", "東京都"]
    var n = 0
    while words.count < vocabularySize {
      words.append("w\(n)")
      n += 1
    }
    vocabulary = words
  }

  /// A skewed word: cubing a uniform variate favours the first words.
  mutating func word() -> String {
    let u = Double.random(in: 0..<1, using: &random)
    return vocabulary[min(vocabulary.count - 1, Int(u * u * u * Double(vocabulary.count)))]
  }

  mutating func words(_ range: ClosedRange<Int>) -> String {
    (0..<Int.random(in: range, using: &random)).map { _ in word() }.joined(separator: " ")
  }

  mutating func item(_ id: String) -> SearchableItem {
    var attributes: [(String, AttributeValue)] = [("title", .string(words(1...6)))]
    if Bool.random(using: &random) {
      attributes.append(("keywords", .list((0..<Int.random(in: 1...3, using: &random)).map { _ in .string(word()) })))
    }
    if Int.random(in: 0..<3, using: &random) == 0 { attributes.append(("contentDescription", .string(words(0...10)))) }
    if Int.random(in: 0..<5, using: &random) > 0 { attributes.append(("textContent", .string(words(0...40)))) }
    if Int.random(in: 0..<4, using: &random) == 0 { attributes.append(("subject", .string(words(1...5)))) }
    attributes.append(("stateOrProvince", .string(Self.states[Int.random(in: 0..<Self.states.count, using: &random)])))
    attributes.append(("rating", .number(Double(Int.random(in: 1...5, using: &random)))))
    attributes.append(("contentCreationDate", .date(Date(timeIntervalSince1970: 1_767_225_600 + Double(Int.random(in: 0..<365, using: &random)) * 86_400))))
    return SearchableItem(uniqueIdentifier: id, domainIdentifier: "test", attributeSet: AttributeSet(attributes))
  }

  /// Query words (folded, as the ranked index stores them) with weights.
  mutating func query() -> [QueryTerm] {
    (0..<Int.random(in: 1...8, using: &random)).flatMap { _ -> [QueryTerm] in
      var text = Int.random(in: 0..<15, using: &random) == 0 ? "absent" : word()
      if Int.random(in: 0..<6, using: &random) == 0 { text = "\u{1}" + text }  // stemmed alternatives
      let weight = Int.random(in: 0..<4, using: &random) == 0 ? Double.random(in: 0.2...3, using: &random) : 1
      return (RankedAnalysis.queryTerms(of: text) ?? []).map { QueryTerm($0, weight: weight) }
    }
  }

  mutating func k() -> Int { [1, 3, 10, 10, 25, 100].randomElement(using: &random)! }
}
