import Testing
@testable import SearchIndex

/// Pruned retrieval returns exactly the exhaustive top-k (ids, bit-identical
/// scores, id tie-break) on random corpora, and both agree with the independent
/// reference model.
@Suite struct ExactnessTests {
  @Test(arguments: [1, 2, 3, 4])
  func prunedTopKEqualsExhaustiveOnRandomCorpora(fieldCount: Int) throws {
    for corpusIndex in 0..<3 {
      var corpus = RandomCorpus(
        seed: UInt64(fieldCount * 100 + corpusIndex), vocabularySize: [60, 400, 3000][corpusIndex],
        fieldCount: fieldCount)
      let parameters = RandomCorpus.parameters(fieldCount: fieldCount)
      var index = InMemoryRankedIndex(parameters: parameters, store: InMemoryPostingStore())
      var model = ReferenceModel(parameters: parameters)
      var ids = Set<DocID>()
      var batch: [IndexedDocument] = []
      let documentCount = [300, 800, 1500][corpusIndex]
      for _ in 0..<documentCount {
        let id = corpus.freshID(existing: ids)
        ids.insert(id)
        let document = corpus.document(id: id, template: batch.last)
        batch.append(document)
        model.upsert(document)
      }
      try index.add(contentsOf: batch)
      #expect(indexInvariantViolations(index, expectNoDeadPostings: true).isEmpty)
      for trial in 0..<20 {
        let query = corpus.query()
        let k = corpus.k()
        let expected = index.searchExhaustive(query, k: k)
        for algorithm in RetrievalAlgorithm.allCases {
          let actual = index.search(query, k: k, algorithm: algorithm)
          #expect(actual == expected, "corpus \(corpusIndex) trial \(trial) \(algorithm) k=\(k)")
        }
        if trial % 4 == 0 {
          #expect(agreesWithReference(expected, model.search(query, k: k)), "reference, trial \(trial)")
        }
      }
    }
  }

  @Test func tiesAreBrokenByAscendingID() throws {
    let parameters = RandomCorpus.parameters(fieldCount: 2)
    var index = InMemoryRankedIndex(parameters: parameters, store: InMemoryPostingStore())
    // 600 identical documents: every score ties, so the top-k is the k smallest ids.
    let documents = (0..<600).map { IndexedDocument(id: DocID(1_000 - $0), fields: [["alpha"], ["alpha", "beta"]]) }
    try index.add(contentsOf: documents)
    for algorithm in RetrievalAlgorithm.allCases {
      let hits = index.search([QueryTerm("alpha"), QueryTerm("beta")], k: 7, algorithm: algorithm)
      #expect(hits.map(\.id) == Array(401...407))
      #expect(Set(hits.map(\.score)).count == 1)
    }
  }

  @Test func repeatedQueryTermsSumTheirWeights() throws {
    var corpus = RandomCorpus(seed: 5, vocabularySize: 100, fieldCount: 2)
    var index = InMemoryRankedIndex(parameters: RandomCorpus.parameters(fieldCount: 2), store: InMemoryPostingStore())
    try index.add(contentsOf: (0..<500).map { corpus.document(id: DocID($0)) })
    let repeated = index.search([QueryTerm("t3"), QueryTerm("t7"), QueryTerm("t3")], k: 20)
    let weighted = index.search([QueryTerm("t3", weight: 2), QueryTerm("t7")], k: 20)
    #expect(repeated == weighted)
  }

  @Test func emptyAndUnknownQueriesReturnNothing() throws {
    var index = InMemoryRankedIndex(parameters: RandomCorpus.parameters(fieldCount: 1), store: InMemoryPostingStore())
    #expect(index.search([QueryTerm("x")], k: 10).isEmpty)
    try index.add(IndexedDocument(id: 1, fields: [["x"]]))
    #expect(index.search([], k: 10).isEmpty)
    #expect(index.search([QueryTerm("nope")], k: 10).isEmpty)
    #expect(index.search([QueryTerm("x", weight: 0)], k: 10).isEmpty)
    #expect(index.search([QueryTerm("x")], k: 0).isEmpty)
    #expect(index.search([QueryTerm("x")], k: 10).map(\.id) == [1])
  }
}
