/// One term of a weighted OR query. Repeated terms are merged by summing weights;
/// terms with non-positive weight are ignored (a negative contribution would break
/// the upper-bound pruning invariants).
package struct QueryTerm: Sendable, Equatable {
  package var term: String
  package var weight: Double

  package init(_ term: String, weight: Double = 1) {
    self.term = term
    self.weight = weight
  }
}
