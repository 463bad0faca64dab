import Synchronization

/// What queries have read of one named index's ranked tables at one file generation:
/// the statistics row, lexicon entries, posting lists and document pages. Everything in
/// it was read at `generation`, and every write that changes the ranked tables bumps
/// the generation, so a snapshot is valid exactly while the file is at its generation.
struct RankedSnapshot: Sendable {
  struct TermEntry: Sendable {
    var id: TermID
    var documentFrequency: Int
  }

  /// A loaded posting list and the document pages its postings fall in.
  struct LoadedList: Sendable {
    var list: PostingList
    var pages: [Int64]
  }

  var generation: Int64
  var statistics: RankedStatistics
  /// Lexicon entries looked up so far; nil for a term the index does not have.
  var terms: [String: TermEntry?] = [:]
  var lists: [TermID: LoadedList] = [:]
  var documents = DocumentTable(fieldCount: RankedSchema.parameters.fieldCount)
  /// Pages found not to be stored (no live document).
  var absentPages = Set<Int64>()
  var listBytes = 0
  /// For the hidden rowids last asked about: how many live documents among each term's
  /// postings are hidden. The planner's term weights and the search of the same words both
  /// take them away, and counting them decodes every block that holds a hidden document.
  var hiddenPostings: HiddenPostings?

  struct HiddenPostings: Sendable {
    var hidden: [DocID]
    var counts: [TermID: Int] = [:]
  }

  /// The hidden-posting counts kept for exactly `hidden`, if any.
  func hiddenCounts(for hidden: [DocID]) -> [TermID: Int]? {
    guard let kept = hiddenPostings, kept.hidden == hidden else { return nil }
    return kept.counts
  }

  /// Keeps `counts` (term id -> hidden postings) for `hidden`, beside those kept for it already.
  mutating func keepHiddenCounts(_ counts: [TermID: Int], for hidden: [DocID]) {
    guard !counts.isEmpty else { return }
    if hiddenPostings?.hidden != hidden { hiddenPostings = HiddenPostings(hidden: hidden) }
    hiddenPostings?.counts.merge(counts) { kept, _ in kept }
  }

  init(generation: Int64, statistics: RankedStatistics) {
    self.generation = generation
    self.statistics = statistics
  }

  /// Adds what `other` (same generation) loaded and this snapshot lacks.
  mutating func absorb(_ other: RankedSnapshot) {
    for (term, entry) in other.terms where terms[term] == nil { terms[term] = entry }
    for (term, loaded) in other.lists where lists[term] == nil {
      lists[term] = loaded
      listBytes += loaded.list.blocks.reduce(0) { $0 + $1.persistedByteCount }
    }
    for number in other.documents.pageNumbers where !documents.holdsPage(number) {
      documents.install(other.documents.page(number)!)
    }
    absentPages.formUnion(other.absentPages)
    if let kept = other.hiddenPostings { keepHiddenCounts(kept.counts, for: kept.hidden) }
  }
}

/// The process-wide cache of a `SearchIndex`'s ranked snapshot, shared by all its
/// reader connections. Queries copy the snapshot out (cheap: its collections are
/// copy-on-write and pages are shared objects), load what is missing outside the lock,
/// and merge it back.
final class RankedCache: Sendable {
  /// Posting bytes kept before the cached lists are dropped.
  static let listByteBudget = 256 << 20

  private let state = Mutex<RankedSnapshot?>(nil)

  init() {}

  func snapshot(generation: Int64) -> RankedSnapshot? {
    state.withLock { cached in cached?.generation == generation ? cached : nil }
  }

  func store(_ snapshot: RankedSnapshot) {
    state.withLock { cached in
      var merged = snapshot
      if let current = cached {
        if current.generation > snapshot.generation { return }
        if current.generation == snapshot.generation { merged.absorb(current) }
      }
      if merged.listBytes > Self.listByteBudget {
        merged.lists.removeAll()
        merged.listBytes = 0
      }
      cached = merged
    }
  }

  /// Forgets everything (tests, and after this process rewrote postings in place).
  func clear() {
    state.withLock { $0 = nil }
  }
}

/// Runs ranked queries against the ranked tables through a reader connection in an
/// open read transaction, with the snapshot cache.
struct RankedReader {
  let store: RankedStore
  let cache: RankedCache

