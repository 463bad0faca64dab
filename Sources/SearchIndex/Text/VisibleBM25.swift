internal import CSQLite
import Foundation
import Synchronization

/// The rows of the full-text table a caller may not see, as the full-text score must leave
/// them out: their rowids, and how many tokens they hold in all.
package struct HiddenFullTextRows: Sendable, Equatable {
  /// Hidden rowids, ascending and distinct: those that have a full-text row, or all of them
  /// (an item without a full-text row matches no phrase, so the phrase counts are the same).
  package var rowids: [Int64]
  /// How many hidden rowids have a full-text row.
  package var rows: Int64
  /// The tokens of those rows, all columns (`xColumnSize(-1)` summed).
  package var tokens: Int64

  package init(rowids: [Int64], rows: Int64, tokens: Int64) {
    self.rowids = rowids
    self.rows = rows
    self.tokens = tokens
  }
}

/// What `sl_bm25` leaves out on one connection; set by the query executor before it runs
/// a scored full-text statement for a caller who cannot see everything.
final class VisibleScoringState: Sendable {
  let hidden = Mutex<HiddenFullTextRows?>(nil)
}

/// `sl_bm25(fts, w1, ..., w5)`: FTS5's `bm25()` computed over the rows the caller may see.
///
/// FTS5's built-in function takes N, the average row length and each phrase's document
/// count from the whole table, so a visible item's score moved with the text of items the
/// caller may not see: 31 protected notes containing "quokka" pushed the word's idf below
/// zero and a visible note's score from 4.36 to 1e-6. This is the same formula, operation
/// for operation (so it equals `bm25()` to the last bit when nothing is hidden), with the
/// hidden rows taken out of N, of the token total and of every phrase's count.
/// https://www.sqlite.org/fts5.html#the_bm25_function (fts5_aux.c, fts5Bm25Function)
enum VisibleBM25 {
  static let name = "sl_bm25"
  static let k1 = 1.2
  static let b = 0.75

  /// A phrase's idf among `rows` rows of which `hits` match it (FTS5's floor for common phrases).
  @inline(__always)
  static func idf(rows: Int64, hits: Int64) -> Double {
    let idf = log((Double(rows) - Double(hits) + 0.5) / (Double(hits) + 0.5))
    return idf <= 0.0 ? 1e-6 : idf
  }

  /// One phrase's share of a row's score: its weighted `frequency` in a row of `length` tokens.
  @inline(__always)
  static func phraseScore(idf: Double, frequency: Double, length: Double, averageLength: Double) -> Double {
    idf * ((frequency * (k1 + 1.0)) / (frequency + k1 * (1 - b + b * length / averageLength)))
  }

  /// The per-statement figures, computed on the first row (as FTS5 caches its own).
  final class Statistics {
    var averageLength = 0.0
    var idf: [Double] = []
    var frequencies: [Double] = []
  }

  /// Counts the rows of one phrase that are not hidden (`xQueryPhrase`'s callback data).
  ///
  /// FTS5 visits a phrase's rows in ascending rowid order, so the hidden rowids are walked
  /// beside them (a hash lookup per matching row cost a third of a two-word search at 1M);
  /// a row out of that order finds its place by binary search instead.
  struct PhraseCount {
    var hits: Int64 = 0
    let hidden: [Int64]
    /// The first hidden rowid not below the last row seen.
    var cursor = 0
    var last = Int64.min

    init(hidden: [Int64]) { self.hidden = hidden }

    mutating func count(_ rowid: Int64) {
      if rowid < last { cursor = hidden.lowerBound(of: rowid) }
      last = rowid
      while cursor < hidden.count, hidden[cursor] < rowid { cursor += 1 }
      if cursor < hidden.count, hidden[cursor] == rowid { return }
      hits += 1
    }
  }

  static func register(on db: OpaquePointer, state: VisibleScoringState) -> Int32 {
    guard let api = searchlight_fts5_api(db) else { return SQLITE_ERROR }
    let box = Unmanaged.passRetained(state).toOpaque()
    return api.pointee.xCreateFunction(api, name, box, { extensionAPI, fts, context, count, values in
      guard let extensionAPI, let fts, let context else { return }
      let rc = VisibleBM25.score(extensionAPI.pointee, fts, context, count, values)
      if rc != SQLITE_OK { sqlite3_result_error_code(context, rc) }
    }, { box in
      if let box { Unmanaged<VisibleScoringState>.fromOpaque(box).release() }
    })
  }

