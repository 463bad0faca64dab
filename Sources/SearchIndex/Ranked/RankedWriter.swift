/// Keeps the ranked index of one named index in step with its items, inside the write
/// transaction of `SearchIndex.write` (`IndexWriter` calls it), so postings and items
/// commit together or not at all.
///
/// Changes are collected in memory (`index`, `remove`) and applied by `flush`, which
/// `IndexWriter.finish` calls before the commit; a bulk ingest therefore builds its
/// postings in memory and writes each touched block once. Very large transactions flush
/// whenever the collected postings reach `flushBytes` (or `flushThreshold` postings), still
/// inside the same transaction, so a million-item ingest runs in bounded memory.
///
/// Applying a change:
/// - a document that was live is retired: its live bit, lengths and document
///   frequencies go at once; its postings stay (the document is now a tombstone in
///   `rk_dead`), skipped by queries because the document is not live, until compaction
///   or a re-add of the same rowid removes them;
/// - a new version's postings are merged into the blocks they belong in. Only those
///   blocks are read and rewritten (one `lastDoc >=` lookup per touched block, the tail
///   for appends). A rewritten block's bound is the larger of its old bound (when it
///   keeps old postings) and the exact pseudo-frequency of the new postings, so no
///   other document's lengths are needed; `compact` recomputes bounds exactly;
/// - a document retired and indexed again (an item rewritten) keeps the stored postings
///   that did not change (`keptTerms`), and only its changed terms' blocks are rewritten.
///
/// When the stored postings do not match the file (`rk_stats` missing, from another
/// generation or another fingerprint: written by a binary without the ranked index),
/// the writer ignores the collected changes and rebuilds the ranked index from the FTS5
/// rows in `flush`, so the commit leaves postings and items agreeing either way.
final class RankedWriter {
  /// Postings collected before an intermediate flush; a task-local so tests can make
  /// every transaction flush many times.
  @TaskLocal static var flushThreshold = 4_000_000
  /// Bytes of collected postings before an intermediate flush: the memory budget of a bulk
  /// load (the flush's own scratch is about as large again). Measured on 100,000 documents
  /// (BENCHMARKS.md): 32 MB keeps the whole ingest near 250 MB at about 5,400 items/s; 128 MB
  /// is about 20% faster (fewer flushes re-encode fewer tail blocks) but peaks near 370 MB.
  static let flushBytes = 32 << 20
  /// Distinct terms a transaction keeps state for in memory (the term table, open tails,
  /// frequency deltas: about 300 bytes each) before an intermediate flush writes that state
  /// out; checked after every item, since a folder of documents can bring hundreds of
  /// thousands of terms (versions, hashes, identifiers) in a few megabytes of postings. Above
  /// the vocabularies of 1M Zipf documents (54k), 1M sample items (120k) and Debian's package
  /// list (113k), so they never spill; `/usr/share/doc` (565k) peaked at 310 MB with 250,000
  /// and 262 MB with this. A task-local so tests can make every flush spill.
  @TaskLocal static var termsKept = 150_000
  /// Tombstones that trigger a compaction at the end of the final flush: a quarter of the
  /// live documents, and at least this many. Only the final flush compacts: a mass delete's
  /// intermediate flushes would otherwise rewrite nearly every list halfway through and
  /// leave the rest of its tombstones for later.
  static let compactionMinimum = 64
  /// Called while `compact` goes through the lists: postings done, postings to do (a long
  /// delete's progress; big lists take longest, so postings measure the work better than
  /// lists do).
  var compactionProgress: ((_ done: Int, _ total: Int) -> Void)?

  private let store: RankedStore
  private let flushThreshold = RankedWriter.flushThreshold
  private let termsKept = RankedWriter.termsKept
  private let parameters = RankedSchema.parameters
  private let fieldCount = RankedSchema.parameters.fieldCount

  private var loaded = false
  /// `SearchIndex.maintainsRankedIndex` was off: every call is a no-op and the stored
  /// postings go stale.
  private let disabled = !SearchIndex.maintainsRankedIndex
  private var needsRebuild = false
  private var generationAtStart: Int64 = 0
  private var stats: RankedStatistics
  /// Pages read or created in this transaction (the transaction's view of lengths and
  /// liveness), and those that must be written back.
  private var documents: DocumentTable
  private var dirtyPages = Set<Int64>()
  private var checkedPages = Set<Int64>()
  /// The ids of the terms seen in this transaction and the new ones to store.
  private var terms: TermResolver
  /// Document frequency changes not yet written; written by the final flush (queries
  /// are the only readers, and they see the transaction only once it commits).
  private var documentFrequencyDeltas: [TermID: Int] = [:]
  /// Flush scratch: term id -> slot in the flush's grouping, -1 when untouched.
  private var slotOfTerm: [Int32] = []
  /// The last block of each list as this transaction wrote it, so the next flush
  /// appends without reading it back.
  private var tails: [TermID: PostingBlock] = [:]
  /// Lists whose last block, short of a full block, is only in memory (and not in
  /// `tails`): an intermediate flush keeps it open, because the next flush would rewrite
  /// it (a delete and an insert scattered over `rk_blocks` for every touched term, which
  /// at a million items rewrote most of the table's pages on every flush) and appends to
  /// it without decoding; the final flush writes them.
  private var openTails: [TermID: OpenTail] = [:]