  /// The current snapshot with statistics, nil when the ranked index is unavailable
  /// (tables missing, or postings stale for this generation: written by a binary
  /// without the ranked index and not yet rebuilt by a writable open).
  func snapshot() throws -> RankedSnapshot? {
    let generation = try store.generation()
    if let cached = cache.snapshot(generation: generation) { return cached }
    guard try RankedSchema.exists(store.db), let statistics = try store.statistics(),
      statistics.generation == generation, statistics.fingerprint == RankedSchema.fingerprint
    else { return nil }
    return RankedSnapshot(generation: generation, statistics: statistics)
  }

  /// Exact top-`k` of the weighted OR of `terms` among live documents accepted by
  /// `filter`; nil when the ranked index is unavailable.
  ///
  /// `hiddenStatistics`, when given, is what the live documents among `hidden` add to the
  /// collection statistics (`hiddenStatistics(_:)`, kept by the caller): summing their
  /// lengths reads one scattered length per hidden document and field (30,000 at 1M, 4 ms of
  /// cache misses in every process).
  func search(
    _ terms: [QueryTerm], k: Int, filter: CandidateFilter, excluding hidden: [DocID] = [],
    hiddenStatistics: RankedStatistics? = nil, algorithm: RetrievalAlgorithm?, counters: inout SearchCounters
  ) throws -> [SearchHit]? {
    guard var snapshot = try snapshot() else { return nil }
    var changed = false
    var resolved: [PreparedQuery.ResolvedTerm] = []
    var resolvedIDs: [TermID] = []
    for term in PreparedQuery.merged(terms) {
      guard let entry = try entry(term.term, in: &snapshot, changed: &changed), entry.documentFrequency > 0 else { continue }
      let loaded = try loadedList(entry, in: &snapshot, changed: &changed)
      guard !loaded.list.isEmpty else { continue }
      if try loadPages(numbered: loaded.pages, into: &snapshot) { changed = true }
      resolved.append(PreparedQuery.ResolvedTerm(list: loaded.list, weight: term.weight, documentFrequency: entry.documentFrequency))
      resolvedIDs.append(entry.id)
    }
    // No term has a posting: nothing to rank, whatever the statistics (taking the hidden
    // documents out of them decoded every page they fall in, 977 at 1M, for no result).
    guard !resolved.isEmpty else {
      if changed { cache.store(snapshot) }
      return []
    }
    // Whether a hidden document is live (and its lengths) comes from its page, like any candidate's.
    if try loadPages(of: hidden, into: &snapshot) { changed = true }
    guard k > 0 else {
      if changed { cache.store(snapshot) }
      return []
    }
    var statistics = snapshot.statistics
    if !hidden.isEmpty {
      let counted = Self.leaveOut(
        hidden, removing: hiddenStatistics, from: &statistics, terms: &resolved, ids: resolvedIDs, documents: snapshot.documents,
        counted: snapshot.hiddenCounts(for: hidden) ?? [:])
      if !counted.isEmpty {
        snapshot.keepHiddenCounts(counted, for: hidden)
        changed = true
      }
    }
    if changed { cache.store(snapshot) }
    var prepared = PreparedQuery(
      terms: resolved, parameters: RankedSchema.parameters, documentCount: statistics.documentCount,
      averageFieldLengths: statistics.averageFieldLengths, basis: statistics.basis)
    guard let algorithm else {
      return ExhaustiveScorer.run(&prepared, k: k, documents: snapshot.documents, filter: filter, counters: &counters)
    }
    return TopKSearch.run(
      &prepared, k: k, documents: snapshot.documents, filter: filter, algorithm: algorithm, counters: &counters)
  }

