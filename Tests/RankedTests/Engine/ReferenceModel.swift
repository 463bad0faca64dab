import Foundation
@testable import SearchIndex

/// Naive BM25F over raw token lists, sharing no code with the index: an
/// independent check of statistics maintenance, encoding and scoring. Compared
/// with a tolerance because its floating-point operation order differs.
struct ReferenceModel {
  let parameters: BM25FParameters
  /// Per document and field: term -> tf, plus the field lengths.
  private(set) var documents: [DocID: (frequencies: [[String: Int]], lengths: [Int])] = [:]
  /// Collection statistics, maintained on every upsert and delete (recomputing them per
  /// query made the tests slow in debug builds).
  private var totals: [Int]
  private var documentFrequencies: [String: Int] = [:]

  init(parameters: BM25FParameters) {
    self.parameters = parameters
    totals = Array(repeating: 0, count: parameters.fieldCount)
  }

  mutating func upsert(_ document: IndexedDocument) {
    upsert(id: document.id, fields: document.fields, lengths: document.fields.map(\.count))
  }

  /// A document with explicit field lengths (positions, when tokens are colocated).
  mutating func upsert(id: DocID, fields: [[String]], lengths: [Int]) {
    delete(id)
    let frequencies = fields.map { tokens in tokens.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 } }
    documents[id] = (frequencies, lengths)
    for f in 0..<parameters.fieldCount { totals[f] += lengths[f] }
    for term in Set(frequencies.flatMap(\.keys)) { documentFrequencies[term, default: 0] += 1 }
  }

  mutating func delete(_ id: DocID) {
    guard let old = documents.removeValue(forKey: id) else { return }
    for f in 0..<parameters.fieldCount { totals[f] -= old.lengths[f] }
    for term in Set(old.frequencies.flatMap(\.keys)) { documentFrequencies[term, default: 0] -= 1 }
  }

  func search(_ query: [QueryTerm], k: Int, allow: (DocID) -> Bool = { _ in true }) -> [SearchHit] {
    var weights: [(String, Double)] = []
    for term in query where term.weight > 0 {
      if let index = weights.firstIndex(where: { $0.0 == term.term }) {
        weights[index].1 += term.weight
      } else {
        weights.append((term.term, term.weight))
      }
    }
    let n = Double(documents.count)
    let fieldCount = parameters.fieldCount
    // A field's average length is over the documents that have it (Lucene's rule).
    let withField = (0..<fieldCount).map { f in Double(documents.values.filter { $0.lengths[f] > 0 }.count) }
    var hits: [SearchHit] = []
    for (id, document) in documents where allow(id) {
      var score = 0.0
      var matched = false
      for (term, weight) in weights {
        guard let termDF = documentFrequencies[term], termDF > 0 else { continue }
        var ptf = 0.0
        for f in 0..<fieldCount {
          let tf = Double(document.frequencies[f][term] ?? 0)
          guard tf > 0 else { continue }
          let spec = parameters.fields[f]
          let average = Double(totals[f]) / withField[f]
          ptf += spec.weight * tf / (1 - spec.b + spec.b * Double(document.lengths[f]) / average)
        }
        guard ptf > 0 else { continue }
        matched = true
        let idf = log(1 + (n - Double(termDF) + 0.5) / (Double(termDF) + 0.5))
        score += weight * idf * ptf * (parameters.k1 + 1) / (parameters.k1 + ptf)
      }
      if matched { hits.append(SearchHit(id: id, score: score)) }
    }
    hits.sort { $0.score > $1.score || ($0.score == $1.score && $0.id < $1.id) }
    return Array(hits.prefix(k))
  }
}

/// Checks `actual` against the reference up to floating-point noise: same length,
/// scores equal within a relative 1e-9 rank by rank, and ids equal wherever the
/// reference's neighbouring scores are not within that noise of each other.
func agreesWithReference(_ actual: [SearchHit], _ expected: [SearchHit]) -> Bool {
  guard actual.count == expected.count else { return false }
  func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(1, abs(a), abs(b)) }
  for (index, (a, e)) in zip(actual, expected).enumerated() {
    guard close(a.score, e.score) else { return false }
    let tiedBefore = index > 0 && close(expected[index - 1].score, e.score)
    let tiedAfter = index + 1 < expected.count && close(expected[index + 1].score, e.score)
    if a.id != e.id && !tiedBefore && !tiedAfter && index != expected.count - 1 { return false }
  }
  return true
}