  /// Documents waiting to be written.
  private var pending = PendingDocuments(fieldCount: RankedSchema.parameters.fieldCount)
  private var removed = Set<DocID>()
  /// The term ids of each stored document `remove` retires, from the texts it was indexed
  /// with, until the flush takes its postings and frequencies out. (The file keeps no
  /// forward index: 169 bytes a document at 100k, 8% of the file.)
  private var retiredTerms: [DocID: [TermID]] = [:]
  /// Retired documents whose terms a transaction holds before an intermediate flush (about
  /// 300 bytes each): a mass delete stays in bounded memory. A task-local so tests reach it.
  @TaskLocal static var retiredBeforeFlush = 100_000
  private let retiredBeforeFlush = RankedWriter.retiredBeforeFlush
  /// The stored version of the document `remove` retired last (its posting keys and field
  /// lengths), until the next `index` or flush: an item rewritten is retired and indexed
  /// again one call after the other, and its postings that did not change stay where they
  /// are (`keptTerms`).
  private var lastRetired: (doc: DocID, keys: [UInt64], lengths: [Int])?
  /// Per document retired and indexed again since the last flush: the terms whose stored
  /// posting it keeps (the same frequencies in every field, and no field it occurs in grew
  /// shorter, so its pseudo-frequency, and with it every bound over it, can only have
  /// fallen). They are left out of both its retired terms and its pending postings, so the
  /// flush rewrites only the blocks of the terms that changed (an edited note keeps most of
  /// its words: re-indexing 20,000 of 200,000 items rewrote a block for every word of each).
  private var keptTerms: [DocID: [TermID]] = [:]
  /// Documents `index` kept some stored postings of (for tests).
  private(set) var documentsKeepingPostings = 0
  /// Terms listed in `retiredTerms` and `keptTerms`, which the memory budget counts with the
  /// pending postings: a rewrite that keeps most of its postings adds little to `pending`,
  /// and 97,000 edited items of a million held 20 MB of such lists before the final flush.
  private var heldTerms = 0
  /// What `retiredTerms` and `keptTerms` hold, in bytes: their terms, and a list and a
  /// dictionary entry per document.
  private var heldBytes: Int { heldTerms * MemoryLayout<TermID>.stride + (retiredTerms.count + keptTerms.count) * 96 }
  /// Scratch for `index`.
  private var keys: [UInt64] = []
  /// Texts `index` analysed itself because no capture held their tokens (for tests).
  private(set) var reanalysedColumns = 0
  /// The most terms the term table held once an item was collected (for tests).
  private(set) var mostTermsHeld = 0
  /// Scratch for `index`: the word tokens of a text that was not captured.
  private var words = WordTokens()

  init(connection: Connection, indexID: Int64) {
    store = RankedStore(db: connection, indexID: indexID, keepingStatements: true)
    terms = TermResolver(store: store)
    stats = RankedStatistics(fieldCount: RankedSchema.parameters.fieldCount, generation: 0)
    documents = DocumentTable(fieldCount: RankedSchema.parameters.fieldCount)
  }

  /// Reads the statistics row and decides whether the stored postings are current.
  private func load() throws {
    guard !loaded else { return }
    if disabled {
      loaded = true
      needsRebuild = false
      return
    }
    loaded = true
    if try !RankedSchema.exists(store.db) { try store.db.execute(RankedSchema.createStatements) }
    generationAtStart = try store.generation()
    if let stored = try store.statistics(), stored.generation == generationAtStart,
      stored.fingerprint == RankedSchema.fingerprint
    {
      stats = stored
      terms.lexiconIsEmpty = try store.db.scalar("SELECT 1 FROM rk_terms WHERE indexId = ? LIMIT 1", [.integer(store.indexID)]) == nil
    } else {
      needsRebuild = true
    }
  }

  // MARK: - Collecting changes

  /// Whether this writer maintains the ranked index (`SearchIndex.maintainsRankedIndex`);
  /// when false, `index` ignores its texts and nobody needs to capture their tokens.
  var isEnabled: Bool { !disabled }

  /// Indexes the item at `rowid` with the texts of the FTS5 columns (`Schema.ftsColumns`),
  /// replacing any version of it. A column whose tokens `capture` holds for exactly its
  /// text (recorded while FTS5 tokenized it) is not analysed again.
  func index(_ rowid: DocID, columns: [String], capture: TokenCapture? = nil) throws {
    try load()
    guard !needsRebuild, !disabled else { return }
    precondition(columns.count == fieldCount, "one text per FTS5 column")
    try withKeys(of: columns, capture: capture) { keys, lengths in
      restoreKeptTerms(of: rowid)
      pending.remove(rowid)
      removed.insert(rowid)
      let retired = lastRetired
      lastRetired = nil
      guard !keys.isEmpty else { return }
      if let retired, retired.doc == rowid, let stored = retiredTerms[rowid] {
        let kept = Self.unchangedTerms(
          stored: retired.keys, storedLengths: retired.lengths, new: keys, newLengths: lengths, fieldCount: fieldCount)
        if !kept.isEmpty {
          keptTerms[rowid] = kept
          documentsKeepingPostings += 1
          retiredTerms[rowid] = Self.terms(stored, without: kept)
          Self.removeKeys(of: kept, from: &keys)
        }
      }
      // Added even with no posting left to write: the document is live again, with its new
      // lengths, and keeps its stored postings.
      keys.withUnsafeBufferPointer { pending.add(rowid, lengths: lengths, keys: $0) }
      mostTermsHeld = max(mostTermsHeld, terms.termCount)
      if pending.postingCount >= flushThreshold || pending.byteCount + heldBytes >= Self.flushBytes || terms.termCount > termsKept {
        try flush(final: false)
      }
    }
  }

