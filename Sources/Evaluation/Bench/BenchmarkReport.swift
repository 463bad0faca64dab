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
    /// True when the engine and the SQL returned the same results for every variant.
    package var resultsMatch: Bool

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

  /// `{"ingest":{"itemsPerSecond","bytesPerItem","peakMemoryBytes",...},"queries":[{"name","p50_ms","p95_ms","p99_ms","sql_p50_ms","ratio",...}],...}`.
  package var jsonValue: JSONValue {
    var ingestObject = JSONObject()
    ingestObject["itemsPerSecond"] = .number(ingest.itemsPerSecond.rounded())
    ingestObject["bytesPerItem"] = .number(ingest.bytesPerItem.rounded())
    ingestObject["peakMemoryBytes"] = ingest.peakMemoryBytes.map { .number(Double($0)) } ?? .null
    ingestObject["items"] = .number(Double(ingest.items))
    ingestObject["seconds"] = Self.round(ingest.seconds, 3)
    ingestObject["generationSeconds"] = Self.round(ingest.generationSeconds, 3)
    ingestObject["fileBytes"] = .number(Double(ingest.fileBytes))
    var object = JSONObject()
    object["ingest"] = .object(ingestObject)
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
      entry["resultsMatch"] = .bool(query.resultsMatch)
      entry["query"] = .string(query.example)
      return .object(entry)
    })
    object["source"] = .string(source)
    object["runs"] = .number(Double(runs))
    object["iterations"] = .number(Double(iterations))
    object["coldRuns"] = .number(Double(coldRuns))
    object["coldCache"] = .string(coldCache)
    object["peakMemoryBytes"] = peakMemoryBytes.map { .number(Double($0)) } ?? .null
    return .object(object)
  }

  static func round(_ value: Double, _ digits: Int) -> JSONValue {
    guard value.isFinite else { return .null }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    return .number((value * scale).rounded() / scale)
  }
}
