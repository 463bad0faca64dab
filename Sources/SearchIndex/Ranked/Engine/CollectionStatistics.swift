import Foundation

/// Live collection statistics (N, total field lengths, document frequencies),
/// maintained incrementally on add and delete. Queries read the *current* values,
/// and both the pruned and the exhaustive scorer use the same snapshot, which is
/// what makes their results identical after updates.
package struct CollectionStatistics: Sendable, Equatable {
  package let fieldCount: Int
  /// Number of live documents (N).
  package private(set) var documentCount = 0
  /// Sum of field lengths over live documents, per field.
  package private(set) var totalFieldLengths: [Int]
  /// Live documents with some text in each field (the averages' denominators).
  package private(set) var fieldDocumentCounts: [Int]
  /// Live document frequency per term id (documents with tf > 0 in any field).
  package private(set) var documentFrequencies: [Int32] = []

  package init(fieldCount: Int) {
    self.fieldCount = fieldCount
    self.totalFieldLengths = Array(repeating: 0, count: fieldCount)
    self.fieldDocumentCounts = Array(repeating: 0, count: fieldCount)
  }

  /// Average length of `field` over the live documents that have it (Lucene's rule), 0
  /// when none has.
  package func averageFieldLength(_ field: Int) -> Double {
    fieldDocumentCounts[field] == 0 ? 0 : Double(totalFieldLengths[field]) / Double(fieldDocumentCounts[field])
  }

  package var averageFieldLengths: [Double] {
    (0..<fieldCount).map(averageFieldLength)
  }

  package func documentFrequency(of term: TermID) -> Int {
    Int(term) < documentFrequencies.count ? Int(documentFrequencies[Int(term)]) : 0
  }

  /// Robertson-Sparck Jones idf with the +1 inside the log so it is never negative
  /// (Lucene's form): ln(1 + (N - n + 0.5) / (n + 0.5)).
  package static func idf(documentCount: Int, documentFrequency: Int) -> Double {
    let n = Double(documentFrequency)
    return log(1 + (Double(documentCount) - n + 0.5) / (n + 0.5))
  }

  mutating func addDocument(fieldLengths: [Int], terms: [TermID]) {
    documentCount += 1
    for field in 0..<fieldCount {
      totalFieldLengths[field] += fieldLengths[field]
      if fieldLengths[field] > 0 { fieldDocumentCounts[field] += 1 }
    }
    for term in terms {
      let index = Int(term)
      if index >= documentFrequencies.count {
        documentFrequencies.append(contentsOf: repeatElement(0, count: index + 1 - documentFrequencies.count))
      }
      documentFrequencies[index] += 1
    }
  }

  mutating func removeDocument(fieldLengths: [Int], terms: [TermID]) {
    documentCount -= 1
    for field in 0..<fieldCount {
      totalFieldLengths[field] -= fieldLengths[field]
      if fieldLengths[field] > 0 { fieldDocumentCounts[field] -= 1 }
    }
    for term in terms { documentFrequencies[Int(term)] -= 1 }
  }
}
