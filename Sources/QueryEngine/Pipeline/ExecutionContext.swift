import Foundation
import SearchIndex
import Synchronization

/// A flag that cancels a running query: SQLite statements stop at their next progress check
/// and Swift stages at their next item.
public final class CancellationFlag: Sendable {
  private let cancelled = Atomic<Bool>(false)
  public init() {}
  public func cancel() { cancelled.store(true, ordering: .relaxed) }
  public var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

  /// Throws `QueryCancelled` when cancelled.
  public func check() throws(QueryCancelled) {
    if isCancelled { throw QueryCancelled() }
  }
}

/// Thrown when a query was cancelled.
public struct QueryCancelled: Error, Sendable, CustomStringConvertible {
  public init() {}
  public var description: String { "query cancelled" }
}

/// Identifies one execution: every reply carries the token, and the token records the clock,
/// time zone and index generation the execution used, so a reply can be replayed and cited.
public struct QueryToken: Sendable, Hashable, CustomStringConvertible {
  public var id: String
  public var now: Date
  public var timeZone: String
  public var generation: Int64

  /// A new token with a random identifier (`q` + 10 base-36 characters).
  public init(now: Date, timeZone: TimeZone, generation: Int64) {
    // The ten digits of one draw (36^10 < 2^64) from a generator the system seeds once per
    // process: a system call per query cost more than planning a short one.
    var random = Self.generator.withLock { $0.next() }
    var bytes: [UInt8] = [UInt8(ascii: "q")]
    for _ in 0..<10 {
      bytes.append(Self.digits[Int(random % 36)])
      random /= 36
    }
    self.id = String(decoding: bytes, as: UTF8.self)
    self.now = now
    self.timeZone = timeZone.identifier
    self.generation = generation
  }

  private static let digits = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)
  /// SplitMix64 visits every 64-bit state once per period, so a process never repeats a draw.
  private static let generator = Mutex(SplitMix64(seed: UInt64.random(in: .min ... .max)))

  public var description: String { "\(id) (now \(ISO8601.format(now)), TZ \(timeZone), index generation \(generation))" }

  /// The token as JSON.
  public var jsonValue: JSONValue {
    .object(JSONObject([
      ("queryToken", .string(id)), ("now", .string(ISO8601.format(now))), ("timeZone", .string(timeZone)),
      ("generation", .number(Double(generation))),
    ]))
  }
}

