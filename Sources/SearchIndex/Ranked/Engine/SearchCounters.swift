/// Work counters of one search, for benchmarks and pruning diagnostics.
package struct SearchCounters: Sendable, Equatable {
  /// Documents whose filter / liveness was checked.
  package var candidates = 0
  /// Documents for which at least one term score was computed.
  package var scoredDocuments = 0
  /// Documents that reached the final exact sum and the heap.
  package var fullyScored = 0

  package init() {}
}
