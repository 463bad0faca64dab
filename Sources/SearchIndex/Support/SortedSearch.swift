extension Array where Element: Comparable {
  /// The position of the first element not below `value` in this ascending array (`count`
  /// when every element is below it), by binary search.
  func lowerBound(of value: Element) -> Int {
    var low = 0, high = count
    while low < high {
      let middle = (low + high) / 2
      if self[middle] < value { low = middle + 1 } else { high = middle }
    }
    return low
  }
}
