/// Exact top-k BM25F retrieval over block-max posting lists, with incremental
/// add / update / delete.
///
/// Deletes are logical: the document leaves the `DocumentTable` (so traversal
/// skips it and statistics drop it at once) and its term list is parked in
/// `tombstones`; its postings are physically removed by `compact()` or
/// opportunistically whenever their block is rewritten. Re-adding a tombstoned id
/// first purges its stale postings, so a live id never has postings from an older
/// version.
package struct RankedIndex<Store: PostingStore>: Sendable {
  package let parameters: BM25FParameters
  package private(set) var statistics: CollectionStatistics
  /// Averages at which stored block maxima were computed; nil until the first add.
  package private(set) var basis: ScoreBoundBasis?
  package private(set) var lexicon = Lexicon()
  package private(set) var documents: DocumentTable
  package private(set) var store: Store
  /// Deleted documents whose postings may still be in blocks -> their encoded term list.
  package private(set) var tombstones: [DocID: [UInt8]] = [:]

  package init(parameters: BM25FParameters, store: Store) {
    self.parameters = parameters
    self.statistics = CollectionStatistics(fieldCount: parameters.fieldCount)
    self.documents = DocumentTable(fieldCount: parameters.fieldCount)
    self.store = store
  }

  package var documentCount: Int { statistics.documentCount }

  package func contains(_ id: DocID) -> Bool { documents.contains(id) }

  // MARK: - Mutations

  /// Adds a new document; throws if the id is live.
  package mutating func add(_ document: IndexedDocument) throws(RankedIndexError) {
    try add(contentsOf: [document])
  }

  /// Adds new documents in one batch (one rewrite per touched block).
  package mutating func add(contentsOf batch: [IndexedDocument]) throws(RankedIndexError) {
    for document in batch where documents.contains(document.id) {
      throw .documentExists(document.id)
    }
    try apply(upserting: batch, deleting: [])
  }

  /// Replaces a live document (delete + add).
  package mutating func update(_ document: IndexedDocument) throws(RankedIndexError) {
    guard documents.contains(document.id) else { throw .documentNotFound(document.id) }
    try apply(upserting: [document], deleting: [])
  }

  /// Deletes a live document. O(terms of the document); no block is rewritten.
  package mutating func delete(_ id: DocID) throws(RankedIndexError) {
    guard documents.contains(id) else { throw .documentNotFound(id) }
    try apply(upserting: [], deleting: [id])
  }

  /// General batch: deletes `deletions` (ids that are not live are ignored), then
  /// upserts `upserts` (an id that is live is replaced).
  package mutating func apply(upserting upserts: [IndexedDocument], deleting deletions: [DocID])
    throws(RankedIndexError)
  {
    var seen = Set<DocID>()
    for document in upserts {
      guard seen.insert(document.id).inserted else { throw .duplicateDocumentInBatch(document.id) }
      guard document.id != DocID.max else { throw .reservedDocID(document.id) }
      guard document.fields.count == parameters.fieldCount else {
        throw .fieldCountMismatch(document.id, expected: parameters.fieldCount, actual: document.fields.count)
      }
    }
    for id in deletions { retire(id) }

    let fieldCount = parameters.fieldCount
    var removals: [TermID: [DocID]] = [:]
    // Dense per-term slots into `insertions` (term ids are dense).
    var slotOfTerm: [Int32] = []
    var insertedTerms: [TermID] = []
    var insertions: [PostingBuffer] = []
    var keys: [UInt64] = []
    var frequencies = Array(repeating: UInt32(0), count: fieldCount)
    for document in upserts.sorted(by: { $0.id < $1.id }) {
      let id = document.id
      retire(id)
      if let stale = tombstones.removeValue(forKey: id) {
        for term in TermListCodec.decode(stale) { removals[term, default: []].append(id) }
      }
      // (term << 8 | field) keys, sorted: groups occurrences by term.
      keys.removeAll(keepingCapacity: true)
      var fieldLengths = Array(repeating: 0, count: fieldCount)
      for (field, tokens) in document.fields.enumerated() {
        fieldLengths[field] = tokens.count
        for token in tokens { keys.append(UInt64(lexicon.intern(token)) << 8 | UInt64(field)) }
      }
      keys.sort()
      var terms: [TermID] = []
      var k = 0
      while k < keys.count {
        let term = TermID(truncatingIfNeeded: keys[k] >> 8)
        for field in 0..<fieldCount { frequencies[field] = 0 }
        while k < keys.count && TermID(truncatingIfNeeded: keys[k] >> 8) == term {
          frequencies[Int(keys[k] & 0xFF)] += 1
          k += 1
        }
        terms.append(term)
        if Int(term) >= slotOfTerm.count {
          slotOfTerm.append(contentsOf: repeatElement(-1, count: Int(term) + 1 - slotOfTerm.count))
        }
        if slotOfTerm[Int(term)] < 0 {
          slotOfTerm[Int(term)] = Int32(insertions.count)
          insertions.append(PostingBuffer(fieldCount: fieldCount))
          insertedTerms.append(term)
        }
        insertions[Int(slotOfTerm[Int(term)])].append(doc: id, frequencies: frequencies)
      }
      documents.insert(id, fieldLengths: fieldLengths, encodedTerms: TermListCodec.encode(terms))
      statistics.addDocument(fieldLengths: fieldLengths, terms: terms)
    }
    if basis == nil && statistics.documentCount > 0 {
      basis = ScoreBoundBasis(averageFieldLengths: statistics.averageFieldLengths)
    }
    guard let basis else { return }

    let editor = PostingListEditor(
      fieldCount: fieldCount, documents: documents,
      basisScorer: BM25FScorer(parameters: parameters, averageFieldLengths: basis.averageFieldLengths))
    let empty = PostingBuffer(fieldCount: fieldCount)
    for term in insertedTerms {
      let removed = removals.removeValue(forKey: term) ?? []
      write(editor.edits(
        for: store.postingList(for: term), removing: removed.sorted(),
        inserting: insertions[Int(slotOfTerm[Int(term)])]), to: term)
    }
    for (term, removed) in removals {
      write(editor.edits(for: store.postingList(for: term), removing: removed.sorted(), inserting: empty), to: term)
    }
  }

  /// Logical delete: statistics and liveness change now, postings later.
  private mutating func retire(_ id: DocID) {
    guard let removed = documents.remove(id) else { return }
    statistics.removeDocument(fieldLengths: removed.fieldLengths, terms: TermListCodec.decode(removed.encodedTerms))
    tombstones[id] = removed.encodedTerms
  }

  private mutating func write(_ edits: [BlockEdit], to term: TermID) {
    for edit in edits.reversed() { store.replaceBlocks(of: term, in: edit.range, with: edit.blocks) }
  }

  // MARK: - Compaction

  /// Physically removes tombstoned postings (rewriting only affected blocks) and,
  /// if average field lengths drifted more than `rebaseTolerance` from the bound
  /// basis, recomputes every block bound at the current averages (a header-only
  /// rewrite) so pruning stays tight.
  package mutating func compact(rebaseTolerance: Double = 0.05) {
    let fieldCount = parameters.fieldCount
    if let basis, !tombstones.isEmpty {
      var removals: [TermID: [DocID]] = [:]
      for (id, encoded) in tombstones {
        for term in TermListCodec.decode(encoded) { removals[term, default: []].append(id) }
      }
      tombstones.removeAll()
      let editor = PostingListEditor(
        fieldCount: fieldCount, documents: documents,
        basisScorer: BM25FScorer(parameters: parameters, averageFieldLengths: basis.averageFieldLengths))
      let empty = PostingBuffer(fieldCount: fieldCount)
      for (term, removed) in removals {
        write(editor.edits(for: store.postingList(for: term), removing: removed.sorted(), inserting: empty), to: term)
        store.recomputeBound(of: term)
      }
    }
    tombstones.removeAll()
    let averages = statistics.averageFieldLengths
    if statistics.documentCount > 0, let basis, basis.drift(currentAverages: averages) > rebaseTolerance {
      rebase()
    }
  }

  /// Recomputes every block bound at the current averages. Requires no pending
  /// tombstones (dead postings would be bounded by nothing).
  package mutating func rebase() {
    precondition(tombstones.isEmpty, "compact before rebasing")
    guard statistics.documentCount > 0 else { return }
    let newBasis = ScoreBoundBasis(averageFieldLengths: statistics.averageFieldLengths)
    let fieldCount = parameters.fieldCount
    let editor = PostingListEditor(
      fieldCount: fieldCount, documents: documents,
      basisScorer: BM25FScorer(parameters: parameters, averageFieldLengths: newBasis.averageFieldLengths))
    for term in store.storedTerms {
      guard let list = store.postingList(for: term) else { continue }
      let blocks = list.blocks.map { block -> PostingBlock in
        var updated = block
        updated.maxPseudoTF = editor.maxPseudoTF(
          BlockCodec.decode(block, fieldCount: fieldCount), range: 0..<block.postingCount)
        return updated
      }
      store.replaceBlocks(of: term, in: list.blocks.indices, with: blocks)
    }
    basis = newBasis
  }
}
