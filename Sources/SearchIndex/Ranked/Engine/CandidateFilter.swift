/// Restricts which documents may be returned (attribute filters, protection,
/// expiry). An allowed-id set is checked per candidate before any scoring and also
/// used to skip posting runs that contain no allowed document; a predicate, which may
/// cost an SQL statement, is checked as late as the algorithm allows (window-at-a-time:
/// only for a document whose exact score would enter the top k).
package enum CandidateFilter {
  case none
  case predicate((DocID) -> Bool)
  case allowed(SortedDocIDSet)

  /// The per-document test, when the filter is one.
  var predicate: ((DocID) -> Bool)? {
    if case .predicate(let test) = self { return test }
    return nil
  }

  /// The allowed-id set, when the filter is one.
  var allowedSet: SortedDocIDSet? {
    if case .allowed(let set) = self { return set }
    return nil
  }
}