/// The executor's state for one execution: the reader connection and snapshot, the access
/// scope and clock, the compiler's view of the attributes, the caches of `similar` searches,
/// and the statements run. Stages see it only as a `StageContext`.
///
/// Not `Sendable`: it holds the reader connection of one execution, used on one thread.
package final class ExecutionContext {
  public let index: SearchIndex
  public let scope: AccessScope
  public let clock: QueryClock
  public let catalog: AttributeCatalog
  public let cancellation: CancellationFlag
  public let token: QueryToken
  /// The app's side of the index, for hydration; nil when none is registered.
  public let delegate: (any IndexDelegate)?
  let connection: Connection
  /// The full-text rows the scope hides, once a scored text search needed them.
  private var hiddenFullText: HiddenFullTextRows??
  let attributeMap: SQLCompiler.AttributeMap
  /// Whether OR-ranked text searches take the ranked index (else FTS5's bm25()).
  public var usesRankedIndex = true
  /// Embeds `similar` phrases (from `QueryOptions.embedder`).
  let embedder: (any TextEmbedder)?
  /// Query vectors and hits, once per phrase and search in an execution.
  private var queryVectors: [String: [Float]] = [:]
  private var similarHits: [SimilarSearch: SimilarHits] = [:]
  /// Hits of `similar` searches whose `limit` counts only items that pass the other
  /// conditions of their AND, by search and the SQL of those conditions.
  private var restrictedSimilarHits: [String: SimilarHits] = [:]
  /// The statements run so far through `run(_:_:)`, in order: what `explain` shows for the
  /// same plan (the ranked index's per-candidate checks and fetches are not among them).
  public internal(set) var executedSQL: [String] = []
  /// How many rows of items statements were read, for tests of the paths that stop early.
  package internal(set) var itemRowsRead = 0
  /// Items `hydrate` read whole after a stage had them in part.
  package internal(set) var itemsReadWhole = 0
  /// The most distinct values an attribute's patterns are matched on one by one.
  var distinctValueLimit = SQLCompiler.distinctValueLimit
  /// The distinct text values of attributes (nil: too many), once per execution.
  private var distinctTextValues: [[Int64]: [(fold: String, text: String)]?] = [:]
  /// The rows of lists counted up to a limit (`SQLCompiler.listRowsUpTo`), once per execution.
  private struct ListCount: Hashable {
    var sql: String
    var arguments: [SQLValue]
    var limit: Int
  }
  private var listCounts: [ListCount: Int] = [:]
  /// Whether the file has a current ranked index, once asked.
  private var rankedIndexPresent: Bool?

  init(
    index: SearchIndex, connection: Connection, scope: AccessScope, clock: QueryClock, catalog: AttributeCatalog,
    attributes: SQLCompiler.AttributeMap, cancellation: CancellationFlag, token: QueryToken, delegate: (any IndexDelegate)? = nil,
    embedder: (any TextEmbedder)? = nil
  ) {
    self.embedder = embedder
    self.delegate = delegate
    self.index = index
    self.connection = connection
    self.scope = scope
    self.clock = clock
    self.catalog = catalog
    self.cancellation = cancellation
    self.token = token
    self.attributeMap = attributes
  }

  /// A context that reads the attribute ids from `connection` itself (the executor takes
  /// them from its per-generation cache instead).
  convenience init(
    index: SearchIndex, connection: Connection, scope: AccessScope, clock: QueryClock, catalog: AttributeCatalog,
    cancellation: CancellationFlag, token: QueryToken, delegate: (any IndexDelegate)? = nil, embedder: (any TextEmbedder)? = nil
  ) throws {
    self.init(
      index: index, connection: connection, scope: scope, clock: clock, catalog: catalog,
      attributes: try SQLCompiler.AttributeMap.load(connection, catalog: catalog), cancellation: cancellation, token: token,
      delegate: delegate, embedder: embedder)
  }

  /// A compiler for plans over this index and scope.
  public func compiler() -> SQLCompiler {
    var compiler = SQLCompiler(attributes: attributeMap, scope: scope, indexID: index.indexID)
    compiler.similarHits = similarHits
    let (index, connection) = (index, connection)
    compiler.fullTextTerms = { piece in
      try index.fullTextTerms(containing: piece, limit: SQLCompiler.pieceTermLimit, in: connection)
    }
    compiler.textMatchBound = { search in
      var frequencies: [Int] = []
      for term in search.terms {
        guard !term.isPrefix, let alternatives = RankedAnalysis.queryTerms(of: term.text),
          let counts = try index.documentFrequencies(ofTerms: alternatives, in: connection)
        else { return nil }
        frequencies.append(counts.reduce(0, +))
      }
      return search.requireAll || search.phrase ? frequencies.min() : frequencies.reduce(0, +)
    }
    compiler.listRowsUpTo = { [unowned self] sql, arguments, limit in
      // Counted once per execution: a window's count and its items compile the same lists.
      let key = ListCount(sql: sql, arguments: arguments, limit: limit)
      if let known = listCounts[key] { return known }
      let rows = Int(try connection.scalar("SELECT count(*) FROM (" + sql + " LIMIT ?)", arguments + [.integer(Int64(limit))])?.int64Value ?? 0)
      listCounts[key] = rows
      return rows
    }
    compiler.distinctTextValues = { [unowned self] attributeIDs in
      guard distinctValueLimit > 0 else { return nil }
      if let known = distinctTextValues[attributeIDs] { return known }
      let values = try index.distinctTextValues(of: attributeIDs, limit: distinctValueLimit, in: connection)
      distinctTextValues[attributeIDs] = .some(values)
      return values
    }
    return compiler
  }

  /// A compiler for `plan`, with the hits of its `similar` searches resolved for it.
  public func compiler(for plan: SQLPlan) throws -> SQLCompiler {
    var compiler = self.compiler()
    for (search, hits) in try resolveSimilar(plan) { compiler.similarHits[search] = hits }
    return compiler
  }

  /// True when the file has a current ranked index (asked once per execution).
  func hasRankedIndex() throws -> Bool {
    if let rankedIndexPresent { return rankedIndexPresent }
    let present = try index.rankedStatistics(in: connection) != nil
    rankedIndexPresent = present
    return present
  }

  // MARK: Similarity

  /// The hits of a `similar` search: exact nearest neighbours by cosine over every vector of
  /// the index (read once per index generation), within the search's distance and count.
  /// Throws `EmbeddingError` when the index has no embeddings or the phrase cannot be embedded.
  public func similar(_ search: SimilarSearch) throws -> SimilarHits {
    try similar(search, restrictedTo: nil)
  }

  /// The hits of a `similar` search whose `limit` counts only items that also pass
  /// `restriction` (a compiled condition on `items i`, the other parts of the search's AND):
  /// `similar "x" limit 10 && stateOrProvince == "Oregon"` is the 10 nearest Oregon items,
  /// not the Oregon items among the 10 nearest.
  func similar(_ search: SimilarSearch, restrictedTo restriction: SQLCompiler.Compiled?) throws -> SimilarHits {
    let key = restriction.map { "\(search)|\($0.sql)|\($0.arguments)" }
    if let key, let hits = restrictedSimilarHits[key] { return hits }
    if key == nil, let hits = similarHits[search] { return hits }
    guard let matrix = try index.vectorMatrix(connection) else { throw EmbeddingError.noEmbeddings(path: index.path) }
    let vector = try queryVector(search.phrase, dimensions: matrix.dimensions)
    try cancellation.check()
    // Items this execution may not see (expired, protected) or that fail the restriction must
    // not take places of the `maxCount` nearest: the scan asks for a few more, and for more
    // again while too many of them are left out; only the candidates are checked.
    var hits: [VectorMatrix.Hit]
    if let maxCount = search.maxCount {
      var hidden = Set<Int64>()
      var extra = 16
      while true {
        let candidates = matrix.nearest(to: vector, maxDistance: search.maxDistance, maxCount: maxCount + extra, excluding: hidden)
        let visible = Set(try visibleItems(candidates.map(\.item), restrictedTo: restriction))
        for candidate in candidates where !visible.contains(candidate.item) { hidden.insert(candidate.item) }
        let kept = candidates.filter { visible.contains($0.item) }
        if kept.count >= maxCount || candidates.count < maxCount + extra {
          hits = Array(kept.prefix(maxCount))
          break
        }
        extra *= 4
      }
    } else {
      hits = matrix.nearest(to: vector, maxDistance: search.maxDistance)
    }
    var similarities: [Int64: Double] = [:]
    for hit in hits {
      similarities[hit.item] = Double(hit.similarity)
    }
    let result = SimilarHits(similarities: similarities, itemsWithVectors: matrix)
    if let key { restrictedSimilarHits[key] = result } else { similarHits[search] = result }
    return result
  }

  /// The items among `rowids` that this execution may see (and that pass `restriction`).
  private func visibleItems(_ rowids: [Int64], restrictedTo restriction: SQLCompiler.Compiled? = nil) throws -> [Int64] {
    guard !rowids.isEmpty else { return [] }
    let visible = scope.sqlCondition(alias: "i", indexID: index.indexID)
    let list = "[" + rowids.map(String.init).joined(separator: ",") + "]"
    guard var restriction else {
      return try connection.rows(
        "SELECT i.rowid FROM items i WHERE i.rowid IN (SELECT value FROM json_each(?)) AND \(visible.sql)",
        [.text(list)] + visible.arguments) { $0.int64(0) }
    }
    restriction.sql = "SELECT i.rowid FROM items i WHERE i.rowid IN (SELECT value FROM json_each(?)) AND \(visible.sql) AND (\(restriction.sql))"
    restriction.arguments = [.text(list)] + visible.arguments + restriction.arguments
    var rows: [Int64] = []
    try run(restriction) { rows.append($0.int64(0)) }
    return rows
  }

  private func queryVector(_ phrase: String, dimensions: Int) throws -> [Float] {
    if let vector = queryVectors[phrase] { return vector }
    guard let embedder else {
      throw EmbeddingError(.unreachable, "no embeddings endpoint for the 'similar' phrase; the index records one, so run the query through searchlight or set QueryOptions.embedder")
    }
    guard let vector = try embedder.embed([phrase]).first else {
      throw EmbeddingError(.malformed, "the embeddings endpoint returned no vector for the 'similar' phrase")
    }
    guard vector.count == dimensions else {
      throw EmbeddingError(.mismatch,
        "the embeddings endpoint returned \(vector.count) dimensions for the 'similar' phrase, but the index's vectors have \(dimensions); is it the model the index records?")
    }
    queryVectors[phrase] = vector
    return vector
  }

  /// The cosine similarity of `item`'s best chunk to `phrase`; 0 when it has no vector.
  public func similarity(of item: ResultItem, to phrase: String) throws -> Double {
    guard let matrix = try index.vectorMatrix(connection) else { throw EmbeddingError.noEmbeddings(path: index.path) }
    let vector = VectorCodec.normalized(try queryVector(phrase, dimensions: matrix.dimensions))
    return matrix.similarity(of: item.rowid, to: vector).map(Double.init) ?? 0
  }

  /// Resolves the `similar` searches of a plan before it is compiled. A search with a
  /// `limit` that is one part of the plan's AND counts its nearest items among those that
  /// pass the other parts (when they run in SQLite).
  @discardableResult
  func resolveSimilar(_ plan: SQLPlan) throws -> [SimilarSearch: SimilarHits] {
    var resolved: [SimilarSearch: SimilarHits] = [:]
    let parts = SQLCompiler.flatten(plan.predicate)
    for search in plan.predicate.similarSearches where resolved[search] == nil {
      let others = parts.filter { $0 != .similar(search) }
      if search.maxCount != nil, parts.contains(.similar(search)), !others.isEmpty,
        others.allSatisfy({ $0.similarSearches.isEmpty && $0.isStoredOnly })
      {
        var compiler = self.compiler()
        if let condition = try? compiler.condition(others.count == 1 ? others[0] : .and(others)) {
          resolved[search] = try similar(search, restrictedTo: compiler.finish(condition, ranked: false))
          continue
        }
      }
      resolved[search] = try similar(search)
    }
    return resolved
  }

  /// True when `item` matches `search` (for stages that filter in Swift).
  public func matches(_ search: SimilarSearch, _ item: ResultItem) throws -> Bool {
    let hits = try similar(search)
    if hits.similarities[item.rowid] != nil { return true }
    guard let keywords = search.keywords, hits.itemsWithVectors?.contains(item: item.rowid) == false else { return false }
    return ExpressionEvaluator.textMatches(keywords, item)
  }

  /// Runs a compiled statement, handing each row to `row`.
  func run(_ compiled: SQLCompiler.Compiled, _ row: (Statement) throws -> Void) throws {
    try runRows(compiled, until: { try row($0); return false })
  }

  /// Runs `compiled`, handing each row to `row` until it returns true (or the rows end).
  func runRows(_ compiled: SQLCompiler.Compiled, until row: (Statement) throws -> Bool) throws {
    try cancellation.check()
    executedSQL.append(compiled.sql)
    try installFunctions(for: compiled)
    let cancellation = self.cancellation
    connection.setProgressHandler(every: 10_000) { cancellation.isCancelled }
    defer { connection.setProgressHandler(every: 0, nil) }
    // Prepared once per connection and SQL text: the same query with other values reuses it.
    let statement = try connection.checkOutStatement(compiled.sql)
    defer { connection.checkIn(statement) }
    try statement.bind(compiled.arguments)
    do {
      while try statement.step() { if try row(statement) { break } }
    } catch let error as DatabaseError where error.code == .interrupt || cancellation.isCancelled {
      _ = error
      throw QueryCancelled()
    }
  }

  /// How SQLite will run a compiled statement: the rows of `EXPLAIN QUERY PLAN` with its
  /// arguments bound (https://www.sqlite.org/eqp.html), without running it.
  public func queryPlan(_ compiled: SQLCompiler.Compiled) throws -> QueryPlan {
    try installFunctions(for: compiled)
    let statement = try connection.makeStatement("EXPLAIN QUERY PLAN " + compiled.sql)
    try statement.bind(compiled.arguments)
    var steps: [QueryPlan.Step] = []
    while try statement.step() {
      steps.append(QueryPlan.Step(id: Int(statement.int64(0)), parent: Int(statement.int64(1)), detail: statement.string(3) ?? ""))
    }
    return QueryPlan(steps: steps)
  }

  /// Installs the Swift functions a compiled statement calls (`sl_match`, `sl_similarity`)
  /// on the connection, bound to its matchers and similarity tables.
  func installFunctions(for compiled: SQLCompiler.Compiled) throws {
    if compiled.ranked {
      // Read once per execution: the scope and the snapshot do not change within it.
      // Read once per generation and scope (`SearchIndex.queryHiddenFullTextRows`).
      if hiddenFullText == nil {
        hiddenFullText = .some(try index.queryHiddenFullTextRows(for: scope, in: connection, generation: token.generation))
      }
      connection.scoreFullText(excluding: hiddenFullText ?? nil)
    }
    if compiled.filtersHiddenRows {
      // Per generation and scope (`SearchIndex.queryHiddenRows`): one blob at most.
      connection.filterRows(hiding: try index.queryHiddenRows(for: scope, in: connection, generation: token.generation))
    }
    let matchers = compiled.matchers
    let flag = cancellation
    let similarities = compiled.similarities
    if !similarities.isEmpty {
      try connection.installFunction("sl_similarity", argumentCount: 2) { arguments in
        guard case .integer(let slot) = arguments[0], Int(slot) < similarities.count, case .integer(let rowid) = arguments[1] else {
          return .real(0)
        }
        let table = similarities[Int(slot)]
        return .real(table.scores[rowid] ?? table.fallback)
      }
    }
    if !matchers.isEmpty {
      try connection.installFunction("sl_match", argumentCount: 2) { arguments in
        // A slow pattern is checked row by row, so cancelling it takes effect at once.
        if flag.isCancelled { throw QueryCancelled() }
        guard case .integer(let index) = arguments[0], Int(index) < matchers.count else { return .integer(0) }
        guard case .text(let value) = arguments[1] else { return .integer(0) }
        return .integer(matchers[Int(index)].matches(value) ? 1 : 0)
      }
    }
  }
}