  /// Calls `body` with the sorted posting keys (`PostingKey`) of the texts `columns` and each
  /// field's length in positions: from the tokens `capture` holds for a column's exact text,
  /// else analysed here. The keys live in the writer's scratch, a local array while `body`
  /// runs (class properties would pay an exclusivity check per token), kept for the next
  /// item unless a huge text grew it past 4 MB.
  private func withKeys(of columns: [String], capture: TokenCapture?, _ body: (inout [UInt64], [Int]) throws -> Void) throws {
    var keys = self.keys
    self.keys = []
    defer { self.keys = keys.capacity <= 1 << 19 ? keys : [] }
    keys.removeAll(keepingCapacity: true)
    var lengths = Array(repeating: 0, count: fieldCount)
    for (field, text) in columns.enumerated() where !text.isEmpty {
      var positions = 0
      let captured = try capture?.withTokens(ofColumn: field, text: text) { (words, range) throws(DatabaseError) in
        positions = try terms.addKeys(of: words, range, field: field, to: &keys)
      }
      if captured != true {
        reanalysedColumns += 1
        var words = self.words
        self.words = WordTokens()
        defer { self.words = words }
        positions = try terms.addKeys(analyzing: text, field: field, to: &keys, scratch: &words)
      }
      lengths[field] = positions
    }
    keys.sort()
    try body(&keys, lengths)
  }

  /// Removes the item at `rowid`, whose stored version was indexed with the texts
  /// `columns` (derived from its record as `index` got them; `capture` may hold their
  /// tokens, from FTS5's delete). A no-op for an item that is not indexed.
  func remove(_ rowid: DocID, columns: [String], capture: TokenCapture? = nil) throws {
    try load()
    guard !needsRebuild, !disabled else { return }
    let indexedSinceFlush = pending.contains(rowid)
    restoreKeptTerms(of: rowid)
    removed.insert(rowid)
    pending.remove(rowid)
    // Texts of a version this transaction indexed after the last flush are not the stored
    // version's; that version's terms were taken when it was retired.
    guard !indexedSinceFlush, retiredTerms[rowid] == nil else {
      if indexedSinceFlush { lastRetired = nil }
      return
    }
    let newTerms = terms.newTerms.count
    lastRetired = nil
    try withKeys(of: columns, capture: capture) { keys, lengths in
      guard terms.newTerms.count == newTerms else {
        // A term the stored postings cannot hold: they do not match the records, so the
        // flush builds them again from the records.
        needsRebuild = true
        return
      }
      var documentTerms: [TermID] = []
      for key in keys where documentTerms.last != PostingKey.term(key) { documentTerms.append(PostingKey.term(key)) }
      retiredTerms[rowid] = documentTerms
      heldTerms += documentTerms.count
      lastRetired = (rowid, keys, lengths)
    }
    if retiredTerms.count >= retiredBeforeFlush || pending.byteCount + heldBytes >= Self.flushBytes || terms.termCount > termsKept {
      try flush(final: false)
    }
  }

  /// Gives the document back the stored terms it kept (`keptTerms`) when its pending version
  /// is dropped: the flush then takes out every posting of the stored version again.
  private func restoreKeptTerms(of doc: DocID) {
    guard let kept = keptTerms.removeValue(forKey: doc) else { return }
    retiredTerms[doc] = ((retiredTerms[doc] ?? []) + kept).sorted()
  }

  /// The terms whose posting is the same in a document's stored version (posting keys
  /// `stored`, field lengths `storedLengths`) and its new one, and whose fields of the new
  /// version are each at least as long wherever the term occurs: the stored posting, and the
  /// bound of the block holding it, still hold for the new version. Keys ascend (`PostingKey`).
  static func unchangedTerms(
    stored: [UInt64], storedLengths: [Int], new: [UInt64], newLengths: [Int], fieldCount: Int
  ) -> [TermID] {
    let old = postings(of: stored, fieldCount: fieldCount)
    let current = postings(of: new, fieldCount: fieldCount)
    var kept: [TermID] = []
    var o = 0
    var n = 0
    while o < old.terms.count && n < current.terms.count {
      let term = old.terms[o]
      if term < current.terms[n] {
        o += 1
      } else if term > current.terms[n] {
        n += 1
      } else {
        var same = true
        for field in 0..<fieldCount {
          let frequency = old.frequencies[o * fieldCount + field]
          if frequency != current.frequencies[n * fieldCount + field]
            || (frequency > 0 && newLengths[field] < storedLengths[field])
          {
            same = false
            break
          }
        }
        if same { kept.append(term) }
        o += 1
        n += 1
      }
    }
    return kept
  }

  /// Ascending distinct terms of ascending posting keys, with each term's frequency per field.
  private static func postings(of keys: [UInt64], fieldCount: Int) -> (terms: [TermID], frequencies: [UInt32]) {
    var terms: [TermID] = []
    var frequencies: [UInt32] = []
    for key in keys {
      let term = PostingKey.term(key)
      if terms.last != term {
        terms.append(term)
        frequencies.append(contentsOf: repeatElement(0, count: fieldCount))
      }
      frequencies[(terms.count - 1) * fieldCount + PostingKey.field(key)] += PostingKey.occurrences(key)
    }
    return (terms, frequencies)
  }

