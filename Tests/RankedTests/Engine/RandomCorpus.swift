@testable import SearchIndex

/// Random skewed corpora and queries for exactness tests. Small vocabularies and
/// duplicated documents produce many exact score ties.
struct RandomCorpus {
  var random: SplitMix64
  let vocabularySize: Int
  let fieldCount: Int

  init(seed: UInt64, vocabularySize: Int, fieldCount: Int) {
    random = SplitMix64(seed: seed)
    self.vocabularySize = vocabularySize
    self.fieldCount = fieldCount
  }

  static func parameters(fieldCount: Int) -> BM25FParameters {
    let specs = [
      FieldSpec(name: "title", weight: 2.5, b: 0.75),
      FieldSpec(name: "body", weight: 1.0, b: 0.75),
      FieldSpec(name: "keywords", weight: 1.7, b: 0.0),
      FieldSpec(name: "description", weight: 0.6, b: 1.0),
    ]
    return BM25FParameters(k1: 1.2, fields: Array(specs.prefix(fieldCount)))
  }

  /// Skewed term: squaring a uniform variate favours low ranks.
  mutating func term() -> String {
    let u = Double.random(in: 0..<1, using: &random)
    return "t\(Int(u * u * u * Double(vocabularySize)))"
  }

  mutating func fields() -> [[String]] {
    (0..<fieldCount).map { field in
      let maxLength = field == 0 ? 6 : 40
      let length = Int.random(in: 0...maxLength, using: &random)
      return (0..<length).map { _ in term() }
    }
  }

  /// A non-empty document (at least one token), or a copy of `template` to force ties.
  mutating func document(id: DocID, template: IndexedDocument? = nil) -> IndexedDocument {
    if let template, Int.random(in: 0..<4, using: &random) == 0 {
      return IndexedDocument(id: id, fields: template.fields)
    }
    var fields = fields()
    if fields.allSatisfy(\.isEmpty) { fields[fieldCount - 1] = [term()] }
    return IndexedDocument(id: id, fields: fields)
  }

  mutating func query() -> [QueryTerm] {
    let length = Int.random(in: 1...12, using: &random)
    return (0..<length).map { _ in
      let name = Int.random(in: 0..<20, using: &random) == 0 ? "absent\(Int.random(in: 0..<3, using: &random))" : term()
      let weight: Double
      switch Int.random(in: 0..<4, using: &random) {
      case 0: weight = 2
      case 1: weight = Double.random(in: 0.1...3, using: &random)
      default: weight = 1
      }
      return QueryTerm(name, weight: weight)
    }
  }

  mutating func k() -> Int {
    [1, 2, 3, 5, 10, 10, 25, 100, 1000].randomElement(using: &random)!
  }

  /// Sparse, negative and huge ids exercise the far page directory.
  mutating func freshID(existing: Set<DocID>) -> DocID {
    while true {
      let id: DocID
      switch Int.random(in: 0..<10, using: &random) {
      case 0: id = DocID.random(in: -5_000...(-1), using: &random)
      case 1: id = DocID.random(in: (1 << 40)...(1 << 40 + 5_000), using: &random)
      default: id = DocID.random(in: 0...20_000, using: &random)
      }
      if !existing.contains(id) { return id }
    }
  }
}
