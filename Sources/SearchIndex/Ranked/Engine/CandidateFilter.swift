/// Restricts which documents may be returned (attribute filters, protection,
/// expiry). Checked per candidate *before* any scoring; an allowed-id set is also
/// used to skip posting runs that contain no allowed document.
package enum CandidateFilter {
  case none
  case predicate((DocID) -> Bool)
  case allowed(SortedDocIDSet)
}