  /// `terms` less `removing` (both ascending).
  private static func terms(_ terms: [TermID], without removing: [TermID]) -> [TermID] {
    var result: [TermID] = []
    result.reserveCapacity(terms.count)
    var r = 0
    for term in terms {
      while r < removing.count && removing[r] < term { r += 1 }
      if r < removing.count && removing[r] == term { continue }
      result.append(term)
    }
    return result
  }

  /// Drops from ascending posting `keys` those of the ascending `terms`.
  private static func removeKeys(of terms: [TermID], from keys: inout [UInt64]) {
    var t = 0
    var write = 0
    for key in keys {
      let term = PostingKey.term(key)
      while t < terms.count && terms[t] < term { t += 1 }
      if t < terms.count && terms[t] == term { continue }
      keys[write] = key
      write += 1
    }
    keys.removeLast(keys.count - write)
  }

  /// Removes every document of this index (`IndexWriter.deleteRows` when every item of the
  /// file goes): its postings, lexicon and pages are wiped, as a rebuild starts.
  func removeAll() throws {
    try load()
    guard !disabled else { return }
    try wipe()
  }

  // MARK: - Applying changes

  /// Applies the collected changes (or rebuilds, when the stored postings are stale).
  /// The final flush (the default; `IndexWriter.finish` calls it) also writes the
  /// document frequencies; intermediate ones of a large transaction leave them in memory.
  func flush(final: Bool = true) throws {
    try load()
    guard !disabled else { return }
    if needsRebuild {
      try rebuild()
      return
    }
    guard
      !pending.isEmpty || !removed.isEmpty || !terms.newTerms.isEmpty
        || (final && (!documentFrequencyDeltas.isEmpty || !openTails.isEmpty))
    else {
      return
    }
    // Retires applied now: an `index` after this flush finds its document's stored postings
    // through the tombstone, not the texts `remove` was given.
    lastRetired = nil
    for doc in keptTerms.keys where !pending.contains(doc) { restoreKeptTerms(of: doc) }
    keptTerms.removeAll()
    var removals: [TermID: [DocID]] = [:]
    for doc in removed.sorted() {
      try ensurePage(of: doc)
      if let retired = documents.remove(doc) {
        guard let terms = retiredTerms[doc] else {
          // Retired without the texts it was indexed with (no caller does): its postings
          // cannot be found, so they are built again from the records.
          try rebuild()
          return
        }
        dirtyPages.insert(DocumentTable.page(of: doc))
        stats.remove(fieldLengths: retired.fieldLengths)
        for term in terms { documentFrequencyDeltas[term, default: 0] -= 1 }
        if pending.contains(doc) {
          // Replaced in this flush: remove the old postings now.
          for term in terms { removals[term, default: []].append(doc) }
        } else {
          try store.saveTombstone(TermListCodec.encode(terms), of: doc)
          stats.tombstones += 1
        }
      } else if pending.contains(doc), stats.tombstones > 0, let stale = try store.tombstone(doc) {
        // A rowid reused after a delete: purge the deleted version's postings first.
        for term in TermListCodec.decode(stale) { removals[term, default: []].append(doc) }
        try store.deleteTombstone(doc)
        stats.tombstones -= 1
      }
    }
    retiredTerms.removeAll()
    heldTerms = 0
    // The new postings grouped by term (a counting sort over term ids), each term's in
    // ascending doc order because documents are visited in that order.
    let entries = pending.entriesInOrder()
    var touched: [TermID] = []
    var counts: [Int] = []
    // A local copy (swapped back when done): class properties would pay an exclusivity
    // check per posting.
    var slotOfTerm = self.slotOfTerm
    self.slotOfTerm = []
    let termLimit = Int(terms.nextTermID ?? 0) + 1
    pending.withTerms { terms, _ in
      for entry in entries {
        let range = pending.termRange(of: entry)
        if let last = range.last.map({ terms[$0] }), Int(last) >= slotOfTerm.count {
          slotOfTerm.append(contentsOf: repeatElement(-1, count: max(Int(last) + 1, termLimit) - slotOfTerm.count))
        }
      }
      for entry in entries {
        for term in terms[pending.termRange(of: entry)] {
          let slot = slotOfTerm[Int(term)]
          if slot >= 0 {
            counts[Int(slot)] += 1
          } else {
            slotOfTerm[Int(term)] = Int32(counts.count)
            touched.append(term)
            counts.append(1)
          }
        }
      }
    }
    var starts = Array(repeating: 0, count: counts.count + 1)
    for slot in counts.indices { starts[slot + 1] = starts[slot] + counts[slot] }
    var documentLengths: [[Int]] = []
    documentLengths.reserveCapacity(entries.count)
    for entry in entries {
      let doc = pending.doc(of: entry)
      let lengths = pending.lengths(of: entry)
      documentLengths.append(lengths)
      try ensurePage(of: doc)
      documents.insert(doc, fieldLengths: lengths, encodedTerms: nil)
      dirtyPages.insert(DocumentTable.page(of: doc))
      stats.add(fieldLengths: lengths)
    }
    if stats.basis == nil && stats.documentCount > 0 {
      stats.basis = ScoreBoundBasis(averageFieldLengths: stats.averageFieldLengths)
    }
    // Each new posting with its pseudo-frequency at the basis (its contribution to the
    // bound of the block it lands in), from norms computed once per document.
    let total = starts.last ?? 0
    var fill = Array(starts.dropLast())
    var postingDocs = Array(repeating: DocID(0), count: total)
    var postingFrequencies = Array(repeating: UInt32(0), count: total * fieldCount)
    var postingBounds = Array(repeating: 0.0, count: total)
    let basisScorer = stats.basis.map { BM25FScorer(parameters: parameters, averageFieldLengths: $0.averageFieldLengths) }
    var norms = Array(repeating: 0.0, count: fieldCount)
    let fieldCount = self.fieldCount
    // On raw buffers: no bounds or uniqueness checks per posting.
    postingDocs.withUnsafeMutableBufferPointer { postingDocs in
      postingFrequencies.withUnsafeMutableBufferPointer { postingFrequencies in
        postingBounds.withUnsafeMutableBufferPointer { postingBounds in
          fill.withUnsafeMutableBufferPointer { fill in
            slotOfTerm.withUnsafeBufferPointer { slotOfTerm in
              pending.withTerms { terms, frequencies in
                for (entry, lengths) in zip(entries, documentLengths) {
                  let doc = pending.doc(of: entry)
                  if let basisScorer {
                    for field in 0..<fieldCount { norms[field] = basisScorer.norm(field: field, length: lengths[field]) }
                  }
                  for index in pending.termRange(of: entry) {
                    let slot = Int(slotOfTerm[Int(terms[index])])
                    let position = fill[slot]
                    fill[slot] = position + 1
                    postingDocs[position] = doc
                    var ptf = 0.0
                    for field in 0..<fieldCount {
                      let frequency = frequencies[index * fieldCount + field]
                      postingFrequencies[position * fieldCount + field] = frequency
                      ptf += Double(frequency) * norms[field]
                    }
                    postingBounds[position] = ptf
                  }
                }
              }
            }
          }
        }
      }
    }
    for term in touched { slotOfTerm[Int(term)] = -1 }
    self.slotOfTerm = slotOfTerm
    pending.removeAll()
    removed.removeAll()
    // Terms in id order, so block rows and lexicon rows are visited in key order.
    var order = Array(touched.indices)
    order.sort { touched[$0] < touched[$1] }
    if stats.basis != nil {
      var editor = BlockWriter(
        store: store, fieldCount: fieldCount, docs: postingDocs, frequencies: postingFrequencies,
        bounds: postingBounds, tails: tails, unstoredTermsFrom: terms.unstoredTermsFrom,
        openTails: openTails, defersShortTails: !final)
      tails = [:]
      openTails = [:]
      for slot in order {
        let term = touched[slot]
        try editor.apply(to: term, removing: removals.removeValue(forKey: term)?.sorted() ?? [], inserting: starts[slot]..<starts[slot + 1])
      }
      for term in removals.keys.sorted() {
        try editor.apply(to: term, removing: removals[term]!.sorted(), inserting: 0..<0)
      }
      tails = editor.tails
      openTails = editor.openTails
    }
    // What the writer keeps per term (the term table, tails, open tails, frequency deltas)
    // grows with the transaction's vocabulary: past `termsKept` terms an intermediate flush
    // writes it all out and starts afresh, as the final one does.
    let spills = !final && terms.termCount > termsKept
    if final || spills {
      for (term, tail) in openTails.sorted(by: { $0.key < $1.key }) {
        let block = tail.block(maxPseudoTF: tail.bound)
        try store.insert(block, of: term)
        if final { tails[term] = block }
      }
      openTails.removeAll()
    }
    for slot in touched.indices { documentFrequencyDeltas[touched[slot], default: 0] += counts[slot] }
    // New terms go in now (compaction and rebasing find lists through `rk_terms`), with
    // the frequency they have so far.
    for (id, text) in terms.newTerms {
      try store.insertTerm(id: id, text: text, df: documentFrequencyDeltas.removeValue(forKey: id) ?? 0)
    }
    terms.newTerms.removeAll()
    if final || spills {
      for (term, delta) in documentFrequencyDeltas.sorted(by: { $0.key < $1.key }) where delta != 0 {
        try store.addDocumentFrequency(delta, to: term)
      }
      documentFrequencyDeltas.removeAll()
    }
    if spills {
      // Every list's blocks are in `rk_blocks` now: look tails up there from here on.
      tails.removeAll()
      terms.unstoredTermsFrom = nil
      terms.forgetTerms()
    }
    for number in dirtyPages.sorted() {
      if let page = documents.page(number) { try store.save(page) }
    }
    dirtyPages.removeAll()
    if stats.documentCount == 0 { stats.basis = nil }
    try store.save(stats)
    if final, stats.tombstones >= max(Self.compactionMinimum, stats.documentCount / 4) {
      try compact(rebaseTolerance: 0.25, repack: false)
    }
  }

