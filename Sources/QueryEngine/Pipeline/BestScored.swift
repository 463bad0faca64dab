/// The first `count` items of a best-first order by score, ties in the order the items
/// were offered: what ordering every scored item (`ScoreStage`'s order) and keeping the
/// first `count` gives, holding only `count` of them at a time (a bounded heap whose root
/// is the worst kept item).
struct BestScored {
  private typealias Entry = (score: Double, offset: Int, item: ResultItem)
  private let count: Int
  private var heap: [Entry] = []
  /// How many items were offered.
  private(set) var offered = 0

  init(keeping count: Int) {
    self.count = max(0, count)
    heap.reserveCapacity(min(self.count, 1 << 16))
  }

  /// Whether `a` comes after `b` in the best-first order.
  private static func isWorse(_ a: Entry, than b: Entry) -> Bool {
    a.score != b.score ? a.score < b.score : a.offset > b.offset
  }

  /// Offers the next item (its score set).
  mutating func offer(_ item: ResultItem) {
    let entry = (score: item.score ?? 0, offset: offered, item: item)
    offered += 1
    guard count > 0 else { return }
    if heap.count < count {
      heap.append(entry)
      siftUp(heap.count - 1)
    } else if Self.isWorse(heap[0], than: entry) {
      heap[0] = entry
      siftDown(0)
    }
  }

  /// The kept items, best first.
  var items: [ResultItem] {
    heap.sorted { Self.isWorse($1, than: $0) }.map(\.item)
  }

  private mutating func siftUp(_ start: Int) {
    var child = start
    while child > 0 {
      let parent = (child - 1) / 2
      guard Self.isWorse(heap[child], than: heap[parent]) else { return }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  private mutating func siftDown(_ start: Int) {
    var parent = start
    while true {
      let left = 2 * parent + 1, right = left + 1
      var worst = parent
      if left < heap.count, Self.isWorse(heap[left], than: heap[worst]) { worst = left }
      if right < heap.count, Self.isWorse(heap[right], than: heap[worst]) { worst = right }
      if worst == parent { return }
      heap.swapAt(parent, worst)
      parent = worst
    }
  }
}
