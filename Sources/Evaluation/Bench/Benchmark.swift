import Assistant
import Foundation
import QueryEngine
import SearchIndex
import Stages

#if canImport(Glibc)
import Glibc
#endif

/// `searchlight bench`: builds an index from generated items (or a corpus), then times a fixed
/// mix of queries through the engine and through hand-written SQL on the same file.
///
/// Warm runs reuse one engine (and one SQL connection) after a warm-up pass; each run times
/// `iterations` executions per query, cycling through its variants, engine and SQL
/// interleaved, and the report gives the median over runs of each percentile. Cold runs open
/// new connections (an empty SQLite page cache) and first evict the index file from the
/// operating system's page cache with `posix_fadvise(POSIX_FADV_DONTNEED)`, which needs no
/// privileges.
package struct Benchmark {
  package struct Configuration: Sendable {
    /// Items to generate (ignored with a corpus).
    package var items: Int = 10_000
    /// A corpus or items file to index instead of generated items.
    package var corpus: String?
    /// Questions for the corpus (TREC `{"id","text"}` lines); else its titles are the questions.
    package var questions: String?
    /// The index file to build (must not exist).
    package var path: String
    package var runs: Int = 5
    package var iterations: Int = 20
    package var coldRuns: Int = 5
    package var seed: UInt64 = 1
    /// Results per ranked query.
    package var k: Int = 10
    /// Items per write transaction for generated items.
    package var batchSize: Int = 10_000
    /// Whether to ingest the same items once more without ranked postings (into a
    /// temporary file next to `path`) to report what the postings cost.
    package var measuresWithoutRanked = true
    /// Timed passes over the ranked queries (`RankedBenchmark`).
    package var rankedPasses: Int = 5
    /// Whether to time the query mix against hand-written SQL (off: ingest and the ranked
    /// measurement only, for large collections).
    package var timesMix = true
    /// Time the queries of an index an earlier `bench --db` built (same items and seed)
    /// instead of ingesting: for profiling and before/after comparisons of queries alone.
    package var reusesIndex = false
    /// Only the mix's queries of these names (all when nil); the ranked measurement is then
    /// skipped.
    package var onlyQueries: Set<String>?

    package init(path: String) { self.path = path }
  }

  package var configuration: Configuration
  /// Progress lines (`ingest 20000/100000`), for a terminal.
  package var progress: @Sendable (String) -> Void

  package init(_ configuration: Configuration, progress: @escaping @Sendable (String) -> Void = { _ in }) {
    self.configuration = configuration
    self.progress = progress
  }

  /// The clock and visibility of every query: the generated data's reference date, UTC.
  var options: QueryOptions {
    QueryOptions(
      scope: AccessScope(now: ItemGenerator.referenceDate),
      clock: QueryClock(now: ItemGenerator.referenceDate, timeZone: TimeZone(identifier: "UTC")!))
  }

  /// Runs the whole benchmark.
  package func run() throws -> BenchmarkReport {
    let withoutRanked = configuration.measuresWithoutRanked && !configuration.reusesIndex ? try ingestWithoutRanked() : nil
    let index = try SearchIndex(path: configuration.path, create: !configuration.reusesIndex)
    var sample = TextSample()
    let ingest: BenchmarkReport.Ingest
    if configuration.reusesIndex {
      let size = Self.fileSize(configuration.path)
      ingest = BenchmarkReport.Ingest(
        items: configuration.items, seconds: 0, generationSeconds: 0, itemsPerSecond: 0, fileBytes: size,
        bytesPerItem: Double(size) / Double(max(configuration.items, 1)), peakMemoryBytes: nil, cpuSeconds: 0)
    } else {
      progress("ingesting with ranked postings")
      ingest = try self.ingest(into: index, path: configuration.path, sample: &sample)
    }
    let mix = try self.mix(sample: sample, index: index)
    var queries: [BenchmarkReport.Query] = []
    for query in mix where configuration.timesMix && (configuration.onlyQueries?.contains(query.name) ?? true) {
      progress("timing '\(query.name)'")
      queries.append(try measure(query, index: index))
    }
    let ranked = configuration.onlyQueries != nil ? nil
      : try RankedBenchmark(k: configuration.k, passes: configuration.rankedPasses, progress: progress).run(try rankedQueries(mix: mix), index: index)
    return BenchmarkReport(
      ingest: ingest, queries: queries, runs: configuration.runs, iterations: configuration.iterations,
      coldRuns: configuration.coldRuns, coldCache: Self.coldCacheDescription,
      source: configuration.corpus ?? "generated (seed \(configuration.seed))",
      // Each ingest starts a new peak, so the run's peak is the largest of the phases'.
      peakMemoryBytes: [withoutRanked?.peakMemoryBytes, ingest.peakMemoryBytes, ProcessMemory.peakResidentBytes].compactMap { $0 }.max(),
      ingestWithoutRanked: withoutRanked, ranked: ranked)
  }

  /// The texts of the ranked measurement: every line of the queries file, else the
  /// questions of the mix (corpus titles, or the generated questions).
  private func rankedQueries(mix: [BenchmarkQuery]) throws -> [[String]] {
    if let path = configuration.questions { return RankedBenchmark.queries(try TRECQuery.load(path: path).map(\.text)) }
    let questions = mix.flatMap(\.variants).compactMap { variant -> String? in
      if case .question(let question) = variant.engine { return question }
      return nil
    }
    return RankedBenchmark.queries(questions)
  }

  /// Ingests the same items into a scratch file with ranked maintenance off, then deletes it.
  private func ingestWithoutRanked() throws -> BenchmarkReport.Ingest {
    let scratch = configuration.path + ".without-ranked"
    func remove() { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: scratch + suffix) } }
    remove()
    defer { remove() }
    progress("ingesting without ranked postings")
    return try SearchIndex.$maintainsRankedIndex.withValue(false) {
      let index = try SearchIndex(path: scratch, create: true)
      var sample = TextSample()
      return try ingest(into: index, path: scratch, sample: &sample)
    }
  }

  private func ingest(into index: SearchIndex, path: String, sample: inout TextSample) throws -> BenchmarkReport.Ingest {
    // The ingest's own peak, not that of an earlier phase.
    ProcessMemory.startNewPeak()
    return try configuration.corpus.map { try ingestCorpus($0, into: index, path: path, sample: &sample) } ?? ingestGenerated(into: index, path: path)
  }

  // MARK: Ingest

  /// Words of a few indexed documents, to build queries that find something.
  struct TextSample {
    var texts: [String] = []
    var titles: [String] = []
  }

  private func ingestGenerated(into index: SearchIndex, path: String) throws -> BenchmarkReport.Ingest {
    let generator = ItemGenerator(seed: configuration.seed)
    let total = max(configuration.items, 1)
    let clock = ContinuousClock()
    let start = clock.now
    let cpuStart = RankedBenchmark.processCPUSeconds()
    var generation = Duration.zero
    var written = 0
    while written < total {
      let end = min(written + configuration.batchSize, total)
      try index.write { writer in
        for n in written..<end {
          let before = clock.now
          let item = generator.item(n)
          generation += clock.now - before
          try writer.upsert(item)
        }
      }
      written = end
      progress("ingest \(written)/\(total) items")
    }
    let seconds = QuestionRunner.seconds(clock.now - start)
    let generationSeconds = QuestionRunner.seconds(generation)
    return try finishIngest(
      path, items: total, seconds: seconds, cpuSeconds: RankedBenchmark.processCPUSeconds() - cpuStart, generationSeconds: generationSeconds)
  }

  private func ingestCorpus(
    _ path: String, into index: SearchIndex, path indexPath: String, sample: inout TextSample
  ) throws -> BenchmarkReport.Ingest {
    let clock = ContinuousClock()
    let start = clock.now
    let cpuStart = RankedBenchmark.processCPUSeconds()
    var count = 0
    var collected = TextSample()
    try index.write { writer in
      var reader = ItemReader(decoder: ItemDecoder(catalog: writer.catalog), format: .auto)
      try reader.read(path: path) { item, line, _ in
        do { try writer.upsert(item) } catch let error as SearchIndexError {
          if case .invalidItem(_, let message) = error { throw IngestError(file: path, line: line, message: message) }
          throw error
        }
        if count % 37 == 0, collected.texts.count < 200 {
          collected.titles.append(item.attributeSet.title ?? "")
          collected.texts.append([item.attributeSet.title, item.attributeSet["textContent"]?.stringValue].compactMap { $0 }.joined(separator: " "))
        }
        count += 1
        if count % 10_000 == 0 { progress("ingest \(count) items") }
      }
    }
    sample = collected
    guard count > 0 else { throw IngestError(file: path, line: nil, message: "no items in the file") }
    return try finishIngest(
      indexPath, items: count, seconds: QuestionRunner.seconds(clock.now - start),
      cpuSeconds: RankedBenchmark.processCPUSeconds() - cpuStart, generationSeconds: 0)
  }

  private func finishIngest(
    _ path: String, items: Int, seconds: Double, cpuSeconds: Double, generationSeconds: Double
  ) throws -> BenchmarkReport.Ingest {
    let peak = ProcessMemory.peakResidentBytes
    // Move the WAL into the main file so its size is the index's size.
    let connection = try Connection(path: path)
    try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    let size = Self.fileSize(path) + Self.fileSize(path + "-wal")
    let indexSeconds = max(seconds - generationSeconds, 1e-9)
    return BenchmarkReport.Ingest(
      items: items, seconds: seconds, generationSeconds: generationSeconds, itemsPerSecond: Double(items) / indexSeconds,
      fileBytes: size, bytesPerItem: Double(size) / Double(max(items, 1)), peakMemoryBytes: peak, cpuSeconds: cpuSeconds)
  }

  static func fileSize(_ path: String) -> Int64 {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
  }

  // MARK: The mix

  /// The queries: for generated items the full mix; for a corpus (only titles and text) the
  /// text queries.
  func mix(sample: TextSample, index: SearchIndex) throws -> [BenchmarkQuery] {
    let k = configuration.k
    if configuration.corpus != nil {
      var random = SplitMix64(seed: configuration.seed)
      let candidates = sample.texts.map { Self.words($0).filter { $0.count >= 4 && !PlainQuestionPlanner.stopwords.contains($0) } }.filter { $0.count >= 2 }
      let pairs = (0..<min(20, candidates.count)).map { n -> [String] in
        let words = candidates[n]
        let first = random.pick(words)
        var second = random.pick(words)
        if second == first { second = words.first(where: { $0 != first }) ?? first }
        return first == second ? [first] : [first, second]
      }
      var questions = sample.titles.filter { !PlainQuestionPlanner.terms($0).isEmpty }
      if let path = configuration.questions {
        questions = try TRECQuery.load(path: path).map(\.text)
      }
      var mix = [BenchmarkQuery]()
      if !pairs.isEmpty {
        mix.append(.textTop(pairs, k: k))
        mix.append(.textCount(pairs.map { [$0[0]] }))
      }
      if !questions.isEmpty { mix.append(.questionTop(Array(questions.prefix(50)), k: k)) }
      return mix
    }
    let ids = try attributeIDs(index)
    func id(_ name: String) -> Int64 { ids[name] ?? -1 }
    let generator = ItemGenerator(seed: configuration.seed)
    let rank = Dictionary(ItemGenerator.vocabulary.enumerated().map { ($1, $0) }, uniquingKeysWith: min)
    // Words from the text of sampled items, by frequency band, so every query finds something.
    func words(of n: Int, ranks: Range<Int>) -> [String] {
      let item = generator.item(n)
      let text = [item.attributeSet["textContent"], item.attributeSet["contentDescription"]].compactMap { $0?.stringValue }.joined(separator: " ")
      var seen = Set<String>()
      return Self.words(text).filter { ranks.contains(rank[$0] ?? -1) && seen.insert($0).inserted }
    }
    let total = max(configuration.items, 1)
    let samples = (0..<200).map { ($0 * 7_919 + 13) % total }
    var pairs: [[String]] = []
    var questions: [String] = []
    var rare: [String] = []
    for n in samples {
      let common = words(of: n, ranks: 100..<3_000)
      if pairs.count < 20, common.count >= 2 { pairs.append(Array(common.prefix(2))) }
      let broad = words(of: n, ranks: 40..<5_000)
      if questions.count < 20, broad.count >= 3 { questions.append("What about the \(broad[0]), \(broad[1]) and \(broad[2])?") }
      if rare.count < 20, let word = words(of: n, ranks: 1_000..<5_000).first { rare.append(word) }
    }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let thisMonth = calendar.date(from: calendar.dateComponents([.year, .month], from: ItemGenerator.referenceDate))!
    let months = (1...12).map { back in
      (start: calendar.date(byAdding: .month, value: -back, to: thisMonth)!, end: calendar.date(byAdding: .month, value: 1 - back, to: thisMonth)!)
    }
    let states: [(state: String, rating: Double)] = [
      ("Colorado", 4.7), ("California", 4.5), ("Utah", 4.8), ("Oregon", 4.6), ("Québec", 4.5), ("Montana", 4.7),
    ]
    var mix: [BenchmarkQuery] = []
    if !pairs.isEmpty { mix.append(.textTop(pairs, k: k)) }
    if !questions.isEmpty { mix.append(.questionTop(questions, k: k)) }
    if !pairs.isEmpty {
      mix.append(.textCount(pairs))
      mix.append(.textGroup(pairs))
      mix.append(.textStats(pairs, rating: id("rating")))
    }
    mix.append(.predicate(states, state: id("stateOrProvince"), rating: id("rating")))
    mix.append(.dateRange(months, modified: id("contentModificationDate")))
    mix.append(.sortLimit(latitude: id("latitude")))
    mix.append(.groupCount(state: id("stateOrProvince")))
    mix.append(.groupAll())
    mix.append(.listValue(["waterfall", "lake", "summit", "glacier"], keywords: id("keywords")))
    mix.append(.stats(distance: id("distance"), rating: id("rating")))
    if !rare.isEmpty { mix.append(.customScoring(rare, k: k, modified: id("contentModificationDate"), now: ItemGenerator.referenceDate, stage: .freshness())) }
    mix.append(.people(["Sam Ortiz", "Priya Shah", "Sofia Alvarez", "Marcus Lee"], authorNames: id("authorNames"), authorEmails: id("authorEmailAddresses")))
    mix.append(.sample(seeds: [7, 11, 13, 17], count: 20))
    mix.append(.planned([("Utah", 4.7), ("Colorado", 4.5), ("Oregon", 4.8), ("California", 4.6)], state: id("stateOrProvince"), rating: id("rating")))
    if !pairs.isEmpty { mix.append(.toolCall(pairs, k: k)) }
    if rare.count >= 2 { mix.append(.fuse((0..<(rare.count / 2)).map { [rare[2 * $0], rare[2 * $0 + 1]] }, k: k)) }
    return mix
  }

  /// Lower-cased runs of letters and digits (FTS5 unicode61's idea of a word).
  static func words(_ text: String) -> [String] {
    text.lowercased().split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map(String.init)
  }

  private func attributeIDs(_ index: SearchIndex) throws -> [String: Int64] {
    let connection = try Connection(path: configuration.path, readOnly: true, create: false)
    return Dictionary(try connection.rows("SELECT name, id FROM attributes", [], { ($0.string(0) ?? "", $0.int64(1)) }), uniquingKeysWith: { a, _ in a })
  }

  // MARK: Timing

  /// The engine's side: an executor with the standard stages and the example `freshness`
  /// custom stage, as the command line offers them.
  struct Engine {
    let executor: QueryExecutor
    let options: QueryOptions
    /// Results for questions.
    let k: Int
    /// The built-in planner, for `planned` questions (it reads the index's vocabulary once).
    let planner: BuiltinPlanner?

    init(index: SearchIndex, options: QueryOptions, k: Int, planner: Bool = false) throws {
      executor = QueryExecutor(index: index, registry: StandardLibrary.registryWithExamples())
      self.options = options
      self.k = k
      self.planner = planner
        ? try BuiltinPlanner(index: index, clock: options.clock, scope: options.scope, resultLimit: k, registry: executor.registry)
        : nil
    }

    /// Runs a variant; returns its result rows (item ids, table rows, a statistic).
    @discardableResult
    func run(_ query: BenchmarkQuery.EngineQuery, collect: Bool) throws -> [[String]] {
      let graph: QueryGraph
      switch query {
      case .text(let text): graph = try executor.prepare(text, options: options)
      case .question(let question):
        let context = PlanningContext(executor: executor, options: options, limit: k)
        graph = try PlainQuestionPlanner().plan(question, context: context).graph(context)
      case .planned(let question):
        guard let planner else { throw BenchmarkError("no planner for '\(question)'") }
        let plan = try planner.plan(question)
        graph = try executor.prepare(plan.query, source: SourceText(plan.dsl), options: options)
      case .toolCall(let arguments):
        let result = try SearchTool(executor: executor, options: options).call(arguments)
        if let error = result.error { throw BenchmarkError("tool call failed: \(error)") }
        var rows: [[String]] = []
        for reply in result.replies where collect { rows += Self.rows(reply.content) }
        return rows
      }
      var rows: [[String]] = []
      try executor.execute(graph, options: options) { reply in
        guard collect else { return }
        rows += Self.rows(reply.content)
      }
      return rows
    }

    static func rows(_ content: PipelineData) -> [[String]] {
      switch content {
      case .items(let items), .scoredItems(let items): items.map { [$0.id] }
      case .table(let table): table.rows.map { $0.map(Self.canonical) }
      case .statistic(let statistic): [[Self.canonical(statistic.value)]]
      case .count(let count): [[Self.canonical(.number(Double(count)))]]
      case .groupedItems(let grouped): grouped.groups.map { [Self.canonical($0.key), Self.canonical(.number(Double($0.count)))] }
      case .text(let text): [[text.body]]
      }
    }

    static func canonical(_ value: Value) -> String {
      switch value {
      case .null: "null"
      case .bool(let b): b ? "1" : "0"
      case .number(let n): String(format: "%.9g", n)
      case .string(let s): s
      case .date(let d): String(format: "%.9g", d.timeIntervalSince1970)
      }
    }
  }

  /// The hand-written side: one connection, statements prepared once and reused.
  struct HandWritten {
    let connection: Connection
    let prefix: [SQLValue]

    /// Runs the statement, reading every column of every row, then the query's Swift part
    /// when it has one; returns the rows when asked.
    @discardableResult
    func run(_ query: BenchmarkQuery, _ variant: BenchmarkQuery.Variant, collect: Bool) throws -> [[String]] {
      let statement = try connection.cachedStatement(query.sql)
      try statement.bind(prefix + variant.arguments)
      var rows: [[String]] = []
      var values: [[SQLValue]] = []
      while try statement.step() {
        var row: [SQLValue] = []
        for column in 0..<statement.columnCount { row.append(statement.value(at: column)) }
        if query.finish != nil { values.append(row) } else if collect { rows.append(row.map(Self.canonical)) }
      }
      statement.reset()
      if let finish = query.finish { rows = finish(values, variant) }
      return collect ? rows : []
    }

    static func canonical(_ value: SQLValue) -> String {
      switch value {
      case .null: "null"
      case .integer(let n): String(format: "%.9g", Double(n))
      case .real(let x): String(format: "%.9g", x)
      case .text(let s): s
      case .blob(let bytes): "\(bytes.count) bytes"
      }
    }
  }

  private func handWritten(_ index: SearchIndex) throws -> HandWritten {
    // Tuned as the engine's readers are, so the comparison is of the work, not the settings.
    let connection = try Connection(path: configuration.path, readOnly: true, create: false)
    try connection.execute(SearchIndex.readerSettings)
    // Scores over the rows the queries may see, as the engine's are (`sl_bm25`).
    connection.scoreFullText(excluding: try index.hiddenFullTextRows(for: options.scope, in: connection))
    return HandWritten(
      connection: connection,
      prefix: [.integer(index.indexID), .real(ItemGenerator.referenceDate.timeIntervalSince1970)])
  }

  private func measure(_ query: BenchmarkQuery, index: SearchIndex) throws -> BenchmarkReport.Query {
    let engine = try Engine(index: index, options: options, k: configuration.k, planner: query.needsPlanner)
    let sql = try handWritten(index)
    // Warm-up, and the check that both sides return the same results.
    var matches = true
    var results = 0
    for (position, variant) in query.variants.enumerated() {
      let mine = try engine.run(variant.engine, collect: true)
      var theirs = try sql.run(query, variant, collect: true)
      if query.comparison == .identifiers { theirs = theirs.map { Array($0.prefix(1)) } }
      if query.comparison == .none { theirs = mine }
      if mine != theirs { matches = false }
      if position == 0 { results = theirs.count }
    }
    let clock = ContinuousClock()
    func milliseconds(_ body: () throws -> Void) rethrows -> Double {
      let start = clock.now
      try body()
      return QuestionRunner.seconds(clock.now - start) * 1000
    }
    var engineRuns: [BenchmarkReport.Latency] = []
    var sqlRuns: [BenchmarkReport.Latency] = []
    for _ in 0..<max(configuration.runs, 1) {
      var engineTimes: [Double] = []
      var sqlTimes: [Double] = []
      for iteration in 0..<max(configuration.iterations, 1) {
        let variant = query.variants[iteration % query.variants.count]
        // Each side goes first every other time, so that neither always runs on the caches
        // the other just warmed.
        func timeEngine() throws { engineTimes.append(try milliseconds { try engine.run(variant.engine, collect: false) }) }
        func timeSQL() throws { sqlTimes.append(try milliseconds { try sql.run(query, variant, collect: false) }) }
        if iteration % 2 == 0 { try timeEngine(); try timeSQL() } else { try timeSQL(); try timeEngine() }
      }
      engineRuns.append(Self.latency(engineTimes))
      sqlRuns.append(Self.latency(sqlTimes))
    }
    var coldEngine: [Double] = []
    var coldSQL: [Double] = []
    for iteration in 0..<max(configuration.coldRuns, 0) {
      let variant = query.variants[iteration % query.variants.count]
      do {
        let fresh = try SearchIndex(path: configuration.path, create: false)
        let engine = try Engine(index: fresh, options: options, k: configuration.k, planner: query.needsPlanner)
        evictFromPageCache()
        coldEngine.append(try milliseconds { try engine.run(variant.engine, collect: false) })
      }
      do {
        let fresh = try handWritten(index)
        evictFromPageCache()
        coldSQL.append(try milliseconds { try fresh.run(query, variant, collect: false) })
      }
    }
    return BenchmarkReport.Query(
      name: query.name, example: query.variants.first?.engine.display ?? "", sql: query.sql,
      engine: Self.median(engineRuns), handWritten: Self.median(sqlRuns),
      coldEngine: Percentiles.median(coldEngine) ?? .nan, coldHandWritten: Percentiles.median(coldSQL) ?? .nan,
      results: results, resultsMatch: query.comparison == .none ? nil : matches)
  }

  static func latency(_ times: [Double]) -> BenchmarkReport.Latency {
    BenchmarkReport.Latency(
      p50: Percentiles.percentile(times, 50) ?? 0, p95: Percentiles.percentile(times, 95) ?? 0, p99: Percentiles.percentile(times, 99) ?? 0)
  }

  static func median(_ runs: [BenchmarkReport.Latency]) -> BenchmarkReport.Latency {
    BenchmarkReport.Latency(
      p50: Percentiles.median(runs.map(\.p50)) ?? 0, p95: Percentiles.median(runs.map(\.p95)) ?? 0,
      p99: Percentiles.median(runs.map(\.p99)) ?? 0)
  }

  // MARK: Cold cache

  static var coldCacheDescription: String {
    #if canImport(Glibc)
    return "new connections; index file evicted from the OS page cache (posix_fadvise DONTNEED)"
    #else
    return "new connections (the OS page cache stays warm on this platform)"
    #endif
  }

  /// Drops the index file's pages from the operating system's page cache (clean pages only,
  /// which after the checkpoint is all of them). https://man7.org/linux/man-pages/man2/posix_fadvise.2.html
  private func evictFromPageCache() {
    #if canImport(Glibc)
    for path in [configuration.path, configuration.path + "-wal"] {
      let descriptor = open(path, O_RDONLY)
      guard descriptor >= 0 else { continue }
      _ = posix_fadvise(descriptor, 0, 0, Int32(POSIX_FADV_DONTNEED))
      close(descriptor)
    }
    #endif
  }
}
