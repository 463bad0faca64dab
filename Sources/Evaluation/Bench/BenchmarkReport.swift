import SearchIndex

/// What `bench` measured: ingest throughput, index size and memory, and per query of the mix
/// the engine's latency percentiles next to the hand-written SQL doing the same work.
package struct BenchmarkReport: Sendable {
  /// Ingest figures.
  package struct Ingest: Sendable {
    package var items: Int
    /// Wall time of the write transactions, generating the items included.
    package var seconds: Double
    /// Time spent generating items (0 for a corpus, whose parsing counts as ingest).
    package var generationSeconds: Double
    /// Items over the time spent in the index (generation excluded).
    package var itemsPerSecond: Double
    /// The index file after a WAL checkpoint.
    package var fileBytes: Int64
    package var bytesPerItem: Double
    /// Peak resident memory of the process at the end of ingest (VmHWM).
    package var peakMemoryBytes: Int64?
    /// Process CPU time (user + system) of the ingest, generation included: less
    /// sensitive than `seconds` to other work on the machine.
    package var cpuSeconds: Double = 0

    var jsonValue: JSONValue {
      var object = JSONObject()
      object["itemsPerSecond"] = .number(itemsPerSecond.rounded())
      object["bytesPerItem"] = .number(bytesPerItem.rounded())
      object["peakMemoryBytes"] = peakMemoryBytes.map { .number(Double($0)) } ?? .null
      object["items"] = .number(Double(items))
      object["seconds"] = BenchmarkReport.round(seconds, 3)
      object["generationSeconds"] = BenchmarkReport.round(generationSeconds, 3)
      object["cpuSeconds"] = BenchmarkReport.round(cpuSeconds, 3)
      object["fileBytes"] = .number(Double(fileBytes))
      return .object(object)
    }
  }

  /// Latency percentiles of one side (engine or SQL) in milliseconds.
  package struct Latency: Sendable {
    package var p50: Double
    package var p95: Double
    package var p99: Double
  }

  /// One query of the mix.
  package struct Query: Sendable {
    package var name: String
    /// The engine's query of the first variant.
    package var example: String
    package var sql: String
    /// Warm cache: the median over runs of each run's percentile.
    package var engine: Latency
    package var handWritten: Latency
    /// Cold cache: median over the cold runs.
    package var coldEngine: Double
    package var coldHandWritten: Double
    /// Rows (items, groups) of the first variant.
    package var results: Int
    /// True when the engine and the SQL returned the same results for every variant; nil when
    /// the query is not compared (`BenchmarkQuery.Comparison.none`).
    package var resultsMatch: Bool?

    /// Engine p50 over SQL p50 (warm): the engine's overhead.
    package var ratio: Double { handWritten.p50 > 0 ? engine.p50 / handWritten.p50 : 0 }
    package var coldRatio: Double { coldHandWritten > 0 ? coldEngine / coldHandWritten : 0 }
  }

  package var ingest: Ingest
  package var queries: [Query]
  package var runs: Int
  package var iterations: Int
  package var coldRuns: Int
  /// How the cold runs made the cache cold.
  package var coldCache: String
  /// Where the items came from: `generated (seed S)` or the corpus path.
  package var source: String
  /// Peak resident memory of the whole run.
  package var peakMemoryBytes: Int64?
  /// The same items ingested without ranked postings (nil when not measured).
  package var ingestWithoutRanked: Ingest?
  /// The ranked top-k measurement.
  package var ranked: RankedBenchmark.Report?

  /// Ingest rate with ranked postings over the rate without, minus 1 (-0.2: 20% slower).
  package var rankedIngestRateChange: Double? {
    ingestWithoutRanked.flatMap { $0.itemsPerSecond > 0 ? ingest.itemsPerSecond / $0.itemsPerSecond - 1 : nil }
  }

  /// Index size with ranked postings over the size without, minus 1.
  package var rankedSizeChange: Double? {
    ingestWithoutRanked.flatMap { $0.bytesPerItem > 0 ? ingest.bytesPerItem / $0.bytesPerItem - 1 : nil }
  }

  /// `{"ingest":{"itemsPerSecond","bytesPerItem","peakMemoryBytes",...},"queries":[{"name","p50_ms","p95_ms","p99_ms","sql_p50_ms","ratio",...}],...,
  /// "ranked":{"p50_ms","p95_ms","p99_ms",...},"fts5Exhaustive":{...},"fts5And":{...},...}`.
  package var jsonValue: JSONValue {
    var object = JSONObject()
    object["ingest"] = ingest.jsonValue
    object["queries"] = .array(queries.map { query in
      var entry = JSONObject()
      entry["name"] = .string(query.name)
      entry["p50_ms"] = Self.round(query.engine.p50, 3)
      entry["p95_ms"] = Self.round(query.engine.p95, 3)
      entry["p99_ms"] = Self.round(query.engine.p99, 3)
      entry["sql_p50_ms"] = Self.round(query.handWritten.p50, 3)
      entry["ratio"] = Self.round(query.ratio, 2)
      entry["sql_p95_ms"] = Self.round(query.handWritten.p95, 3)
      entry["sql_p99_ms"] = Self.round(query.handWritten.p99, 3)
      entry["cold_p50_ms"] = Self.round(query.coldEngine, 3)
      entry["sql_cold_p50_ms"] = Self.round(query.coldHandWritten, 3)
      entry["cold_ratio"] = Self.round(query.coldRatio, 2)
      entry["results"] = .number(Double(query.results))
      entry["resultsMatch"] = query.resultsMatch.map(JSONValue.bool) ?? .null
      entry["query"] = .string(query.example)
      return .object(entry)
    })
    object["source"] = .string(source)
    object["runs"] = .number(Double(runs))
    object["iterations"] = .number(Double(iterations))
    object["coldRuns"] = .number(Double(coldRuns))
    object["coldCache"] = .string(coldCache)
    object["peakMemoryBytes"] = peakMemoryBytes.map { .number(Double($0)) } ?? .null
    if let ranked {
      for path in ranked.paths { object[path.key] = RankedBenchmark.Latency.summary(path.latency.wall) }
      var cpu = JSONObject()
      for path in ranked.paths { cpu[path.key] = RankedBenchmark.Latency.summary(path.latency.cpu) }
      object["cpu"] = .object(cpu)
      var summary = JSONObject()
      summary["available"] = .bool(!ranked.unavailable)
      summary["exact"] = .bool(!ranked.unavailable && ranked.mismatches == 0)
      summary["mismatches"] = .number(Double(ranked.mismatches))
      summary["queries"] = .number(Double(ranked.queryCount))
      summary["termsPerQuery"] = Self.round(ranked.termsPerQuery, 2)
      summary["k"] = .number(Double(ranked.k))
      summary["passes"] = .number(Double(ranked.passes))
      summary["loadAverage"] = .string(ranked.loadAverage)
      object["rankedQueries"] = .object(summary)
    }
    if let ingestWithoutRanked {
      object["ingestWithoutRanked"] = ingestWithoutRanked.jsonValue
      var cost = JSONObject()
      cost["ingestRateChange"] = rankedIngestRateChange.map { Self.round($0, 3) } ?? .null
      cost["sizeChange"] = rankedSizeChange.map { Self.round($0, 3) } ?? .null
      object["rankedPostingsCost"] = .object(cost)
    }
    return .object(object)
  }

  static func round(_ value: Double, _ digits: Int) -> JSONValue {
    guard value.isFinite else { return .null }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    return .number((value * scale).rounded() / scale)
  }
}
