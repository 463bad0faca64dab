/// Sorted distinct doc ids, e.g. the result of an attribute filter
/// (`state == Oregon`). Queries leapfrog over it instead of testing every match.
package struct SortedDocIDSet: Sendable, Equatable {
  package let ids: [DocID]

  package init(_ ids: some Sequence<DocID>) {
    var sorted = Array(ids)
    sorted.sort()
    var unique: [DocID] = []
    unique.reserveCapacity(sorted.count)
    for id in sorted where unique.last != id { unique.append(id) }
    self.ids = unique
  }

  package func contains(_ id: DocID) -> Bool {
    var hint = 0
    return nextGreaterOrEqual(id, hint: &hint) == id
  }

  /// Smallest member >= `target`, or `DocID.max`. `hint` is a monotone position
  /// (callers ask with non-decreasing targets): galloping from it makes a full
  /// traversal O(n) and a sparse one logarithmic per step.
  @inline(__always)
  package func nextGreaterOrEqual(_ target: DocID, hint: inout Int) -> DocID {
    var low = hint
    let count = ids.count
    if low >= count { return .max }
    if ids[low] >= target { return ids[low] }
    var step = 1
    var high = low + 1
    while high < count && ids[high] < target {
      low = high
      step <<= 1
      high = low + step
    }
    if high > count { high = count }
    // Invariant: ids[low] < target, and ids[high] >= target or high == count.
    while high - low > 1 {
      let middle = (low + high) >> 1
      if ids[middle] < target { low = middle } else { high = middle }
    }
    hint = high
    return high < count ? ids[high] : .max
  }
}
