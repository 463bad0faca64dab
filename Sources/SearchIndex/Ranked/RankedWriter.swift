/// Keeps the ranked index of one named index in step with its items, inside the write
/// transaction of `SearchIndex.write` (`IndexWriter` calls it), so postings and items
/// commit together or not at all.
///
/// Changes are collected in memory (`index`, `remove`) and applied by `flush`, which
/// `IndexWriter.finish` calls before the commit; a bulk ingest therefore builds its
/// postings in memory and writes each touched block once. Very large transactions flush
/// every `flushThreshold` postings, still inside the same transaction.
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
///   other document's lengths are needed; `compact` recomputes bounds exactly.
///
/// When the stored postings do not match the file (`rk_stats` missing, from another
/// generation or another fingerprint: written by a binary without the ranked index),
/// the writer ignores the collected changes and rebuilds the ranked index from the FTS5
/// rows in `flush`, so the commit leaves postings and items agreeing either way.
final class RankedWriter {
  /// Postings collected before an intermediate flush (about 40 MB of buffers).
  static let flushThreshold = 1_500_000
  /// Tombstones that trigger a compaction at the end of a flush: a quarter of the live
  /// documents, and at least this many.
  static let compactionMinimum = 64

  private let store: RankedStore
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
  /// Persisted ids of the terms seen in this transaction.
  private var termIDs: [String: TermID] = [:]
  private var documentFrequencyDeltas: [TermID: Int] = [:]

  /// A document waiting to be written: field lengths (positions) and its terms,
  /// ascending, with `fieldCount` frequencies per term.
  private struct PendingDocument {
    var lengths: [Int]
    var terms: [TermID]
    var frequencies: [UInt32]
  }

  private var pending: [DocID: PendingDocument] = [:]
  private var removed = Set<DocID>()
  private var pendingPostings = 0
  /// Scratch for `index`.
  private var keys: [UInt64] = []
  private var tokens: [String] = []

