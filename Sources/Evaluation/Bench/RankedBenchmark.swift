import Foundation
import QueryEngine
import SearchIndex
import Stages

#if canImport(Glibc)
import Glibc
#endif

/// `bench`'s ranked measurement (issue 12): the exact BM25F top k of the OR of each query's
/// words through the ranked index, next to FTS5 answering the same terms on the same file.
///
/// For every query (its distinct query-analyzed words) it first checks that the pruned top k
/// equals exhaustive BM25F scoring of the same terms, then times
/// - `ranked`: `SearchIndex.rankedSearch` in a read transaction, the snapshot cached in the
///   process (warm);
/// - `rankedCold`: the same with the process cache dropped before every query (what a fresh
///   `searchlight query` process pays: lexicon, posting and page rows read from SQLite);
/// - `queryPath`: the whole query, `search "a" || "b" … | top k` through `QueryExecutor`
///   (parse, plan, candidate filter, ranked top k, fetching the k items);
/// - `fts5Exhaustive`: `SELECT rowid FROM fts WHERE fts MATCH '"a" OR "b" …' ORDER BY
///   bm25(fts, 4, 3, 2, 1, 1) LIMIT k`, which scores every match;
/// - `fts5And`: the same with the terms joined by AND (far fewer matches; a reference, not
///   the same result).
///
/// Each sample records wall-clock and thread CPU time; the CPU figures stay meaningful when
/// other work shares the machine.
package struct RankedBenchmark {
  /// Samples of one measured path, in milliseconds.
  package struct Latency: Sendable {
    package var wall: [Double] = []
    package var cpu: [Double] = []

    /// `{"p50_ms","p95_ms","p99_ms","mean_ms","samples"}` of `samples`.
    static func summary(_ samples: [Double]) -> JSONValue {
      var object = JSONObject()
      object["p50_ms"] = BenchmarkReport.round(Percentiles.percentile(samples, 50) ?? .nan, 3)
      object["p95_ms"] = BenchmarkReport.round(Percentiles.percentile(samples, 95) ?? .nan, 3)
      object["p99_ms"] = BenchmarkReport.round(Percentiles.percentile(samples, 99) ?? .nan, 3)
      object["mean_ms"] = BenchmarkReport.round(Percentiles.mean(samples) ?? .nan, 3)
      object["samples"] = .number(Double(samples.count))
      return .object(object)
    }
  }

  /// What the measurement found.
  package struct Report: Sendable {
    package var queryCount = 0
    package var termsPerQuery = 0.0
    package var k = 10
    package var passes = 1
    /// Queries whose pruned top k differed from exhaustive scoring (0 when exact).
    package var mismatches = 0
    /// True when the file had no current ranked index (nothing was timed).
    package var unavailable = false
    package var ranked = Latency()
    package var rankedCold = Latency()
    package var queryPath = Latency()
    package var fts5Exhaustive = Latency()
    package var fts5And = Latency()
    /// `/proc/loadavg`'s three figures at the end of the measurement.
    package var loadAverage = ""

    /// The paths in display order, with their JSON keys.
    package var paths: [(key: String, label: String, latency: Latency)] {
      [
        ("ranked", "ranked", ranked), ("rankedCold", "ranked, cold", rankedCold), ("queryPath", "query path", queryPath),
        ("fts5Exhaustive", "FTS5 OR (exhaustive)", fts5Exhaustive), ("fts5And", "FTS5 AND", fts5And),
      ]
    }
  }

  package var k: Int
  /// Timed passes over the queries for the ranked paths; FTS5 gets a fifth (at least one).
  package var passes: Int
  package var progress: (String) -> Void

  package init(k: Int, passes: Int, progress: @escaping (String) -> Void = { _ in }) {
    self.k = k
    self.passes = passes
    self.progress = progress
  }

  /// Distinct query-analyzed words of each query text; texts without words are skipped.
  package static func queries(_ texts: [String]) -> [[String]] {
    texts.compactMap { text -> [String]? in
      var words: [String] = []
      RankedAnalysis.analyzer.tokenize(text, mode: .query) { token in
        let word = token.token.text
        if !words.contains(word) { words.append(word) }
      }
      return words.isEmpty ? nil : words
    }
  }

  /// Measures `queries` (from `queries(_:)`) on `index`.
  package func run(_ queries: [[String]], index: SearchIndex) throws -> Report {
    var report = Report()
    report.k = k
    report.passes = passes
    report.queryCount = queries.count
    report.termsPerQuery = Double(queries.reduce(0) { $0 + $1.count }) / Double(max(1, queries.count))
    let k = self.k
    progress("checking \(queries.count) ranked queries against exhaustive scoring")
    for words in queries {
      let terms = words.map { QueryTerm($0) }
      let (pruned, exhaustive) = try index.read { db in
        (try index.rankedSearch(terms, k: k, in: db), try index.rankedSearch(terms, k: k, in: db, algorithm: nil))
      }
      if pruned == nil {
        report.unavailable = true
        return report
      }
      if pruned != exhaustive { report.mismatches += 1 }
    }
    progress("timing the ranked index (\(passes) pass\(passes == 1 ? "" : "es"))")
    for _ in 0..<passes {
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
    for _ in 0..<passes {
      for words in queries {
        let text = "search " + words.map { "\"\($0)\"" }.joined(separator: " || ") + " | top \(k)"
        try Self.time(&report.queryPath) { _ = try executor.run(text, options: options) { _ in } }
      }
    }
    let ftsPasses = max(1, passes / 5)
    progress("timing FTS5's OR and AND queries (\(ftsPasses) pass\(ftsPasses == 1 ? "" : "es"))")
    let sql = "SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY \(BenchmarkQuery.bm25) LIMIT ?"
    for _ in 0..<ftsPasses {
      for words in queries {
        for all in [false, true] {
          let match = BenchmarkQuery.match(words, all: all)
          let body = { _ = try index.read { db in try db.rows(sql, [.text(match), .integer(Int64(k))]) { $0.int64(0) } } }
          if all { try Self.time(&report.fts5And, body) } else { try Self.time(&report.fts5Exhaustive, body) }
        }
      }
    }
    report.loadAverage = Self.loadAverage
    return report
  }

  /// The 1, 5 and 15 minute load averages (`/proc/loadavg`), empty elsewhere.
  package static var loadAverage: String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "").split(separator: " ").prefix(3).joined(separator: " ")
  }

  /// Process CPU time (user + system) so far, in seconds.
  package static func processCPUSeconds() -> Double {
    #if canImport(Glibc)
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    #else
    return 0
    #endif
  }

  private static func time(_ latency: inout Latency, _ body: () throws -> Void) throws {
    let clock = ContinuousClock()
    let start = clock.now
    let cpuStart = threadCPUMilliseconds()
    try body()
    let cpu = threadCPUMilliseconds() - cpuStart
    latency.wall.append(QuestionRunner.seconds(clock.now - start) * 1000)
    latency.cpu.append(cpu)
  }

  /// CPU time of the calling thread in milliseconds (0 where unavailable).
  private static func threadCPUMilliseconds() -> Double {
    #if canImport(Glibc)
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) / 1e6
    #else
    return 0
    #endif
  }
}
