import Testing
@testable import SearchIndex

/// Candidate filters (predicates and allowed-id sets) keep results exact and never
/// return a disallowed document.
@Suite struct FilterTests {
  @Test func filteredTopKEqualsFilteredExhaustive() throws {
    var corpus = RandomCorpus(seed: 99, vocabularySize: 500, fieldCount: 2)
    let parameters = RandomCorpus.parameters(fieldCount: 2)
    var index = InMemoryRankedIndex(parameters: parameters, store: InMemoryPostingStore())
    var model = ReferenceModel(parameters: parameters)
    var ids = Set<DocID>()
    var documents: [IndexedDocument] = []
    for _ in 0..<1_500 {
      let id = corpus.freshID(existing: ids)
      ids.insert(id)
      documents.append(corpus.document(id: id, template: documents.last))
      model.upsert(documents.last!)
    }
    try index.add(contentsOf: documents)
    // Delete some documents too: filters and tombstones combine.
    for id in ids.sorted().prefix(200) where id % 2 == 0 {
      try index.delete(id)
      model.delete(id)
    }
    let sortedIDs = ids.sorted()
    for trial in 0..<30 {
      let query = corpus.query()
      let k = corpus.k()
      let density = [0.002, 0.05, 0.5, 1.0][trial % 4]
      let allowedIDs = Set(sortedIDs.filter { _ in Double.random(in: 0..<1, using: &corpus.random) < density })
      let modulus = DocID([2, 3, 17, 101][trial % 4])
      let filters: [(CandidateFilter, (DocID) -> Bool)] = [
        (.allowed(SortedDocIDSet(allowedIDs)), { allowedIDs.contains($0) }),
        (.predicate({ $0 % modulus == 0 }), { $0 % modulus == 0 }),
      ]
      for (filter, allow) in filters {
        let expected = index.searchExhaustive(query, k: k, filter: filter)
        #expect(expected.allSatisfy { allow($0.id) })
        #expect(agreesWithReference(expected, model.search(query, k: k, allow: allow)), "trial \(trial)")
        for algorithm in RetrievalAlgorithm.allCases {
          #expect(index.search(query, k: k, filter: filter, algorithm: algorithm) == expected,
              "trial \(trial) \(algorithm)")
        }
      }
    }
  }

  @Test func sortedSetGallopsToNextMember() {
    let set = SortedDocIDSet([9, 1, 5, 5, 100, -3])
    #expect(set.ids == [-3, 1, 5, 9, 100])
    var hint = 0
    #expect(set.nextGreaterOrEqual(-10, hint: &hint) == -3)
    #expect(set.nextGreaterOrEqual(2, hint: &hint) == 5)
    #expect(set.nextGreaterOrEqual(5, hint: &hint) == 5)
    #expect(set.nextGreaterOrEqual(10, hint: &hint) == 100)
    #expect(set.nextGreaterOrEqual(101, hint: &hint) == DocID.max)
    #expect(set.contains(9) && !set.contains(8))
  }
}
