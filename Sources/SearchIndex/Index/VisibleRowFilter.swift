internal import CSQLite
import Synchronization

/// `sl_visible(rowid)`: 1 unless `rowid` is one of the rows the caller's scope hides.
///
/// A full-text match counted or ranked through its items read the row of every match for
/// the scope's columns (58,000 matches of "budget review" among a million items: 0.2–0.3 s,
/// most of it random reads of rows that hold records). The hidden rowids are already known
/// per generation and scope (`SearchIndex.queryHiddenRows`), so in a file of one named index
/// the match's own rowids can be tested against them instead, and no item is read until the
/// few that are returned.
///
/// The function is registered once per connection (registering a function expires every
/// prepared statement of the connection, so doing it per statement re-prepared the cached
/// ones on every query); the executor sets the hidden rows before each statement that calls
/// it (`Connection.filterRows(hiding:)`). Until then it fails the statement, so a missing
/// set never shows a hidden row.
package enum VisibleRowFilter {
  package static let name = "sl_visible"

  /// The hidden rowids of the scope the next statement runs for: ascending, distinct.
  final class State: Sendable {
    let hidden = Mutex<[Int64]?>(nil)
  }

  static func register(on db: OpaquePointer, state: State) -> Int32 {
    sqlite3_create_function_v2(
      db, name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, Unmanaged.passRetained(state).toOpaque(),
      { context, _, arguments in
        let state = Unmanaged<State>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
        let rowid = sqlite3_value_int64(arguments![0])
        let visible = state.hidden.withLock { hidden -> Bool? in hidden.map { !VisibleRowFilter.contains($0, rowid) } }
        guard let visible else {
          return sqlite3_result_error(context, "sl_visible: no hidden rows were set for this statement", -1)
        }
        sqlite3_result_int(context, visible ? 1 : 0)
      },
      nil, nil,
      { pointer in
        if let pointer { Unmanaged<State>.fromOpaque(pointer).release() }
      })
  }

  /// Whether ascending `rowids` holds `rowid`.
  static func contains(_ rowids: [Int64], _ rowid: Int64) -> Bool {
    let position = rowids.lowerBound(of: rowid)
    return position < rowids.count && rowids[position] == rowid
  }
}

extension Connection {
  /// Makes `sl_visible` on this connection hide `hidden` (ascending, distinct rowids) from
  /// the next statement on.
  package func filterRows(hiding hidden: [Int64]) {
    visibleRows.hidden.withLock { $0 = hidden }
  }
}