  /// Makes the page holding `doc` part of `documents`, loading it when stored.
  private func ensurePage(of doc: DocID) throws {
    let number = DocumentTable.page(of: doc)
    guard !documents.holdsPage(number), checkedPages.insert(number).inserted else { return }
    if let page = try store.page(number) { documents.install(page) }
  }

  /// Marks the postings current for the generation this transaction commits: called
  /// after `IndexWriter` bumped the generation. Only rows that were current when the
  /// transaction began move along, so a stale row of another named index stays stale.
  func stampGeneration() throws {
    try load()
    guard !disabled else { return }
    let generation = try store.generation()
    try store.db.run(
      "UPDATE rk_stats SET generation = ? WHERE generation = ?", [.integer(generation), .integer(generationAtStart)])
  }

  // MARK: - Rebuild and compaction

  /// Replaces this index's postings with ones built from its records (the same texts
  /// `IndexWriter` indexes, see `FullTextColumns`), in this transaction.
  func rebuild(progress: ((_ done: Int) -> Void)? = nil) throws {
    try wipe()
    // The column texts are derived from the records as the writer derived them (indexing
    // may flush: `forEachItem` reads each chunk before handing it over).
    try FullTextColumns.forEachItem(
      in: store.db, catalog: try SearchIndex.loadCatalog(store.db), where: "i.indexId = ?", [.integer(store.indexID)],
      progress: progress
    ) { rowid, columns in
      if columns.contains(where: { !$0.isEmpty }) { try index(rowid, columns: columns) }
    }
    try flush()
  }

