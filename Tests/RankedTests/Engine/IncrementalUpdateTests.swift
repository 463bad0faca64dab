import Testing
@testable import SearchIndex

/// Exactness and index consistency while documents are added, updated and deleted
/// between queries (statistics, bounds and tombstones all moving).
@Suite struct IncrementalUpdateTests {
  @Test(arguments: [UInt64(1), 2, 3, 4])
  func resultsStayExactUnderInterleavedMutations(seed: UInt64) throws {
    let fieldCount = Int(seed % 3) + 2
    var corpus = RandomCorpus(seed: seed * 7_919, vocabularySize: 300, fieldCount: fieldCount)
    let parameters = RandomCorpus.parameters(fieldCount: fieldCount)
    var index = InMemoryRankedIndex(parameters: parameters, store: InMemoryPostingStore())
    var model = ReferenceModel(parameters: parameters)
    var live: [DocID] = []
    var deleted: [DocID] = []
    var all = Set<DocID>()

    func check(_ label: String) {
      for _ in 0..<3 {
        let query = corpus.query()
        let k = corpus.k()
        let expected = index.searchExhaustive(query, k: k)
        for algorithm in RetrievalAlgorithm.allCases {
          #expect(index.search(query, k: k, algorithm: algorithm) == expected, "\(label) \(algorithm)")
        }
        #expect(agreesWithReference(expected, model.search(query, k: k)), "\(label) reference")
        #expect(expected.allSatisfy { index.contains($0.id) }, "\(label) returned a deleted document")
      }
    }

    var initial: [IndexedDocument] = []
    for _ in 0..<500 {
      let id = corpus.freshID(existing: all)
      all.insert(id)
      live.append(id)
      let document = corpus.document(id: id, template: initial.last)
      initial.append(document)
      model.upsert(document)
    }
    try index.add(contentsOf: initial)
    check("initial")

    for step in 0..<120 {
      let operation = Int.random(in: 0..<10, using: &corpus.random)
      let before = index.documentCount
      switch operation {
      case 0, 1:
        // Re-adding a deleted, not yet compacted id must purge its stale postings.
        let reuse = !deleted.isEmpty && Bool.random(using: &corpus.random)
        let id = reuse ? deleted.remove(at: Int.random(in: 0..<deleted.count, using: &corpus.random))
          : corpus.freshID(existing: all)
        all.insert(id)
        live.append(id)
        let document = corpus.document(id: id)
        try index.add(document)
        model.upsert(document)
      case 2, 3, 4:
        let id = live.randomElement(using: &corpus.random)!
        let document = corpus.document(id: id)
        try index.update(document)
        model.upsert(document)
      case 5, 6, 7:
        guard live.count > 50 else { continue }
        let id = live.remove(at: Int.random(in: 0..<live.count, using: &corpus.random))
        deleted.append(id)
        try index.delete(id)
        model.delete(id)
      case 8:
        // Deletions are applied before upserts, so only pre-batch ids are deleted.
        var upserts: [IndexedDocument] = []
        var deletions: [DocID] = []
        for _ in 0..<Int.random(in: 0...15, using: &corpus.random) where live.count > 50 {
          let id = live.remove(at: Int.random(in: 0..<live.count, using: &corpus.random))
          deleted.append(id)
          deletions.append(id)
          model.delete(id)
        }
        for _ in 0..<Int.random(in: 0...15, using: &corpus.random) {
          let id = corpus.freshID(existing: all)
          all.insert(id)
          live.append(id)
          let document = corpus.document(id: id)
          upserts.append(document)
          model.upsert(document)
        }
        try index.apply(upserting: upserts, deleting: deletions)
      default:
        if step % 3 == 0 {
          index.compact(rebaseTolerance: 0.02)
          #expect(index.tombstones.isEmpty)
          #expect(indexInvariantViolations(index, expectNoDeadPostings: true).isEmpty, "after compact")
        }
      }
      #expect(index.documentCount == live.count, "step \(step) op \(operation) before \(before)")
      if step % 6 == 0 { check("step \(step)") }
      if step % 40 == 0 {
        let problems = indexInvariantViolations(index, expectNoDeadPostings: false)
        #expect(problems.isEmpty, "step \(step): \(problems.prefix(3))")
      }
    }
    index.compact(rebaseTolerance: 0)
    #expect(indexInvariantViolations(index, expectNoDeadPostings: true).isEmpty)
    check("final")
  }

  @Test func updateReplacesTermsAndReAddPurgesStalePostings() throws {
    var index = InMemoryRankedIndex(parameters: RandomCorpus.parameters(fieldCount: 2), store: InMemoryPostingStore())
    try index.add(contentsOf: (1...300).map { IndexedDocument(id: DocID($0), fields: [["common"], ["filler\($0 % 7)"]]) })
    try index.add(IndexedDocument(id: 1_000, fields: [["old"], ["common", "old"]]))
    #expect(index.search([QueryTerm("old")], k: 5).map(\.id) == [1_000])
    try index.update(IndexedDocument(id: 1_000, fields: [["new"], []]))
    #expect(index.search([QueryTerm("old")], k: 5).isEmpty)
    #expect(index.search([QueryTerm("new")], k: 5).map(\.id) == [1_000])
    try index.delete(1_000)
    #expect(index.search([QueryTerm("new")], k: 5).isEmpty)
    // Re-add before compaction with different terms: nothing of the old version may match.
    try index.add(IndexedDocument(id: 1_000, fields: [["other"], []]))
    #expect(index.search([QueryTerm("new"), QueryTerm("old")], k: 5).isEmpty)
    #expect(index.search([QueryTerm("other")], k: 5).map(\.id) == [1_000])
    #expect(indexInvariantViolations(index, expectNoDeadPostings: false).isEmpty)
  }

  @Test func mutationErrorsLeaveIndexUnchanged() throws {
    var index = InMemoryRankedIndex(parameters: RandomCorpus.parameters(fieldCount: 1), store: InMemoryPostingStore())
    try index.add(IndexedDocument(id: 1, fields: [["a"]]))
    #expect(throws: RankedIndexError.documentExists(1)) { try index.add(IndexedDocument(id: 1, fields: [["b"]])) }
    #expect(throws: RankedIndexError.documentNotFound(2)) { try index.delete(2) }
    #expect(throws: RankedIndexError.documentNotFound(2)) { try index.update(IndexedDocument(id: 2, fields: [["b"]])) }
    #expect(throws: RankedIndexError.fieldCountMismatch(3, expected: 1, actual: 2)) {
      try index.add(IndexedDocument(id: 3, fields: [["a"], ["b"]]))
    }
    #expect(throws: RankedIndexError.reservedDocID(DocID.max)) {
      try index.add(IndexedDocument(id: DocID.max, fields: [["a"]]))
    }
    #expect(index.documentCount == 1)
    #expect(index.search([QueryTerm("b")], k: 3).isEmpty)
  }
}
