import Foundation
import QueryEngine
import SearchIndex
import Stages

/// Issue 12's measurement: ranked top-k latency next to FTS5's exhaustive OR query on
/// the same file, and what the ranked postings cost at ingest and on disk.
///
/// 1. Ingests the corpus twice in one transaction each, as `searchlight index` does
///    (reading and decoding included): once with ranked maintenance off, once on.
/// 2. For every query line, the OR of its words (query-analyzed, distinct): checks the
///    pruned top k equals exhaustive BM25F scoring of the same terms, then times
///    - `ranked`: `SearchIndex.rankedSearch` in a read transaction, snapshot cache warm;
///    - `rankedCold`: the same with the process cache dropped before every query (what a
///      fresh `searchlight query` process pays: lexicon, posting and page rows from SQLite);
///    - `fts5Exhaustive`: `SELECT rowid FROM fts WHERE fts MATCH 'a OR b …' ORDER BY
///      bm25(fts, 4, 3, 2, 1, 1) LIMIT k`, which scores every match;
///    - `queryPath`: the whole query, `search "a" || "b" … | top k` through `QueryExecutor`
///      (parse, plan, candidate filter, ranked top k, fetching the k items).
///    Each sample records wall-clock and thread CPU time (the CPU figures stay meaningful
///    when other work shares the machine).
struct RankBenchmark {
  struct Configuration {
    var corpus: String
    var queries: String
    var k = 10
    var passes = 5
    /// Where the index with ranked postings is built (kept only when `keep`).
    var path: String
    var keep = false
    var skipWithout = false
  }

  struct Latency {
    var wall: [Double] = []
    var cpu: [Double] = []

    static func percentile(_ samples: [Double], _ q: Double) -> Double {
      let sorted = samples.sorted()
      guard !sorted.isEmpty else { return .nan }
      return sorted[max(0, min(sorted.count - 1, Int((q * Double(sorted.count)).rounded(.up)) - 1))]
    }

    func summary(_ samples: [Double]) -> JSONValue {
      .object(JSONObject([
        ("p50_ms", .number(Self.rounded(Self.percentile(samples, 0.50)))),
        ("p95_ms", .number(Self.rounded(Self.percentile(samples, 0.95)))),
        ("p99_ms", .number(Self.rounded(Self.percentile(samples, 0.99)))),
        ("mean_ms", .number(Self.rounded(samples.isEmpty ? .nan : samples.reduce(0, +) / Double(samples.count)))),
        ("samples", .number(Double(samples.count))),
      ]))
    }

    static func rounded(_ value: Double) -> Double { value.isFinite ? (value * 1000).rounded() / 1000 : 0 }
  }

  struct Ingest {
    var items = 0
    var seconds = 0.0
    /// Process CPU time (user + system) of the ingest: less sensitive to other load.
    var cpuSeconds = 0.0
    var bytes: Int64 = 0
    var itemsPerSecond: Double { seconds > 0 ? Double(items) / seconds : 0 }
    var bytesPerItem: Double { items > 0 ? Double(bytes) / Double(items) : 0 }

    var json: JSONValue {
      .object(JSONObject([
        ("items", .number(Double(items))), ("seconds", .number(Latency.rounded(seconds))),
        ("cpuSeconds", .number(Latency.rounded(cpuSeconds))),
        ("itemsPerSecond", .number(itemsPerSecond.rounded())), ("bytes", .number(Double(bytes))),
        ("bytesPerItem", .number(bytesPerItem.rounded())),
      ]))
    }
  }

  struct Report {
    var configuration: Configuration
    var withRanked = Ingest()
    var withoutRanked: Ingest?
    var queryCount = 0
    var termsPerQuery = 0.0
    var mismatches = 0
    var ranked = Latency()
    var rankedCold = Latency()
    var fts5 = Latency()
    var queryPath = Latency()
    var load: String = ""

    var json: JSONValue {
      var object = JSONObject()
      object["ranked"] = ranked.summary(ranked.wall)
      object["fts5Exhaustive"] = fts5.summary(fts5.wall)
      object["rankedCold"] = rankedCold.summary(rankedCold.wall)
      object["queryPath"] = queryPath.summary(queryPath.wall)
      object["cpu"] = .object(JSONObject([
        ("ranked", ranked.summary(ranked.cpu)), ("fts5Exhaustive", fts5.summary(fts5.cpu)),
        ("rankedCold", rankedCold.summary(rankedCold.cpu)), ("queryPath", queryPath.summary(queryPath.cpu)),
      ]))
      var ingest = JSONObject()
      ingest["withRankedPostings"] = withRanked.json
      if let withoutRanked {
        ingest["withoutRankedPostings"] = withoutRanked.json
        ingest["rateChange"] = .number(Latency.rounded(withRanked.itemsPerSecond / withoutRanked.itemsPerSecond - 1))
        ingest["sizeChange"] = .number(Latency.rounded(withRanked.bytesPerItem / withoutRanked.bytesPerItem - 1))
      }
      object["ingest"] = .object(ingest)
      object["items"] = .number(Double(withRanked.items))
      object["queries"] = .number(Double(queryCount))
      object["termsPerQuery"] = .number(Latency.rounded(termsPerQuery))
      object["k"] = .number(Double(configuration.k))
      object["passes"] = .number(Double(configuration.passes))
      object["exact"] = .bool(mismatches == 0)
      object["mismatches"] = .number(Double(mismatches))
      object["loadAverage"] = .string(load)
      return .object(object)
    }
  }