  /// Empties this index's postings, lexicon, pages and tombstones, and the writer's state.
  private func wipe() throws {
    if !loaded {
      loaded = true
      generationAtStart = try store.generation()
    }
    try store.wipe()
    needsRebuild = false
    stats = RankedStatistics(fieldCount: fieldCount, generation: generationAtStart)
    documents = DocumentTable(fieldCount: fieldCount)
    dirtyPages.removeAll()
    checkedPages.removeAll()
    terms = TermResolver(store: store)
    terms.lexiconIsEmpty = true
    tails.removeAll()
    openTails.removeAll()
    documentFrequencyDeltas.removeAll()
    pending.removeAll()
    removed.removeAll()
    retiredTerms.removeAll()
    keptTerms.removeAll()
    heldTerms = 0
    lastRetired = nil
    try store.save(stats)
  }

  /// Removes tombstoned postings (rewriting the lists that hold them, with exact
  /// bounds), repacks fragmented lists when `repack`, and recomputes every bound at the
  /// current averages when they drifted more than `rebaseTolerance` from the basis.
  func compact(rebaseTolerance: Double = 0.05, repack: Bool = true) throws {
    try flush()
    guard !needsRebuild, !disabled else { return }
    if stats.documentCount == 0 {
      // Nothing is live: every stored posting is dead.
      tails.removeAll()
      terms.unstoredTermsFrom = nil
      try store.db.run(
        "DELETE FROM rk_blocks WHERE term IN (SELECT id FROM rk_terms WHERE indexId = ?)", [.integer(store.indexID)])
      try store.deleteAllTombstones()
      stats.tombstones = 0
      stats.basis = nil
      try store.save(stats)
      return
    }
    // Every page, so liveness and lengths are known for any posting.
    var all = DocumentTable(fieldCount: fieldCount)
    for (number, bytes) in try store.db.rows(
      "SELECT page, data FROM rk_pages WHERE indexId = ?", [.integer(store.indexID)], { ($0.int64(0), $0.blob(1)) })
    {
      guard let page = DocumentPage.decode(number: number, fieldCount: fieldCount, bytes: bytes) else {
        throw DatabaseError(code: .corrupt, message: "ranked index: page \(number) is malformed")
      }
      all.install(page)
    }
    documents = all
    checkedPages.removeAll()
    // Rewritten lists are not in `tails`: look every list up from now on.
    tails.removeAll()
    terms.unstoredTermsFrom = nil
    var rewrite = Set<TermID>()
    for (_, encoded) in try store.allTombstones() {
      for term in TermListCodec.decode(encoded) { rewrite.insert(term) }
    }
    let counts = try store.termBlockCounts()
    if repack {
      for entry in counts {
        let minimum = (entry.postings + BlockCodec.capacity - 1) / BlockCodec.capacity
        if entry.blocks > minimum + minimum / 4 + 1 { rewrite.insert(entry.term) }
      }
    }
    var basis = stats.basis
    let averages = stats.averageFieldLengths
    let rebase = stats.documentCount > 0 && (basis.map { $0.drift(currentAverages: averages) > rebaseTolerance } ?? true)
    if rebase { basis = ScoreBoundBasis(averageFieldLengths: averages) }
    if let basis {
      let editor = PostingListEditor(
        fieldCount: fieldCount, documents: documents,
        basisScorer: BM25FScorer(parameters: parameters, averageFieldLengths: basis.averageFieldLengths))
      let work = counts.reduce(0) { $0 + (rebase || rewrite.contains($1.term) ? $1.postings : 0) }
      var done = 0
      compactionProgress?(0, work)
      for entry in counts where rebase || rewrite.contains(entry.term) {
        defer {
          done += entry.postings
          compactionProgress?(done, work)
        }
        let list = try store.postingList(entry.term)
        if rewrite.contains(entry.term) {
          var live = PostingBuffer(fieldCount: fieldCount)
          for block in list.blocks {
            let postings = BlockCodec.decode(block, fieldCount: fieldCount)
            for index in 0..<postings.count where documents.contains(postings.docs[index]) {
              live.append(from: postings, at: index)
            }
          }
          try store.db.run("DELETE FROM rk_blocks WHERE term = ?", [.integer(Int64(entry.term))])
          for block in editor.makeBlocks(live, packTail: true) { try store.insert(block, of: entry.term) }
        } else {
          for block in list.blocks {
            let bound = editor.maxPseudoTF(BlockCodec.decode(block, fieldCount: fieldCount), range: 0..<block.postingCount)
            if bound != block.maxPseudoTF { try store.updateBound(of: entry.term, lastDoc: block.lastDoc, to: bound) }
          }
        }
      }
    }
    try store.deleteAllTombstones()
    stats.tombstones = 0
    stats.basis = stats.documentCount > 0 ? basis : nil
    try store.save(stats)
  }
}

