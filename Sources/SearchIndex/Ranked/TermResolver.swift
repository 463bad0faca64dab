/// The term ids of one `RankedWriter` transaction: term bytes to ids through a
/// `TermTable`, looking up terms the table does not hold in the stored lexicon and giving
/// new terms new ids (written to `rk_terms` by the writer's flush), and the keys of a
/// text's terms for the writer's documents.
struct TermResolver {
  let store: RankedStore
  /// The terms seen in this transaction, with their stems.
  private var table = TermTable()
  /// True while this index has no stored terms (a first bulk load): new terms need
  /// no lookup before they are inserted.
  var lexiconIsEmpty = false
  /// The next id for a new term (ids are chosen here, so a new term costs no SQL until
  /// the flush inserts it), nil until the first new term.
  private(set) var nextTermID: TermID?
  /// Ids from here on were chosen by this writer and have no stored blocks except those
  /// the writer's `tails` knows (nil: unknown, look blocks up), so a new list needs no
  /// SQL to find its tail.
  var unstoredTermsFrom: TermID?
  /// Terms first seen in this transaction and not yet in `rk_terms`.
  var newTerms: [(id: TermID, text: String)] = []
  /// Scratch for `addKeys`: the table keys of a text's tokens.
  private var termKeys: [TermTable.Key] = []
  /// `TermResolver.keysBeforeCollapse` when this resolver was made.
  private let keysBeforeCollapse = TermResolver.keysBeforeCollapse
  /// Scratch for stemming: the marker byte and up to `maxTokenBytes` letters.
  private var stemScratch = [UInt8](repeating: 0, count: TextAnalyzer.maxTokenBytes + 1)

  init(store: RankedStore) {
    self.store = store
  }

  /// Terms the table holds (every term seen since it was last emptied).
  var termCount: Int { table.count }

  /// Empties the table, once every new term is in `rk_terms` (after a flush): terms are
  /// then looked up there again. Bounds the memory of a transaction over a huge vocabulary.
  mutating func forgetTerms() {
    precondition(newTerms.isEmpty, "new terms are stored before the table is emptied")
    table = TermTable()
    lexiconIsEmpty = false
  }

  /// The slot of the term `bytes` (whose table key is `key`) in `table`, adding the term
  /// (with its stored id, else a new one) when absent.
  @inline(__always)
  private mutating func termSlot(_ bytes: UnsafeBufferPointer<UInt8>, key: TermTable.Key) throws(DatabaseError) -> TermTable.Slot {
    if let slot = table.find(bytes, key: key) { return slot }
    return try addTerm(bytes, key: key)
  }

  /// Adds a term not in `table`, with its stored id, else a new one.
  private mutating func addTerm(_ bytes: UnsafeBufferPointer<UInt8>, key: TermTable.Key) throws(DatabaseError) -> TermTable.Slot {
    let text = String(decoding: bytes, as: UTF8.self)
    let id: TermID
    if !lexiconIsEmpty, let stored = try store.term(text) {
      id = stored.id
    } else {
      if nextTermID == nil {
        // Past the lexicon's largest id. Blocks above it belong to no term (unreachable:
        // lists are found through `rk_terms`) and would join a new term's list, so they
        // go, and terms from here on have no stored blocks (see `unstoredTermsFrom`).
        // Not past them: one stray block must not push ids (and the flush's dense
        // per-term scratch) into the billions.
        let maximum = try store.db.scalar("SELECT coalesce(max(id), 0) FROM rk_terms")?.int64Value ?? 0
        try store.db.run("DELETE FROM rk_blocks WHERE term > ?", [.integer(maximum)])
        nextTermID = TermID(truncatingIfNeeded: maximum + 1)
        unstoredTermsFrom = nextTermID
      }
      id = nextTermID!
      guard id < TermID.max else { throw DatabaseError(code: .full, message: "ranked index: term ids exhausted") }
      nextTermID = id + 1
      newTerms.append((id, text))
    }
    return table.insert(bytes, key: key, id: id)
  }