  /// One row's score (negated, like `bm25()`: lower is better); an SQLite code on failure.
  static func score(
    _ api: Fts5ExtensionApi, _ fts: OpaquePointer, _ context: OpaquePointer, _ count: Int32,
    _ values: UnsafeMutablePointer<OpaquePointer?>?
  ) -> Int32 {
    var statistics: Statistics
    if let cached = api.xGetAuxdata(fts, 0) {
      statistics = Unmanaged<Statistics>.fromOpaque(cached).takeUnretainedValue()
    } else {
      guard let user = api.xUserData(fts) else { return SQLITE_ERROR }
      let hidden = Unmanaged<VisibleScoringState>.fromOpaque(user).takeUnretainedValue().hidden.withLock { $0 }
      statistics = Statistics()
      let rc = collect(api, fts, hidden: hidden, into: statistics)
      if rc != SQLITE_OK { return rc }
      let retained = Unmanaged.passRetained(statistics).toOpaque()
      let set = api.xSetAuxdata(fts, retained) { pointer in
        if let pointer { Unmanaged<Statistics>.fromOpaque(pointer).release() }
      }
      if set != SQLITE_OK { return set }
    }
    for phrase in statistics.frequencies.indices { statistics.frequencies[phrase] = 0 }
    var instances: Int32 = 0
    var rc = api.xInstCount(fts, &instances)
    var instance: Int32 = 0
    while rc == SQLITE_OK && instance < instances {
      var phrase: Int32 = 0, column: Int32 = 0, offset: Int32 = 0
      rc = api.xInst(fts, instance, &phrase, &column, &offset)
      if rc == SQLITE_OK {
        let weight = count > column ? sqlite3_value_double(values![Int(column)]) : 1.0
        statistics.frequencies[Int(phrase)] += weight
      }
      instance += 1
    }
    var tokens: Int32 = 0
    if rc == SQLITE_OK { rc = api.xColumnSize(fts, -1, &tokens) }
    guard rc == SQLITE_OK else { return rc }
    let length = Double(tokens)
    var score = 0.0
    for phrase in statistics.idf.indices {
      score += phraseScore(
        idf: statistics.idf[phrase], frequency: statistics.frequencies[phrase], length: length, averageLength: statistics.averageLength)
    }
    sqlite3_result_double(context, -1.0 * score)
    return SQLITE_OK
  }

  /// N, the average row length and each phrase's idf, over the rows not in `hidden`.
  private static func collect(_ api: Fts5ExtensionApi, _ fts: OpaquePointer, hidden: HiddenFullTextRows?, into statistics: Statistics) -> Int32 {
    let phrases = Int(api.xPhraseCount(fts))
    statistics.frequencies = Array(repeating: 0, count: phrases)
    statistics.idf = Array(repeating: 0, count: phrases)
    var rows: Int64 = 0
    var rc = api.xRowCount(fts, &rows)
    var tokens: Int64 = 0
    if rc == SQLITE_OK { rc = api.xColumnTotalSize(fts, -1, &tokens) }
    guard rc == SQLITE_OK else { return rc }
    let hiddenRows = hidden?.rows ?? 0
    rows = max(1, rows - hiddenRows)
    tokens = max(0, tokens - (hidden?.tokens ?? 0))
    statistics.averageLength = Double(tokens) / Double(rows)
    for phrase in 0..<phrases {
      var counter = PhraseCount(hidden: hidden?.rowids ?? [])
      rc = withUnsafeMutablePointer(to: &counter) { pointer in
        api.xQueryPhrase(fts, Int32(phrase), pointer) { api, fts, data in
          guard let api, let data else { return SQLITE_OK }
          // Each row matching the phrase comes once; hidden ones do not count.
          data.assumingMemoryBound(to: PhraseCount.self).pointee.count(api.pointee.xRowid(fts))
          return SQLITE_OK
        }
      }
      guard rc == SQLITE_OK else { return rc }
      statistics.idf[phrase] = idf(rows: rows, hits: counter.hits)
    }
    return SQLITE_OK
  }
}
