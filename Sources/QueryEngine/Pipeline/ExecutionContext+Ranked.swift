import SearchIndex

extension ExecutionContext {
  /// Runs a ranked plan: reads the candidate filter with one SQL statement (or prepares
  /// a per-candidate check when the allowed set is large), asks the ranked index for the
  /// exact top k, then fetches those items in rank order with their scores as relevance.
  /// Returns false, having emitted nothing, when the file has no current ranked index; the
  /// caller then runs the plan through FTS5.
  func rankedItems(_ plan: RankedPlan, batchSize: Int, _ batch: ([ResultItem]) throws -> Void) throws -> Bool {
    guard let hits = try rankedHits(plan) else { return false }
    let fetch = try connection.checkOutStatement(plan.fetch.sql)
    defer { connection.checkIn(fetch) }
    var batches = ItemBatches(size: batchSize, cancellation: cancellation)
    for hit in hits {
      fetch.reset()
      try fetch.bind(.integer(hit.id), at: 1)
      for (offset, argument) in plan.fetch.arguments.enumerated() { try fetch.bind(argument, at: Int32(offset + 2)) }
      guard try fetch.step() else { continue }
      var result = ResultItem(
        rowid: fetch.int64(0), item: try StoredItem.decode(row: fetch, offset: 1, catalog: catalog, lazily: true), relevance: hit.score)
      result.engagement = Int(fetch.int64(7))
      fetch.reset()
      try batches.add(result, to: batch)
    }
    try batches.finish(to: batch)
    return true
  }

  /// The exact top k of a ranked plan (every match when `plan.k` is nil) with their scores
  /// (`RankedPlan.Scoring`), among the candidates its filter lets through and the scope
  /// shows; nil when the file has no current ranked index.
  func rankedHits(_ plan: RankedPlan) throws -> [SearchHit]? {
    try cancellation.check()
    guard let statistics = try index.rankedStatistics(in: connection) else { return nil }
    let filter: CandidateFilter
    // The rowids the scope hides, ascending, read once per generation and scope
    // (`queryHiddenRows`; through the partial indexes every query read 30,000 of them at 1M
    // in 15–20 ms). The statistics leave them out, and so do the candidates, by binary search
    // (a hash set of 30,000 rowids cost more to build than a query's lookups).
    let hiddenRows = try index.queryHiddenRows(for: scope, in: connection, generation: token.generation)
    let hidden = SortedDocIDSet(hiddenRows)
    // An OR's words beside it (an AND intersects them itself): the items that hold them all,
    // from the ranked index's lists, are the only ones it may score.
    var holding: SortedDocIDSet?
    if plan.scoring == .anyTerm, !plan.requiredTerms.isEmpty {
      guard let docs = try index.documents(holdingEvery: plan.requiredTerms, in: connection) else { return nil }
      holding = SortedDocIDSet(hidden.ids.isEmpty ? docs : docs.filter { !hidden.contains($0) })
    }
    switch plan.filter {
    case .scopeOnly:
      if let holding {
        filter = .allowed(holding)
      } else {
        filter = hidden.ids.isEmpty ? .none : .predicate { !hidden.contains($0) }
      }
    case .predicate(let allowed, let check, let limit):
      if plan.scoring == .everyTerm, let k = plan.k,
        let hits = try everyTermHitsCheckedInRankOrder(plan, k: k, check: check, hiddenRows: hiddenRows)
      {
        return hits
      }
      // The statements test the predicate only: the scope is applied here, by leaving out
      // the hidden rowids (the complement of the scope within the named index).
      var rowids: [Int64] = []
      try run(allowed) { rowids.append($0.int64(0)) }
      if rowids.count <= limit {
        filter = .allowed(SortedDocIDSet(rowids.filter { !hidden.contains($0) && holding?.contains($0) ?? true }))
      } else {
        let test = try candidateCheck(check)
        filter = .predicate { rowid in !hidden.contains(rowid) && (holding?.contains(rowid) ?? true) && test(rowid) }
      }
    }
    let k = plan.k ?? max(1, statistics.documentCount)
    if plan.scoring == .everyTerm {
      return try everyTermHits(plan, k: k, filter: filter, hiddenRows: hiddenRows)
    }
    let hiddenStatistics = try index.hiddenRankedStatistics(for: scope, hidden: hiddenRows, in: connection, generation: token.generation)
    return try index.rankedSearch(
      plan.terms, k: k, filter: filter, excluding: hiddenRows, hiddenStatistics: hiddenStatistics, in: connection)
  }