  /// Appends the keys (`PostingKey`, one per occurrence) of the word tokens `range` of `words` and
  /// of their stems, as the stemming analyzer emits them (`RankedAnalysis`); returns the
  /// number of positions.
  mutating func addKeys(
    of words: WordTokens, _ range: Range<Int>, field: Int, to keys: inout [UInt64]
  ) throws(DatabaseError) -> Int {
    // A local array (swapped back at the end), so the loops below pay no exclusivity
    // check per token.
    var termKeys = self.termKeys
    self.termKeys = []
    defer { self.termKeys = termKeys }
    var positions = 0
    let field = UInt64(field)
    var collapseAt = keys.count + keysBeforeCollapse
    // A run of tokens at a time: the table keys of a whole 12 MB text held 200 MB.
    for start in stride(from: range.lowerBound, to: range.upperBound, by: Self.tokensPerRun) {
      if keys.count >= collapseAt {
        // A huge text: its occurrences merged so far, so they do not hold a key each.
        PostingKey.collapse(&keys)
        collapseAt = 2 * keys.count + keysBeforeCollapse
      }
      let run = start..<min(start + Self.tokensPerRun, range.upperBound)
      termKeys.removeAll(keepingCapacity: true)
      // First every token's key, prefetching the table slot its lookup starts at, so the
      // cache misses of the run overlap instead of stalling one lookup after the other.
      words.forEach(in: run) { (bytes, _, _) in
        let key = TermTable.key(bytes)
        termKeys.append(key)
        table.prefetch(key)
      }
      var index = 0
      try termKeys.withUnsafeBufferPointer { termKeys throws(DatabaseError) in
        try words.forEach(in: run) { (bytes, colocated, stemmable) throws(DatabaseError) in
          if !colocated { positions += 1 }
          let key = termKeys[index]
          index += 1
          let slot = try termSlot(bytes, key: key)
          keys.append(PostingKey.make(term: table.id(at: slot), field: field))
          guard stemmable else { return }
          switch table.stem(at: slot) {
          case .term(let stem): keys.append(PostingKey.make(term: stem, field: field))
          case .itself: break
          case .unknown:
            if let stem = try stem(of: bytes, key: key) { keys.append(PostingKey.make(term: stem, field: field)) }
          }
        }
      }
    }
    return positions
  }

  /// `addKeys(of:…)` of `text` analysed here (`RankedAnalysis.wordAnalyzer`), a run of
  /// tokens at a time, so a long text's tokens are never all held at once (a 5 MB text's
  /// took 100 MB); `words` is the run's scratch. Returns the number of positions.
  mutating func addKeys(
    analyzing text: String, field: Int, to keys: inout [UInt64], scratch words: inout WordTokens
  ) throws(DatabaseError) -> Int {
    var positions = 0
    var collapseAt = keys.count + keysBeforeCollapse
    words.removeAll()
    func addRun() throws(DatabaseError) {
      if keys.count >= collapseAt {
        PostingKey.collapse(&keys)
        collapseAt = 2 * keys.count + keysBeforeCollapse
      }
      positions += try addKeys(of: words, 0..<words.count, field: field, to: &keys)
      words.removeAll()
    }
    try RankedAnalysis.wordAnalyzer.tokenize(text, mode: .document) { (token) throws(DatabaseError) in
      words.append(token)
      if words.count >= Self.tokensPerRun { try addRun() }
    }
    if words.count > 0 { try addRun() }
    return positions
  }

  /// Tokens whose keys `addKeys` computes and prefetches before looking them up.
  static let tokensPerRun = 4096
  /// Posting keys `addKeys` appends before it merges equal ones (8 MB of them); a task-local
  /// so tests can make every text collapse.
  @TaskLocal static var keysBeforeCollapse = 1 << 20

  /// The stem term of the stemmable word `bytes` (in `table` under `key`), also when the
  /// word is its own stem (see `RankedAnalysis`); recorded in the table.
  /// Only called for stemmable tokens (all `a`…`z` and not cut short), whose stem depends
  /// on their bytes alone, so it is computed once per term.
  private mutating func stem(of bytes: UnsafeBufferPointer<UInt8>, key: TermTable.Key) throws(DatabaseError) -> TermID? {
    var scratch = stemScratch
    stemScratch = []
    defer { stemScratch = scratch }
    let stem = try scratch.withUnsafeMutableBufferPointer { buffer throws(DatabaseError) -> TermID? in
      let stemBuffer = buffer.baseAddress!
      stemBuffer[0] = TextAnalyzer.stemMarker
      (stemBuffer + 1).update(from: bytes.baseAddress!, count: bytes.count)
      let length = PorterStemmer.stem(stemBuffer + 1, count: bytes.count)
      let stemBytes = UnsafeBufferPointer(start: stemBuffer, count: length + 1)
      // Two statements on purpose: in `table.id(at: try termSlot(…))` Swift loads `table`
      // before the argument runs, so when adding the stem grows the table the new slot was
      // read from the old storage (past its end once the table doubled): a garbage id.
      let slot = try termSlot(stemBytes, key: TermTable.key(stemBytes))
      return table.id(at: slot)
    }
    // Adding the stem term may have moved the word's slot.
    if let slot = table.find(bytes, key: key) { table.setStem(stem.map { .term($0) } ?? .itself, at: slot) }
    return stem
  }
}