  /// The number of live documents holding each of `terms` (ranked-index terms) that are
  /// not in `hidden` (ascending rowids): the term's document frequency less the hidden
  /// documents among its postings (a posting of a deleted document, awaiting compaction,
  /// does not count: it is not in the frequency either). Reads the lists of the terms and
  /// keeps them in the snapshot, where the search of the same terms finds them; nil when
  /// the ranked index is unavailable.
  func documentFrequencies(_ terms: [String], excluding hidden: [DocID]) throws -> [Int]? {
    guard var snapshot = try snapshot() else { return nil }
    var changed = false
    var frequencies: [Int] = []
    var tombstones: Set<DocID>?
    let kept = snapshot.hiddenCounts(for: hidden) ?? [:]
    var counted: [TermID: Int] = [:]
    let docs = UnsafeMutablePointer<DocID>.allocate(capacity: BlockCodec.capacity)
    defer { docs.deallocate() }
    for term in terms {
      guard let entry = try entry(term, in: &snapshot, changed: &changed), entry.documentFrequency > 0 else {
        frequencies.append(0)
        continue
      }
      guard !hidden.isEmpty else {
        frequencies.append(entry.documentFrequency)
        continue
      }
      if let count = kept[entry.id] {
        frequencies.append(max(0, entry.documentFrequency - count))
        continue
      }
      let list = try loadedList(entry, in: &snapshot, changed: &changed).list
      var found = Self.postings(of: list, among: hidden, buffer: docs)
      if !found.isEmpty, snapshot.statistics.tombstones > 0 {
        if tombstones == nil { tombstones = Set(try store.allTombstones().map(\.doc)) }
        if let dead = tombstones { found.removeAll { dead.contains($0) } }
      }
      frequencies.append(max(0, entry.documentFrequency - found.count))
      counted[entry.id] = found.count
    }
    if !counted.isEmpty {
      snapshot.keepHiddenCounts(counted, for: hidden)
      changed = true
    }
    if changed { cache.store(snapshot) }
    return frequencies
  }

  /// The documents of `sorted` (ascending) that have a posting in `list`, in order. Decodes
  /// only the blocks whose range holds one of them; `buffer` holds a block's doc ids.
  static func postings(of list: PostingList, among sorted: [DocID], buffer: UnsafeMutablePointer<DocID>) -> [DocID] {
    var found: [DocID] = []
    for block in list.blocks {
      var cursor = sorted.lowerBound(of: block.firstDoc)
      guard cursor < sorted.count, sorted[cursor] <= block.lastDoc else { continue }
      _ = BlockCodec.decodeDocIDs(of: block, into: buffer)
      for offset in 0..<block.postingCount {
        let doc = buffer[offset]
        while cursor < sorted.count, sorted[cursor] < doc { cursor += 1 }
        if cursor < sorted.count, sorted[cursor] == doc { found.append(doc) }
      }
    }
    return found
  }

  /// What the live documents among `hidden` (ascending rowids) add to the collection
  /// statistics: their number, field lengths and fields with text; nil when the ranked index
  /// is unavailable. Loads the pages they fall in.
  func hiddenStatistics(_ hidden: [DocID]) throws -> RankedStatistics? {
    guard var snapshot = try snapshot() else { return nil }
    if try loadPages(of: hidden, into: &snapshot) { cache.store(snapshot) }
    return Self.statistics(of: hidden.filter(snapshot.documents.contains), in: snapshot.documents, generation: snapshot.generation)
  }

  /// The lexicon entry of `term` (nil for a term the index does not have), from the snapshot
  /// or the store; one read from the store is kept in the snapshot and sets `changed`.
  func entry(_ term: String, in snapshot: inout RankedSnapshot, changed: inout Bool) throws -> RankedSnapshot.TermEntry? {
    if let cached = snapshot.terms[term] { return cached }
    let entry = try store.term(term).map { RankedSnapshot.TermEntry(id: $0.id, documentFrequency: $0.df) }
    snapshot.terms[term] = .some(entry)
    changed = true
    return entry
  }

  /// The posting list of `entry`'s term with the pages it spans, from the snapshot or the
  /// store; one read from the store is kept in the snapshot and sets `changed`.
  func loadedList(_ entry: RankedSnapshot.TermEntry, in snapshot: inout RankedSnapshot, changed: inout Bool) throws
    -> RankedSnapshot.LoadedList
  {
    if let cached = snapshot.lists[entry.id] { return cached }
    let list = try store.postingList(entry.id)
    let loaded = RankedSnapshot.LoadedList(list: list, pages: Self.pages(of: list))
    snapshot.lists[entry.id] = loaded
    snapshot.listBytes += list.blocks.reduce(0) { $0 + $1.persistedByteCount }
    changed = true
    return loaded
  }

