internal import CSQLite

/// `sl_visible(rowid)`: 1 unless `rowid` is one of the rows the caller's scope hides.
///
/// A full-text match counted or ranked through its items read the row of every match for
/// the scope's columns (58,000 matches of "budget review" among a million items: 0.2–0.3 s,
/// most of it random reads of rows that hold records). The hidden rowids are already known
/// per generation and scope (`SearchIndex.queryHiddenRows`), so in a file of one named index
/// the match's own rowids can be tested against them instead, and no item is read until the
/// few that are returned. The statement that calls it fails ("no such function") unless the
/// executor installed the set for its scope first, so a missing set never shows a hidden row.
package enum VisibleRowFilter {
  package static let name = "sl_visible"

  /// The set one installation holds: ascending distinct rowids.
  fileprivate final class Hidden {
    let rowids: [Int64]
    init(_ rowids: [Int64]) { self.rowids = rowids }

    func contains(_ rowid: Int64) -> Bool {
      var low = 0
      var high = rowids.count
      while low < high {
        let middle = (low + high) / 2
        if rowids[middle] < rowid { low = middle + 1 } else { high = middle }
      }
      return low < rowids.count && rowids[low] == rowid
    }
  }

}

extension Connection {
  /// Installs (or replaces) `sl_visible` on this connection for the hidden rowids `hidden`
  /// (ascending, distinct).
  package func installVisibleRowFilter(hiding hidden: [Int64]) throws(DatabaseError) {
    typealias Hidden = VisibleRowFilter.Hidden
    let box = Unmanaged.passRetained(Hidden(hidden)).toOpaque()
    let rc = sqlite3_create_function_v2(
      handle, VisibleRowFilter.name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, box,
      { context, _, arguments in
        let hidden = Unmanaged<Hidden>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
        sqlite3_result_int(context, hidden.contains(sqlite3_value_int64(arguments![0])) ? 0 : 1)
      },
      nil, nil,
      { pointer in
        if let pointer { Unmanaged<Hidden>.fromOpaque(pointer).release() }
      })
    if rc != SQLITE_OK { throw lastError(rc, sql: nil) }
  }
}
