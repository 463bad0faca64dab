/// The documents a `RankedWriter` has collected and not flushed yet: per document its
/// rowid, field lengths (positions), ascending distinct term ids and their per-field
/// frequencies. Stored back to back in flat arrays, so collecting a document allocates
/// nothing (a bulk load keeps millions of postings here between flushes).
///
/// A document collected again (or removed) before the flush drops its earlier version,
/// whose entry stays in the arrays, unreachable, until `removeAll`.
struct PendingDocuments {
  let fieldCount: Int
  /// Per entry: the rowid.
  private var docs: [DocID] = []
  /// Per entry: where its terms end in `terms` (they start where the previous ones end).
  private var termEnds: [Int] = []
  /// Per entry: `fieldCount` field lengths.
  private var lengths: [Int] = []
  private var terms: [TermID] = []
  /// Per term of every entry: `fieldCount` frequencies.
  private var frequencies: [UInt32] = []
  /// The entry of every pending document.
  private var entries: [DocID: Int] = [:]
  /// True while entries were added in ascending rowid order and none was dropped, so
  /// `0..<count` lists the pending documents in rowid order without sorting.
  private var isInOrder = true
  /// Postings (terms) of the pending documents.
  private(set) var postingCount = 0

  /// Bytes the collected entries occupy in the arrays (dropped versions included, since
  /// their storage stays until `removeAll`): what the writer's memory budget counts.
  var byteCount: Int {
    terms.count * MemoryLayout<TermID>.stride + frequencies.count * MemoryLayout<UInt32>.stride
      + docs.count * (MemoryLayout<DocID>.stride * 3 + MemoryLayout<Int>.stride * (1 + fieldCount))
  }

  init(fieldCount: Int) {
    self.fieldCount = fieldCount
  }

  var isEmpty: Bool { entries.isEmpty }

  func contains(_ doc: DocID) -> Bool { entries[doc] != nil }

  /// Drops the pending version of `doc`, if any.
  mutating func remove(_ doc: DocID) {
    guard let entry = entries.removeValue(forKey: doc) else { return }
    postingCount -= termRange(of: entry).count
    isInOrder = false
  }

  /// Adds `doc` (replacing its pending version) with `lengths` and the terms of `keys`:
  /// ascending `PostingKey`s.
  mutating func add(_ doc: DocID, lengths: [Int], keys: UnsafeBufferPointer<UInt64>) {
    precondition(lengths.count == fieldCount, "one length per field")
    remove(doc)
    if let last = docs.last, last >= doc { isInOrder = false }
    var termCount = keys.isEmpty ? 0 : 1
    for index in keys.indices.dropFirst() where PostingKey.term(keys[index]) != PostingKey.term(keys[index - 1]) {
      termCount += 1
    }
    let start = terms.count
    terms.append(contentsOf: repeatElement(0, count: termCount))
    frequencies.append(contentsOf: repeatElement(0, count: termCount * fieldCount))
    let fieldCount = self.fieldCount
    terms.withUnsafeMutableBufferPointer { terms in
      frequencies.withUnsafeMutableBufferPointer { frequencies in
        var slot = start - 1
        var previous = TermID.max
        for (index, key) in keys.enumerated() {
          let term = PostingKey.term(key)
          if index == 0 || term != previous {
            previous = term
            slot += 1
            terms[slot] = term
          }
          frequencies[slot * fieldCount + PostingKey.field(key)] += PostingKey.occurrences(key)
        }
      }
    }
    entries[doc] = docs.count
    docs.append(doc)
    termEnds.append(terms.count)
    self.lengths.append(contentsOf: lengths)
    postingCount += termCount
  }

  /// The pending documents' entries in ascending rowid order.
  func entriesInOrder() -> [Int] {
    if isInOrder { return Array(docs.indices) }
    return entries.sorted { $0.key < $1.key }.map(\.value)
  }

  func doc(of entry: Int) -> DocID { docs[entry] }

  func lengths(of entry: Int) -> [Int] { Array(lengths[(entry * fieldCount)..<((entry + 1) * fieldCount)]) }

  func termRange(of entry: Int) -> Range<Int> { (entry == 0 ? 0 : termEnds[entry - 1])..<termEnds[entry] }

  /// Calls `body` with the terms of every entry (by index into them) and their
  /// frequencies (`fieldCount` per term).
  func withTerms<R>(_ body: (UnsafeBufferPointer<TermID>, UnsafeBufferPointer<UInt32>) throws -> R) rethrows -> R {
    try terms.withUnsafeBufferPointer { terms in
      try frequencies.withUnsafeBufferPointer { frequencies in try body(terms, frequencies) }
    }
  }

  /// Forgets every document, keeping the arrays' capacity for the next ones.
  mutating func removeAll() {
    docs.removeAll(keepingCapacity: true)
    termEnds.removeAll(keepingCapacity: true)
    lengths.removeAll(keepingCapacity: true)
    terms.removeAll(keepingCapacity: true)
    frequencies.removeAll(keepingCapacity: true)
    entries.removeAll(keepingCapacity: true)
    isInOrder = true
    postingCount = 0
  }
}

/// A term's occurrences in one field of a document, as `RankedWriter.index` collects them:
/// the term id in the high 32 bits, the field in the next 8, and in the low 24 the number of
/// occurrences less one. `TermResolver.addKeys` makes one key per occurrence; `collapse`
/// merges equal ones, so a huge text's keys stay few. Ascending keys group a term's fields.
enum PostingKey {
  private static let countBits: UInt64 = 24
  private static let countMask: UInt64 = (1 << countBits) - 1

  @inline(__always)
  static func make(term: TermID, field: UInt64) -> UInt64 { UInt64(term) << 32 | field << countBits }

  @inline(__always)
  static func term(_ key: UInt64) -> TermID { TermID(truncatingIfNeeded: key >> 32) }

  @inline(__always)
  static func field(_ key: UInt64) -> Int { Int(truncatingIfNeeded: key >> countBits & 0xFF) }

  @inline(__always)
  static func occurrences(_ key: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: key & countMask) + 1 }

  /// Sorts `keys` and merges the keys of each term and field into as few as hold their
  /// occurrences.
  static func collapse(_ keys: inout [UInt64]) {
    keys.sort()
    var write = 0
    var index = 0
    while index < keys.count {
      let base = keys[index] & ~countMask
      var total: UInt64 = 0
      while index < keys.count && keys[index] & ~countMask == base {
        total += keys[index] & countMask + 1
        index += 1
      }
      while total > 0 {
        let part = min(total, countMask + 1)
        keys[write] = base | (part - 1)
        write += 1
        total -= part
      }
    }
    keys.removeSubrange(write...)
  }
}