  /// Loads the pages `docs` (ascending) fall in that the snapshot lacks; whether it loaded any.
  func loadPages(of docs: [DocID], into snapshot: inout RankedSnapshot) throws -> Bool {
    try loadPages(numbered: docs.lazy.map(DocumentTable.page(of:)), into: &snapshot)
  }

  /// Loads the pages numbered `numbers` (ascending, repeats allowed) that the snapshot lacks;
  /// whether it loaded any.
  func loadPages(numbered numbers: some Sequence<Int64>, into snapshot: inout RankedSnapshot) throws -> Bool {
    var changed = false
    var previous: Int64?
    for number in numbers {
      guard number != previous else { continue }
      previous = number
      guard !snapshot.documents.holdsPage(number), !snapshot.absentPages.contains(number) else { continue }
      if let page = try store.page(number) {
        snapshot.documents.install(page)
      } else {
        snapshot.absentPages.insert(number)
      }
      changed = true
    }
    return changed
  }

  /// The sums of `live` documents' lengths (summed first, then taken away once: an array
  /// per hidden document, 30,000 at 1M, cost more than the sums).
  static func statistics(of live: [DocID], in documents: DocumentTable, generation: Int64) -> RankedStatistics {
    var sums = RankedStatistics(fieldCount: documents.fieldCount, generation: generation)
    for doc in live {
      guard let location = documents.location(of: doc) else { continue }
      sums.documentCount += 1
      for field in 0..<documents.fieldCount {
        let length = documents.length(at: location, field: field)
        sums.totalFieldLengths[field] += length
        if length > 0 { sums.fieldDocumentCounts[field] += 1 }
      }
    }
    return sums
  }

  /// The statistics of the collection without `hidden` (ascending rowids): N, the field
  /// lengths and each term's document frequency count only the documents left. Costs a
  /// page lookup per hidden document, the sum of their lengths unless `removing` holds it
  /// (`statistics(of:in:generation:)` of the same documents), and a decode of the blocks
  /// whose range holds one.
  ///
  /// `counted` holds hidden-posting counts already known for these rowids (term id -> count,
  /// see `RankedSnapshot.hiddenPostings`); returns the counts it had to make, for the cache.
  static func leaveOut(
    _ hidden: [DocID], removing known: RankedStatistics? = nil, from statistics: inout RankedStatistics,
    terms: inout [PreparedQuery.ResolvedTerm], ids: [TermID], documents: DocumentTable, counted: [TermID: Int]
  ) -> [TermID: Int] {
    let live = hidden.filter(documents.contains)
    guard !live.isEmpty else { return [:] }
    statistics.remove(known ?? Self.statistics(of: live, in: documents, generation: statistics.generation))
    let docs = UnsafeMutablePointer<DocID>.allocate(capacity: BlockCodec.capacity)
    defer { docs.deallocate() }
    var made: [TermID: Int] = [:]
    for position in terms.indices {
      if let count = counted[ids[position]] {
        terms[position].documentFrequency = max(0, terms[position].documentFrequency - count)
        continue
      }
      let hiddenPostings = postings(of: terms[position].list, among: live, buffer: docs).count
      terms[position].documentFrequency = max(0, terms[position].documentFrequency - hiddenPostings)
      made[ids[position]] = hiddenPostings
    }
    return made
  }

  /// The sorted page numbers the list's postings fall in: every page a block's range
  /// spans when it spans few, the pages of its decoded doc ids otherwise.
  static func pages(of list: PostingList) -> [Int64] {
    var pages: [Int64] = []
    let docs = UnsafeMutablePointer<DocID>.allocate(capacity: BlockCodec.capacity)
    defer { docs.deallocate() }
    for block in list.blocks {
      let first = DocumentTable.page(of: block.firstDoc)
      let last = DocumentTable.page(of: block.lastDoc)
      if last - first < 4 {
        for number in first...last where pages.last != number { pages.append(number) }
      } else {
        _ = BlockCodec.decodeDocIDs(of: block, into: docs)
        for index in 0..<block.postingCount {
          let number = DocumentTable.page(of: docs[index])
          if pages.last != number { pages.append(number) }
        }
      }
    }
    return pages
  }
}