  init(connection: Connection, indexID: Int64) {
    store = RankedStore(db: connection, indexID: indexID)
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
    } else {
      needsRebuild = true
    }
  }

  // MARK: - Collecting changes

  /// Indexes the item at `rowid` with the texts of the FTS5 columns (`Schema.ftsColumns`),
  /// replacing any version of it.
  func index(_ rowid: DocID, columns: [String]) throws {
    try load()
    guard !needsRebuild, !disabled else { return }
    precondition(columns.count == fieldCount, "one text per FTS5 column")
    keys.removeAll(keepingCapacity: true)
    var lengths = Array(repeating: 0, count: fieldCount)
    for (field, text) in columns.enumerated() where !text.isEmpty {
      tokens.removeAll(keepingCapacity: true)
      lengths[field] = RankedAnalysis.appendTerms(of: text, to: &tokens)
      for token in tokens { keys.append(UInt64(try termID(token)) << 8 | UInt64(field)) }
    }
    if let previous = pending.removeValue(forKey: rowid) { pendingPostings -= previous.terms.count }
    removed.insert(rowid)
    guard !keys.isEmpty else { return }
    keys.sort()
    var document = PendingDocument(lengths: lengths, terms: [], frequencies: [])
    var k = 0
    while k < keys.count {
      let term = TermID(truncatingIfNeeded: keys[k] >> 8)
      let row = document.frequencies.count
      document.frequencies.append(contentsOf: repeatElement(0, count: fieldCount))
      while k < keys.count && TermID(truncatingIfNeeded: keys[k] >> 8) == term {
        document.frequencies[row + Int(keys[k] & 0xFF)] += 1
        k += 1
      }
      document.terms.append(term)
    }
    pending[rowid] = document
    pendingPostings += document.terms.count
    if pendingPostings >= Self.flushThreshold { try flush() }
  }

  /// Removes the item at `rowid` (no-op when it is not indexed).
  func remove(_ rowid: DocID) throws {
    try load()
    guard !needsRebuild, !disabled else { return }
    removed.insert(rowid)
    if let previous = pending.removeValue(forKey: rowid) { pendingPostings -= previous.terms.count }
  }

  private func termID(_ text: String) throws -> TermID {
    if let id = termIDs[text] { return id }
    let id = try store.term(text)?.id ?? store.insertTerm(text, df: 0)
    termIDs[text] = id
    return id
  }

  // MARK: - Applying changes

  /// Applies the collected changes (or rebuilds, when the stored postings are stale).
  func flush() throws {
    try load()
    guard !disabled else { return }
    if needsRebuild {
      try rebuild()
      return
    }
    guard !pending.isEmpty || !removed.isEmpty else { return }
    var removals: [TermID: [DocID]] = [:]
    for doc in removed.sorted() {
      try ensurePage(of: doc)
      if let retired = documents.remove(doc) {
        dirtyPages.insert(DocumentTable.page(of: doc))
        stats.remove(fieldLengths: retired.fieldLengths)
        let encoded = try store.forwardTerms(of: doc) ?? []
        try store.deleteForwardTerms(of: doc)
        let terms = TermListCodec.decode(encoded)
        for term in terms { documentFrequencyDeltas[term, default: 0] -= 1 }
        if pending[doc] != nil {
          // Replaced in this flush: remove the old postings now.
          for term in terms { removals[term, default: []].append(doc) }
        } else {
          try store.saveTombstone(encoded, of: doc)
          stats.tombstones += 1
        }
      } else if pending[doc] != nil, stats.tombstones > 0, let stale = try store.tombstone(doc) {
        // A rowid reused after a delete: purge the deleted version's postings first.
        for term in TermListCodec.decode(stale) { removals[term, default: []].append(doc) }
        try store.deleteTombstone(doc)
        stats.tombstones -= 1
      }
    }
    var insertions: [TermID: PostingBuffer] = [:]
    for doc in pending.keys.sorted() {
      let document = pending[doc]!
      try ensurePage(of: doc)
      documents.insert(doc, fieldLengths: document.lengths, encodedTerms: nil)
      dirtyPages.insert(DocumentTable.page(of: doc))
      stats.add(fieldLengths: document.lengths)
      try store.saveForwardTerms(TermListCodec.encode(document.terms), of: doc)
      document.frequencies.withUnsafeBufferPointer { frequencies in
        for (index, term) in document.terms.enumerated() {
          documentFrequencyDeltas[term, default: 0] += 1
          let row = UnsafeBufferPointer(rebasing: frequencies[(index * fieldCount)..<((index + 1) * fieldCount)])
          insertions[term, default: PostingBuffer(fieldCount: fieldCount)].append(doc: doc, frequencies: row)
        }
      }
    }
    pending.removeAll()
    removed.removeAll()
    pendingPostings = 0
    if stats.basis == nil && stats.documentCount > 0 {
      stats.basis = ScoreBoundBasis(averageFieldLengths: stats.averageFieldLengths)
    }
    if let basis = stats.basis {
      let editor = BlockWriter(
        store: store, documents: documents,
        scorer: BM25FScorer(parameters: parameters, averageFieldLengths: basis.averageFieldLengths))
      let empty = PostingBuffer(fieldCount: fieldCount)
      for (term, buffer) in insertions {
        try editor.apply(to: term, removing: removals.removeValue(forKey: term)?.sorted() ?? [], inserting: buffer)
      }
      for (term, docs) in removals {
        try editor.apply(to: term, removing: docs.sorted(), inserting: empty)
      }
    }
    for (term, delta) in documentFrequencyDeltas where delta != 0 {
      try store.addDocumentFrequency(delta, to: term)
    }
    documentFrequencyDeltas.removeAll()
    for number in dirtyPages.sorted() {
      if let page = documents.page(number) { try store.save(page) }
    }
    dirtyPages.removeAll()
    if stats.documentCount == 0 { stats.basis = nil }
    try store.save(stats)
    if stats.tombstones >= max(Self.compactionMinimum, stats.documentCount / 4) {
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

  /// Replaces this index's postings with ones built from its FTS5 rows (the same texts
  /// `IndexWriter` indexes), in this transaction.
  func rebuild() throws {
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
    termIDs.removeAll()
    documentFrequencyDeltas.removeAll()
    pending.removeAll()
    removed.removeAll()
    pendingPostings = 0
    try store.save(stats)
    // Chunks of rows, each read completely before it is indexed (indexing may flush).
    var rows: [(DocID, [String])] = []
    var last: DocID = .min
    while true {
      rows.removeAll(keepingCapacity: true)
      let chunk = try store.db.makeStatement(
        "SELECT f.rowid, f.title, f.keywords, f.description, f.body, f.other FROM fts f JOIN items i ON i.rowid = f.rowid WHERE i.indexId = ? AND f.rowid > ? ORDER BY f.rowid LIMIT 10000")
      try chunk.bind(int: store.indexID, at: 1)
      try chunk.bind(int: last, at: 2)
      while try chunk.step() {
        rows.append((chunk.int64(0), (1...fieldCount).map { chunk.string($0) ?? "" }))
      }
      guard let final = rows.last else { break }
      last = final.0
      for (rowid, columns) in rows { try index(rowid, columns: columns) }
    }
    try flush()
  }

  /// Removes tombstoned postings (rewriting the lists that hold them, with exact
  /// bounds), repacks fragmented lists when `repack`, and recomputes every bound at the
  /// current averages when they drifted more than `rebaseTolerance` from the basis.
  func compact(rebaseTolerance: Double = 0.05, repack: Bool = true) throws {
    try flush()
    guard !needsRebuild, !disabled else { return }
    if stats.documentCount == 0 {
      // Nothing is live: every stored posting is dead.
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
      for entry in counts where rebase || rewrite.contains(entry.term) {
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
/// blocks they land in (see `RankedWriter`).
private struct BlockWriter {
  let store: RankedStore
  let documents: DocumentTable
  /// Scorer at the basis averages: pseudo-frequencies of new postings.
  let scorer: BM25FScorer

  var fieldCount: Int { scorer.fieldCount }

  /// `removals` ascending; `insertions` ascending, all live in `documents`.
  func apply(to term: TermID, removing removals: [DocID], inserting insertions: PostingBuffer) throws {
    guard let tail = try store.tailBlock(of: term) else {
      if !insertions.isEmpty { try write(PostingBuffer(fieldCount: fieldCount), [], insertions, 0..<insertions.count, bound: 0, packTail: true, term: term) }
      return
    }
    var r = 0
    var i = 0
    // Removals past the tail cannot be in the list.
    let removalCount = removals.firstIndex(where: { $0 > tail.lastDoc }) ?? removals.count
    while r < removalCount || i < insertions.count {
      let next = min(r < removalCount ? removals[r] : .max, i < insertions.count ? insertions.docs[i] : .max)
      let found = next > tail.lastDoc ? nil : try store.block(of: term, atOrAfter: next)
      let block = found ?? tail
      let isTail = block.lastDoc == tail.lastDoc
      let upper = isTail ? DocID.max : block.lastDoc
      let removalStart = r
      while r < removalCount && removals[r] <= upper { r += 1 }
      let insertionStart = i
      while i < insertions.count && insertions.docs[i] <= upper { i += 1 }
      let old = BlockCodec.decode(block, fieldCount: fieldCount)
      try store.deleteBlock(of: term, lastDoc: block.lastDoc)
      try write(
        old, Array(removals[removalStart..<r]), insertions, insertionStart..<i, bound: block.maxPseudoTF,
        packTail: isTail, term: term)
    }
  }

  /// Merges `old` minus `removals` with `insertions[range]` and stores the result as
  /// blocks: packed greedily at the tail, split evenly inside the list.
  private func write(
    _ old: PostingBuffer, _ removals: [DocID], _ insertions: PostingBuffer, _ range: Range<Int>, bound oldBound: Float,
    packTail: Bool, term: TermID
  ) throws {
    var merged = PostingBuffer(fieldCount: fieldCount)
    merged.reserveCapacity(old.count + range.count)
    /// Per merged posting: its basis pseudo-frequency when new, -1 when old.
    var fresh: [Double] = []
    fresh.reserveCapacity(old.count + range.count)
    let norms = UnsafeMutablePointer<Double>.allocate(capacity: fieldCount)
    defer { norms.deallocate() }
    var o = 0
    var n = range.lowerBound
    var removal = 0
    insertions.frequencies.withUnsafeBufferPointer { frequencies in
      while o < old.count || n < range.upperBound {
        let oldDoc = o < old.count ? old.docs[o] : .max
        let newDoc = n < range.upperBound ? insertions.docs[n] : .max
        if newDoc <= oldDoc {
          merged.append(from: insertions, at: n)
          var ptf = 0.0
          if let location = documents.location(of: newDoc) {
            scorer.norms(location: location, documents: documents, into: norms)
            ptf = scorer.pseudoFrequency(frequencies: frequencies.baseAddress! + n * fieldCount, norms: norms)
          }
          fresh.append(ptf)
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
    guard total > 0 else { return }
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
      var bound = BM25FScorer.roundedUp(best)
      if keepsOld { bound = max(bound, oldBound) }
      try store.insert(BlockCodec.encode(merged, range: blockRange, maxPseudoTF: bound), of: term)
      lower += size
    }
  }
}