/// Applies removals and insertions to one term's stored blocks, touching only the
/// blocks they land in (see `RankedWriter`). New postings come from flat arrays
/// (`docs`, `frequencies`), grouped by term.
private struct BlockWriter {
  let store: RankedStore
  let fieldCount: Int
  let docs: [DocID]
  let frequencies: [UInt32]
  /// Basis pseudo-frequency of each new posting.
  let bounds: [Double]
  /// Each list's last block as written in this transaction (see `RankedWriter.tails`).
  var tails: [TermID: PostingBlock]
  /// Terms from here on have no stored blocks but those in `tails` and `openTails`.
  let unstoredTermsFrom: TermID?
  /// Lists whose last block is short and only in memory (see `RankedWriter.openTails`).
  var openTails: [TermID: OpenTail]
  /// Keep a last block of fewer than `BlockCodec.capacity` postings open in memory (an
  /// intermediate flush) instead of writing it.
  let defersShortTails: Bool

  /// `removals` ascending; `insertions` (a range of `docs`) ascending.
  mutating func apply(to term: TermID, removing removals: [DocID], inserting insertions: Range<Int>) throws {
    let open = openTails[term]
    if let open {
      // Removals past the tail cannot be in the list.
      if removals.first.map({ $0 > open.lastDoc }) ?? true,
        insertions.isEmpty || docs[insertions.lowerBound] > open.lastDoc
      {
        if !insertions.isEmpty { try append(insertions, toOpenTailOf: term) }
        return
      }
      // Removals inside it or insertions before its end (an item written twice in one
      // write): the general path below, on its block.
      tails[term] = open.block(maxPseudoTF: open.bound)
      openTails[term] = nil
    }
    let tailIsOpen = open != nil
    let isUnstored = unstoredTermsFrom.map { term >= $0 } ?? false
    guard let tail = try tails[term] ?? (isUnstored ? nil : store.tailBlock(of: term)) else {
      try writeNew(insertions, packTail: true, term: term)
      return
    }
    var r = 0
    var i = insertions.lowerBound
    // Removals past the tail cannot be in the list.
    let removalCount = removals.firstIndex(where: { $0 > tail.lastDoc }) ?? removals.count
    if removalCount == 0, tail.postingCount == BlockCodec.capacity, !tailIsOpen,
      insertions.isEmpty || docs[insertions.lowerBound] > tail.lastDoc
    {
      // Appends after a full stored block start new blocks and leave it as it is.
      try writeNew(insertions, packTail: true, term: term)
      return
    }
    while r < removalCount || i < insertions.upperBound {
      let next = min(r < removalCount ? removals[r] : .max, i < insertions.upperBound ? docs[i] : .max)
      let found = next > tail.lastDoc ? nil : try store.block(of: term, atOrAfter: next)
      let block = found ?? tail
      let isTail = block.lastDoc == tail.lastDoc
      let upper = isTail ? DocID.max : block.lastDoc
      let removalStart = r
      while r < removalCount && removals[r] <= upper { r += 1 }
      let insertionStart = i
      while i < insertions.upperBound && docs[i] <= upper { i += 1 }
      let old = BlockCodec.decode(block, fieldCount: fieldCount)
      if !isTail || !tailIsOpen { try store.deleteBlock(of: term, lastDoc: block.lastDoc) }
      try write(
        old, Array(removals[removalStart..<r]), insertionStart..<i, bound: block.maxPseudoTF, packTail: isTail, term: term)
      if isTail { return }
    }
    // The edits stayed in stored blocks before the open tail: it stays open.
    if let open {
      openTails[term] = open
      tails[term] = nil
    }
  }

  /// Appends the new postings `range` of `docs`, all after the open tail of `term`, to
  /// it: each block that fills is stored, a short remainder stays open (or is stored when
  /// short tails are not deferred). The blocks and bounds are those `write` makes from
  /// the decoded tail and the same postings: the first block holds the tail's postings
  /// and so keeps its bound, later ones are bounded by their new postings alone.
  private mutating func append(_ range: Range<Int>, toOpenTailOf term: TermID) throws {
    var tail = openTails.removeValue(forKey: term)
    let oldBound = tail?.bound
    var holdsOld = true
    var best = 0.0
    let fieldCount = self.fieldCount
    let docs = self.docs
    let bounds = self.bounds
    try self.frequencies.withUnsafeBufferPointer { frequencies in
      for n in range {
        let row = UnsafeBufferPointer(rebasing: frequencies[(n * fieldCount)..<((n + 1) * fieldCount)])
        if tail == nil {
          tail = OpenTail(doc: docs[n], frequencies: row)
          holdsOld = false
          best = 0
        } else {
          tail!.append(doc: docs[n], frequencies: row)
        }
        best = max(best, bounds[n])
        if tail!.count == BlockCodec.capacity {
          try insert(tail!.block(maxPseudoTF: Self.bound(best, old: holdsOld ? oldBound : nil)), of: term, isTail: true)
          tail = nil
        }
      }
    }
    guard var tail else { return }
    tail.bound = Self.bound(best, old: holdsOld ? oldBound : nil)
    if defersShortTails {
      keepOpen(tail, of: term)
    } else {
      try insert(tail.block(maxPseudoTF: tail.bound), of: term, isTail: true)
    }
  }

  /// Stores `block` in `term`'s list; the list's last block is also kept in `tails`.
  private mutating func insert(_ block: PostingBlock, of term: TermID, isTail: Bool) throws {
    try store.insert(block, of: term)
    if isTail { tails[term] = block }
  }