  /// How many of an AND's best matches are checked one by one, in rank order, before the
  /// items that pass its tests are read instead (`RankedPlan.everyTermChecks`).
  static func everyTermChecks(k: Int) -> Int { max(64, 16 * k) }

  /// The most best matches checked in a second round, when the first found some that pass
  /// but fewer than k: about 5 µs each, 50 ms at most, where the items that pass tests of a
  /// year of dates in one domain at a million items take 250 ms to read.
  static let everyTermCheckLimit = 10_000

  /// The top k of an AND of words beside tests that many items pass: its best matches in
  /// rank order, each checked (`check`) until k pass. Scoring every match of an AND costs
  /// little, so checking the best few (about k divided by the share that passes) costs less
  /// than reading up to `allowedSetLimit` items that pass the tests first (20,001 for
  /// `rating >= 4` at 1M). When the first `everyTermChecks(k:)` matches hold fewer than k
  /// that pass while more remain, the share that passed says how many would hold k: twice
  /// that many are checked, up to `everyTermCheckLimit`. Nil when none passed, or that
  /// would be more: the tests are selective, and their items are few.
  private func everyTermHitsCheckedInRankOrder(_ plan: RankedPlan, k: Int, check: SQLCompiler.Compiled, hiddenRows: [Int64]) throws -> [SearchHit]? {
    var candidates = Self.everyTermChecks(k: k)
    executedSQL.append(check.sql)
    let test = try candidateCheck(check)
    while true {
      guard let best = try everyTermHits(plan, k: candidates, filter: .none, hiddenRows: hiddenRows) else { return nil }
      var passed: [SearchHit] = []
      for hit in best where test(hit.id) {
        passed.append(hit)
        if passed.count == k { return passed }
      }
      // Every match was checked: these are all that pass.
      if best.count < candidates { return passed }
      // (Fewer than k passed: `needed` is more than twice `candidates`, so the rounds end.)
      guard !passed.isEmpty else { return nil }
      let needed = 2 * candidates * k / passed.count
      guard needed <= Self.everyTermCheckLimit else { return nil }
      candidates = needed
    }
  }

  /// The exact top k of an AND of words (`RankedPlan.Scoring.everyTerm`) among the visible
  /// matches `filter` accepts.
  private func everyTermHits(_ plan: RankedPlan, k: Int, filter: CandidateFilter, hiddenRows: [Int64]) throws -> [SearchHit]? {
    let hiddenFullText = try index.queryHiddenFullTextRows(for: scope, in: connection, generation: token.generation)
    return try index.everyTermSearch(
      plan.terms.map(\.term), required: plan.requiredTerms, k: k, columnWeights: SQLCompiler.columnWeights, filter: filter,
      excluding: hiddenRows, hiddenFullText: hiddenFullText, in: connection)
  }

  /// Whether one rowid passes a ranked plan's `check` statement (the rowid bound first),
  /// with the pattern matchers it calls installed on the connection.
  private func candidateCheck(_ check: SQLCompiler.Compiled) throws -> (Int64) -> Bool {
    try installFunctions(for: check)
    let statement = try connection.makeStatement(check.sql)
    let arguments = check.arguments
    return { rowid in
      statement.reset()
      do {
        try statement.bind(.integer(rowid), at: 1)
        for (offset, argument) in arguments.enumerated() { try statement.bind(argument, at: Int32(offset + 2)) }
        let accepted = try statement.step()
        statement.reset()
        return accepted
      } catch {
        return false
      }
    }
  }
}