  let configuration: Configuration
  let progress: (String) -> Void

  func run() throws -> Report {
    var report = Report(configuration: configuration)
    let scratch = configuration.path + ".without-ranked"
    defer {
      for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: scratch + suffix) }
    }
    if !configuration.skipWithout {
      progress("ingesting \(configuration.corpus) without ranked postings")
      report.withoutRanked = try SearchIndex.$maintainsRankedIndex.withValue(false) { try ingest(into: scratch) }
      for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: scratch + suffix) }
    }
    progress("ingesting \(configuration.corpus) with ranked postings")
    report.withRanked = try ingest(into: configuration.path)
    let index = try SearchIndex(path: configuration.path, create: false)

    let queries = try Self.queries(configuration.queries)
    report.queryCount = queries.count
    report.termsPerQuery = Double(queries.reduce(0) { $0 + $1.count }) / Double(max(1, queries.count))
    let k = configuration.k
    progress("checking \(queries.count) queries against exhaustive scoring")
    for words in queries {
      let terms = words.map { QueryTerm($0) }
      let (pruned, exhaustive) = try index.read { db in
        (try index.rankedSearch(terms, k: k, in: db), try index.rankedSearch(terms, k: k, in: db, algorithm: nil))
      }
      if pruned == nil || pruned != exhaustive { report.mismatches += 1 }
    }
    progress("timing the ranked index (\(configuration.passes) passes)")
    for _ in 0..<configuration.passes {
      for words in queries {
        let terms = words.map { QueryTerm($0) }
        try Self.time(&report.ranked) { _ = try index.read { db in try index.rankedSearch(terms, k: k, in: db) } }
      }
    }
    progress("timing the ranked index from a cold cache")
    for words in queries {
      let terms = words.map { QueryTerm($0) }
      index.clearRankedCache()
      try Self.time(&report.rankedCold) { _ = try index.read { db in try index.rankedSearch(terms, k: k, in: db) } }
    }
    progress("timing the query path")
    let executor = QueryExecutor(index: index, registry: StandardLibrary.registry())
    let options = QueryOptions()
    for _ in 0..<configuration.passes {
      for words in queries {
        let text = "search " + words.map { "\"\($0)\"" }.joined(separator: " || ") + " | top \(k)"
        try Self.time(&report.queryPath) { try executor.run(text, options: options) { _ in } }
      }
    }
    let ftsPasses = max(1, configuration.passes / 5)
    progress("timing FTS5's exhaustive OR query (\(ftsPasses) pass\(ftsPasses == 1 ? "" : "es"))")
    let weights = SQLCompiler.columnWeights.map { String($0) }.joined(separator: ", ")
    let sql = "SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY bm25(fts, \(weights)) LIMIT ?"
    for _ in 0..<ftsPasses {
      for words in queries {
        let match = words.map { "\"\($0)\"" }.joined(separator: " OR ")
        try Self.time(&report.fts5) {
          _ = try index.read { db in try db.rows(sql, [.text(match), .integer(Int64(k))]) { $0.int64(0) } }
        }
      }
    }
    report.load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?
      .split(separator: " ").prefix(3).joined(separator: " ") ?? ""
    return report
  }

  /// Indexes the corpus into a new file in one transaction; returns rate and size.
  private func ingest(into path: String) throws -> Ingest {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    let index = try SearchIndex(path: path)
    var result = Ingest()
    let start = Date()
    let cpuStart = Self.processCPUSeconds()
    try index.write { writer in
      var reader = ItemReader(decoder: ItemDecoder(catalog: writer.catalog), format: .corpus)
      try reader.read(path: configuration.corpus) { item, _, _ in
        try writer.upsert(item)
        result.items += 1
        if result.items % 100_000 == 0 { progress("  \(result.items) items") }
      }
    }
    result.seconds = Date().timeIntervalSince(start)
    result.cpuSeconds = Self.processCPUSeconds() - cpuStart
    result.bytes = try index.read { db in
      let pages = try db.scalar("PRAGMA page_count")?.int64Value ?? 0
      let size = try db.scalar("PRAGMA page_size")?.int64Value ?? 0
      let free = try db.scalar("PRAGMA freelist_count")?.int64Value ?? 0
      return (pages - free) * size
    }
    return result
  }

  /// Distinct query-analyzed words of each query line (`{"id","text"}`).
  static func queries(_ path: String) throws -> [[String]] {
    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap { line -> [String]? in
      guard case .object(let object) = try JSONParser.parse(String(line)), case .string(let text)? = object["text"] else {
        return nil
      }
      var words: [String] = []
      RankedAnalysis.analyzer.tokenize(text, mode: .query) { token in
        let word = token.token.text
        if !words.contains(word) { words.append(word) }
      }
      return words.isEmpty ? nil : words
    }
  }

  static func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
  }

  private static func time(_ latency: inout Latency, _ body: () throws -> Void) throws {
    let wall = DispatchTime.now().uptimeNanoseconds
    var cpuStart = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpuStart)
    try body()
    var cpuEnd = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpuEnd)
    latency.wall.append(Double(DispatchTime.now().uptimeNanoseconds - wall) / 1e6)
    latency.cpu.append(Double(cpuEnd.tv_sec - cpuStart.tv_sec) * 1e3 + Double(cpuEnd.tv_nsec - cpuStart.tv_nsec) / 1e6)
  }
}