  /// Keeps `tail`, the short last block of `term`'s list, in memory instead of storing it.
  private mutating func keepOpen(_ tail: OpenTail, of term: TermID) {
    openTails[term] = tail
    tails[term] = nil
  }

  /// A block's bound: its new postings' largest pseudo-frequency rounded up, and at least
  /// `old`, the bound of the stored postings it keeps.
  private static func bound(_ best: Double, old: Float?) -> Float {
    let bound = BM25FScorer.roundedUp(best)
    return old.map { max(bound, $0) } ?? bound
  }

  /// Merges `old` minus `removals` with the postings `range` of `docs` and stores the
  /// result as blocks: packed greedily at the tail (`packTail`), split evenly inside the
  /// list. At the tail, it records the last block in `tails` (or `openTails`).
  private mutating func write(
    _ old: PostingBuffer, _ removals: [DocID], _ range: Range<Int>, bound oldBound: Float, packTail: Bool, term: TermID
  ) throws {
    if old.isEmpty { return try writeNew(range, packTail: packTail, term: term) }
    var merged = PostingBuffer(fieldCount: fieldCount)
    merged.reserveCapacity(old.count + range.count)
    /// Per merged posting: its basis pseudo-frequency when new, -1 when old.
    var fresh: [Double] = []
    fresh.reserveCapacity(old.count + range.count)
    var o = 0
    var n = range.lowerBound
    var removal = 0
    frequencies.withUnsafeBufferPointer { frequencies in
      while o < old.count || n < range.upperBound {
        let oldDoc = o < old.count ? old.docs[o] : .max
        let newDoc = n < range.upperBound ? docs[n] : .max
        if newDoc <= oldDoc {
          let row = UnsafeBufferPointer(rebasing: frequencies[(n * fieldCount)..<((n + 1) * fieldCount)])
          merged.append(doc: newDoc, frequencies: row)
          fresh.append(bounds[n])
          n += 1
          if newDoc == oldDoc { o += 1 }
          continue
        }
        while removal < removals.count && removals[removal] < oldDoc { removal += 1 }
        if removal == removals.count || removals[removal] != oldDoc {
          merged.append(from: old, at: o)
          fresh.append(-1)
        }
        o += 1
      }
    }
    let total = merged.count
    guard total > 0 else {
      if packTail { tails[term] = nil }
      return
    }
    let capacity = BlockCodec.capacity
    let blockCount = (total + capacity - 1) / capacity
    var lower = 0
    for blockIndex in 0..<blockCount {
      let size = packTail ? min(capacity, total - lower) : (total - lower) / (blockCount - blockIndex)
      let blockRange = lower..<(lower + size)
      var best = 0.0
      var keepsOld = false
      for index in blockRange {
        if fresh[index] < 0 { keepsOld = true } else { best = max(best, fresh[index]) }
      }
      let bound = Self.bound(best, old: keepsOld ? oldBound : nil)
      let isTail = packTail && blockIndex == blockCount - 1
      if isTail && defersShortTails && size < capacity {
        let open = merged.docs.withUnsafeBufferPointer { docs in
          merged.frequencies.withUnsafeBufferPointer { frequencies in
            OpenTail(
              docs: UnsafeBufferPointer(rebasing: docs[blockRange]),
              frequencies: UnsafeBufferPointer(rebasing: frequencies[(blockRange.lowerBound * fieldCount)..<(blockRange.upperBound * fieldCount)]),
              fieldCount: fieldCount, bound: bound)
          }
        }
        keepOpen(open, of: term)
      } else {
        try insert(BlockCodec.encode(merged, range: blockRange, maxPseudoTF: bound), of: term, isTail: isTail)
      }
      lower += size
    }
  }

  /// `write` for a list with no old postings: the blocks straight from the new postings
  /// `range` of `docs`, with the same sizes and bounds.
  private mutating func writeNew(_ range: Range<Int>, packTail: Bool, term: TermID) throws {
    let total = range.count
    guard total > 0 else { return }
    let capacity = BlockCodec.capacity
    let blockCount = (total + capacity - 1) / capacity
    var lower = range.lowerBound
    for blockIndex in 0..<blockCount {
      let size = packTail ? min(capacity, range.upperBound - lower) : (range.upperBound - lower) / (blockCount - blockIndex)
      let blockRange = lower..<(lower + size)
      var best = 0.0
      for index in blockRange { best = max(best, bounds[index]) }
      let bound = BM25FScorer.roundedUp(best)
      let isTail = packTail && blockIndex == blockCount - 1
      let fieldCount = self.fieldCount
      let defers = isTail && defersShortTails && size < capacity
      try docs.withUnsafeBufferPointer { (docs: UnsafeBufferPointer<DocID>) throws in
        try frequencies.withUnsafeBufferPointer { (frequencies: UnsafeBufferPointer<UInt32>) throws in
          let docs = UnsafeBufferPointer(rebasing: docs[blockRange])
          let frequencies = UnsafeBufferPointer(
            rebasing: frequencies[(blockRange.lowerBound * fieldCount)..<(blockRange.upperBound * fieldCount)])
          if defers {
            keepOpen(OpenTail(docs: docs, frequencies: frequencies, fieldCount: fieldCount, bound: bound), of: term)
          } else {
            try insert(
              BlockCodec.encode(docs: docs, frequencies: frequencies, fieldCount: fieldCount, maxPseudoTF: bound),
              of: term, isTail: isTail)
          }
        }
      }
      lower += size
    }
  }
}
