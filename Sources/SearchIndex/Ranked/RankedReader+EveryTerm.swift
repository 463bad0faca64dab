/// The best k items holding every one of some words, scored as the full-text statement
/// scores them (`sl_bm25`, `VisibleBM25`: FTS5's `bm25()` over the rows a caller may see),
/// from the ranked postings.
///
/// FTS5 scores each match through its auxiliary-function API (the row's phrase instances,
/// its size from `fts_docsize`) after counting every row of each word (`xQueryPhrase`):
/// `search "budget review" | top 10` at 1M (58,338 matches) spent 82 of its 99 ms there.
/// The ranked index holds the same words' postings with their frequency in each full-text
/// column, each row's column lengths (in positions, as FTS5 counts a column's size) and each
/// word's document frequency (`check` verifies it equals FTS5's), so the same formula gives
/// the same scores, operation for operation, from decoded blocks: the intersection of the
/// words' lists, and the pages of the matches only.
extension RankedReader {
  /// The full-text table's totals over the rows a caller sees: rows and tokens in all
  /// columns (`xRowCount`, `xColumnTotalSize(-1)` less the hidden rows').
  struct FullTextTotals {
    var rows: Int64
    var tokens: Int64
  }

  /// The exact top `k` (by score, then ascending rowid) of the live documents holding every
  /// one of `terms` that are not in `hidden` (ascending) and pass `filter`, with the score
  /// `sl_bm25` gives their full-text rows for the AND of one phrase per term, in order (a
  /// term repeated counts twice, as a phrase repeated does). `columnWeights` are its weights
  /// per full-text column, which are the ranked index's fields. The documents must also hold
  /// every one of `required`, which no score counts (a word beside the search: `"lake" &&
  /// "trail"` is scored by "lake" alone). Nil when the ranked index is unavailable.
  func everyTermSearch(
    _ terms: [String], required: [String] = [], k: Int, columnWeights: [Double], filter: CandidateFilter, excluding hidden: [DocID],
    totals: FullTextTotals
  ) throws -> [SearchHit]? {
    guard let frequencies = try documentFrequencies(terms, excluding: hidden), var snapshot = try snapshot() else { return nil }
    guard k > 0, !terms.isEmpty, frequencies.allSatisfy({ $0 > 0 }) else { return [] }
    // One list per distinct term (`documentFrequencies` loaded them); each phrase reads its term's.
    var distinct: [String] = []
    var phraseList: [Int] = []
    for term in terms {
      if let index = distinct.firstIndex(of: term) {
        phraseList.append(index)
      } else {
        phraseList.append(distinct.count)
        distinct.append(term)
      }
    }
    var changed = false
    // `documentFrequencies` looked the terms up; their lists it read only with hidden rows. The
    // required terms' lists come after the scored ones, so that their frequencies come first
    // in each row.
    guard let lists = try lists(of: distinct, in: &snapshot, changed: &changed),
      let requiredLists = try self.lists(of: Set(required).subtracting(distinct).sorted(), in: &snapshot, changed: &changed)
    else { return [] }
    let fieldCount = snapshot.documents.fieldCount
    let weights = (0..<fieldCount).map { $0 < columnWeights.count ? columnWeights[$0] : 1.0 }
    // The matches in ascending rowid order, each with its weighted frequency of every distinct term.
    let visible = SortedDocIDSet(hidden)
    var matches: [DocID] = []
    var weighted: [Double] = []
    Self.intersect(lists + requiredLists, fieldCount: fieldCount) { doc, frequencies in
      guard !visible.contains(doc), filter.allowedSet?.contains(doc) ?? true else { return }
      matches.append(doc)
      for list in 0..<lists.count {
        var frequency = 0.0
        for field in 0..<fieldCount { frequency += weights[field] * Double(frequencies[list * fieldCount + field]) }
        weighted.append(frequency)
      }
    }
    // Only the matches' pages: a rare AND of common words reads few.
    if try loadPages(of: matches, into: &snapshot) { changed = true }
    if changed { cache.store(snapshot) }
    let documents = snapshot.documents
    let rows = max(1, totals.rows)
    let averageLength = Double(max(0, totals.tokens)) / Double(rows)
    let idf = frequencies.map { VisibleBM25.idf(rows: rows, hits: Int64($0)) }
    let predicate = filter.predicate
    var heap = TopKHeap(k: k)
    for (position, doc) in matches.enumerated() {
      // A document deleted since its postings were written (awaiting compaction) is not live.
      guard let location = documents.location(of: doc) else { continue }
      var length = 0
      for field in 0..<fieldCount { length += documents.length(at: location, field: field) }
      var score = 0.0
      for phrase in 0..<terms.count {
        score += VisibleBM25.phraseScore(
          idf: idf[phrase], frequency: weighted[position * lists.count + phraseList[phrase]], length: Double(length),
          averageLength: averageLength)
      }
      guard heap.admits(score: score, id: doc), predicate?(doc) ?? true else { continue }
      heap.insert(score: score, id: doc)
    }
    return heap.sortedHits()
  }

