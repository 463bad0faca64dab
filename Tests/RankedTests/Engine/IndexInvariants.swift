@testable import SearchIndex

/// Structural checks of an index: block layout, bound validity under current
/// statistics, and agreement of document frequencies with live postings.
/// Returns a list of violations (empty when consistent).
func indexInvariantViolations(_ index: InMemoryRankedIndex, expectNoDeadPostings: Bool) -> [String] {
  var problems: [String] = []
  let fieldCount = index.parameters.fieldCount
  let averages = index.statistics.averageFieldLengths
  let inflation = index.basis?.inflation(currentAverages: averages, parameters: index.parameters) ?? 1
  let current = BM25FScorer(parameters: index.parameters, averageFieldLengths: averages)
  for term in index.store.storedTerms {
    guard let list = index.store.postingList(for: term) else { continue }
    var previousLast = DocID.min
    var livePostings = 0
    for (blockIndex, block) in list.blocks.enumerated() {
      if !(1...BlockCodec.capacity).contains(block.postingCount) { problems.append("term \(term) block size") }
      if blockIndex > 0 && block.firstDoc <= previousLast { problems.append("term \(term) blocks overlap") }
      if block.maxPseudoTF > list.maxPseudoTF { problems.append("term \(term) list bound below block bound") }
      previousLast = block.lastDoc
      let postings = BlockCodec.decode(block, fieldCount: fieldCount)
      if postings.docs.first != block.firstDoc || postings.docs.last != block.lastDoc {
        problems.append("term \(term) header mismatch")
      }
      for i in 0..<postings.count {
        let doc = postings.docs[i]
        guard let lengths = index.documents.fieldLengths(of: doc) else {
          if expectNoDeadPostings { problems.append("term \(term) keeps dead doc \(doc)") }
          continue
        }
        livePostings += 1
        if index.documents.terms(of: doc)?.contains(term) != true {
          problems.append("term \(term) has posting for doc \(doc) not containing it")
        }
        var ptf = 0.0
        for f in 0..<fieldCount {
          ptf += Double(postings.frequency(at: i, field: f)) * current.norm(field: f, length: lengths[f])
        }
        if ptf > Double(block.maxPseudoTF) * inflation * (1 + 1e-12) {
          problems.append("term \(term) block bound \(block.maxPseudoTF)x\(inflation) < ptf \(ptf)")
        }
      }
    }
    if livePostings != index.statistics.documentFrequency(of: term) {
      problems.append("term \(term) df \(index.statistics.documentFrequency(of: term)) != live postings \(livePostings)")
    }
  }
  return problems
}
