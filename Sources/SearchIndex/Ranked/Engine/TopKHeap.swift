/// Bounded min-heap of the best k (score, id) pairs; the root is the worst kept
/// entry. Order: higher score first, then lower id — the deterministic tie-break.
struct TopKHeap {
  let k: Int
  private var scores: [Double] = []
  private var ids: [DocID] = []

  init(k: Int) {
    self.k = k
    scores.reserveCapacity(k)
    ids.reserveCapacity(k)
  }

  var isFull: Bool { scores.count == k }

  /// Score a candidate must beat once the heap is full; -inf before that.
  var threshold: Double { isFull ? scores[0] : -.infinity }

  @inline(__always)
  private func worse(_ i: Int, than scoreB: Double, _ idB: DocID) -> Bool {
    scores[i] < scoreB || (scores[i] == scoreB && ids[i] > idB)
  }

  /// Whether `insert` would keep the pair (without inserting it).
  @inline(__always)
  func admits(score: Double, id: DocID) -> Bool {
    scores.count < k || worse(0, than: score, id)
  }

  /// Inserts if the pair belongs in the top k; returns whether it did.
  @discardableResult
  mutating func insert(score: Double, id: DocID) -> Bool {
    if scores.count < k {
      scores.append(score)
      ids.append(id)
      var child = scores.count - 1
      while child > 0 {
        let parent = (child - 1) >> 1
        // Sift up while the child is worse than its parent.
        guard worse(child, than: scores[parent], ids[parent]) else { break }
        scores.swapAt(child, parent)
        ids.swapAt(child, parent)
        child = parent
      }
      return true
    }
    guard worse(0, than: score, id) else { return false }
    scores[0] = score
    ids[0] = id
    var parent = 0
    while true {
      let left = 2 * parent + 1
      if left >= k { break }
      var worst = left
      let right = left + 1
      if right < k && worse(right, than: scores[left], ids[left]) { worst = right }
      guard worse(worst, than: scores[parent], ids[parent]) else { break }
      scores.swapAt(worst, parent)
      ids.swapAt(worst, parent)
      parent = worst
    }
    return true
  }

  /// Hits best first.
  func sortedHits() -> [SearchHit] {
    zip(ids, scores)
      .map { SearchHit(id: $0, score: $1) }
      .sorted { $0.score > $1.score || ($0.score == $1.score && $0.id < $1.id) }
  }
}