  /// The documents holding every one of `terms`, ascending (some may be deleted and await
  /// compaction: a filter of candidates, which the searches test for life themselves); nil
  /// when the ranked index is unavailable.
  func documents(holdingEvery terms: [String]) throws -> [DocID]? {
    guard var snapshot = try snapshot() else { return nil }
    var changed = false
    defer { if changed { cache.store(snapshot) } }
    guard let lists = try lists(of: Set(terms).sorted(), in: &snapshot, changed: &changed) else { return [] }
    var docs: [DocID] = []
    Self.intersect(lists, fieldCount: snapshot.documents.fieldCount) { doc, _ in docs.append(doc) }
    return docs
  }

  /// The posting lists of `terms`, in order, from the snapshot or the store (`changed` when
  /// one was read); nil when a term is not in the lexicon (no document holds it).
  func lists(of terms: [String], in snapshot: inout RankedSnapshot, changed: inout Bool) throws -> [PostingList]? {
    var lists: [PostingList] = []
    for term in terms {
      guard let entry = try entry(term, in: &snapshot, changed: &changed) else { return nil }
      lists.append(try loadedList(entry, in: &snapshot, changed: &changed).list)
    }
    return lists
  }

  /// Calls `body` with each document every list holds, in ascending order, and its
  /// frequencies (`fieldCount` per list, in list order), valid during the call.
  static func intersect(_ lists: [PostingList], fieldCount: Int, _ body: (DocID, UnsafePointer<UInt32>) -> Void) {
    guard !lists.isEmpty, lists.allSatisfy({ !$0.blocks.isEmpty }) else { return }
    var walkers = lists.map { ListWalker(list: $0, fieldCount: fieldCount) }
    defer { for index in walkers.indices { walkers[index].deallocate() } }
    let row = UnsafeMutablePointer<UInt32>.allocate(capacity: lists.count * fieldCount)
    defer { row.deallocate() }
    // Leapfrog: the shortest list proposes, the others catch up.
    let order = walkers.indices.sorted { lists[$0].blocks.count < lists[$1].blocks.count }
    var target = walkers[order[0]].doc
    while target != ListWalker.exhausted {
      var agreed = true
      for index in order {
        walkers[index].advance(to: target)
        let doc = walkers[index].doc
        if doc == ListWalker.exhausted { return }
        if doc > target {
          target = doc
          agreed = false
          break
        }
      }
      guard agreed else { continue }
      for index in walkers.indices {
        (row + index * fieldCount).update(from: walkers[index].frequencies(), count: fieldCount)
      }
      body(target, row)
      walkers[order[0]].next()
      target = walkers[order[0]].doc
    }
  }

  /// A forward cursor over one posting list that decodes a block's documents when it
  /// enters it and their frequencies only when asked.
  struct ListWalker {
    static let exhausted = DocID.max
    let blocks: [PostingBlock]
    let fieldCount: Int
    private let docs = UnsafeMutablePointer<DocID>.allocate(capacity: BlockCodec.capacity)
    private let frequencyRows: UnsafeMutablePointer<UInt32>
    private(set) var doc = ListWalker.exhausted
    private var block = 0
    private var position = 0
    private var frequencyOffset = 0
    private var frequenciesDecoded = false

    init(list: PostingList, fieldCount: Int) {
      blocks = list.blocks
      self.fieldCount = fieldCount
      frequencyRows = .allocate(capacity: BlockCodec.capacity * fieldCount)
      if !blocks.isEmpty { enter(0) }
    }

    func deallocate() {
      docs.deallocate()
      frequencyRows.deallocate()
    }

    private mutating func enter(_ index: Int) {
      block = index
      frequencyOffset = BlockCodec.decodeDocIDs(of: blocks[index], into: docs)
      frequenciesDecoded = false
      position = 0
      doc = docs[0]
    }

    mutating func next() {
      position += 1
      if position < blocks[block].postingCount {
        doc = docs[position]
      } else if block + 1 < blocks.count {
        enter(block + 1)
      } else {
        doc = Self.exhausted
      }
    }

    /// Moves to the first posting at or after `target`, skipping blocks that end before it undecoded.
    mutating func advance(to target: DocID) {
      guard doc < target else { return }
      if blocks[block].lastDoc < target {
        var index = block + 1
        while index < blocks.count, blocks[index].lastDoc < target { index += 1 }
        guard index < blocks.count else {
          doc = Self.exhausted
          return
        }
        enter(index)
      }
      while docs[position] < target { position += 1 }
      doc = docs[position]
    }

    /// The current posting's frequencies, one per field.
    mutating func frequencies() -> UnsafePointer<UInt32> {
      if !frequenciesDecoded {
        BlockCodec.decodeFrequencies(of: blocks[block], from: frequencyOffset, fieldCount: fieldCount, into: frequencyRows)
        frequenciesDecoded = true
      }
      return UnsafePointer(frequencyRows + position * fieldCount)
    }
  }
}
