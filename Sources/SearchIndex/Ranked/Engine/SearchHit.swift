/// One ranked result. Results are ordered by descending score, ties by ascending id.
package struct SearchHit: Sendable, Equatable, CustomStringConvertible {
  package var id: DocID
  package var score: Double

  package init(id: DocID, score: Double) {
    self.id = id
    self.score = score
  }

  package var description: String { "\(id):\(score)" }
}
