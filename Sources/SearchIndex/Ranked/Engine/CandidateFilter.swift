/// Restricts which documents may be returned (attribute filters, protection,
/// expiry). Checked per candidate *before* any scoring; an allowed-id set is also
/// used to skip posting runs that contain no allowed document.
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
