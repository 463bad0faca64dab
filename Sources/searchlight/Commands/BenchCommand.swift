import Evaluation
import Foundation
import SearchIndex

/// `searchlight bench`: ingest and query benchmarks, the engine next to hand-written SQL.
enum BenchCommand: Command {
  static let name = "bench"
  static let abstract = "Benchmark ingest, a query mix against hand-written SQL, and ranked top-k against FTS5, on the same file."
  static let usage = """
    bench [--items N | --corpus FILE [--queries FILE]] [--db FILE] [--k N] [--runs N] [--iterations N] [--cold-runs N] [--passes N] [--seed S] [--skip-without-ranked] [--ranked-only] [--reuse] [--only NAMES] [--format table|json]
           bench --generate N --corpus FILE --queries FILE [--seed S] [--cranfield DIR]
    """
  static let discussion = """
    Generates N realistic items (notes, emails and trails shaped like the bundled samples,
    deterministic for a seed) or indexes a corpus, then reports ingest items/s, index bytes per
    item and peak memory, and for each query of a fixed mix (text top-k, count, group and
    stats, a plain-planner question, a predicate, a date range, sort + limit, group + count,
    group all, a list value, stats, a custom scoring stage, people, sample, a built-in planner
    question, a tool call, fuse) the engine's latency p50/p95/p99 next to hand-written SQLite
    SQL doing the same work on the same file; ratio = engine p50 / SQL p50. A corpus has only
    titles and text, so it gets the text queries. Warm figures are the median of the runs;
    cold runs open new connections and evict the file from the OS page cache. The index is
    built in a temporary file unless --db names a new one to keep; --reuse times the queries
    of such a file again without ingesting, and --only NAMES times some of them.

    Ranked top-k: for every line of --queries (else every question of the mix) the OR of its
    words is checked to return exactly the exhaustive BM25F top k, then timed through the
    ranked index (warm, cold, and the whole query path) next to FTS5's exhaustive
    MATCH 'a OR b ...' ORDER BY bm25 LIMIT k and the same terms joined by AND. The items are
    also ingested once without ranked postings (unless --skip-without-ranked) to report what
    the postings cost in ingest rate and index size. Latencies are wall-clock; "cpu" figures
    are thread CPU time, which other load on the machine disturbs less.

    --generate writes issue 12's synthetic collection instead of benchmarking: N documents
    with 8-word titles and 40-120-word bodies over a 50,000-word Zipf vocabulary ranked by
    Cranfield frequency, and the 225 Cranfield questions as the content words they map to,
    minus the 100 most frequent.

    EXAMPLES:
      searchlight bench --items 100000
      searchlight bench --corpus ../shared/data/cranfield/corpus.jsonl --queries ../shared/data/cranfield/queries.jsonl
      searchlight bench --items 10000 --format json
      searchlight bench --generate 100000 --seed 42 --corpus zipf-100k.jsonl --queries zipf-queries.jsonl
      searchlight bench --corpus zipf-100k.jsonl --queries zipf-queries.jsonl --k 10 --format json
    """
  static let options: [OptionSpec] = [
    OptionSpec(name: "items", kind: .value, valueName: "N", help: "Items to generate (default 10000)."),
    OptionSpec(name: "corpus", kind: .value, valueName: "FILE", help: "Index this corpus or items file instead."),
    OptionSpec(name: "queries", kind: .value, valueName: "FILE", help: "Questions for the corpus ({\"id\",\"text\"} lines)."),
    OptionSpec(name: "db", kind: .value, valueName: "FILE", help: "Build the index in FILE (must not exist) and keep it."),
    OptionSpec(name: "runs", kind: .value, valueName: "N", help: "Warm runs; figures are their median (default 5)."),
    OptionSpec(name: "iterations", kind: .value, valueName: "N", help: "Executions per query in each run (default 20)."),
    OptionSpec(name: "cold-runs", kind: .value, valueName: "N", help: "Cold-cache executions per query (default 5)."),
    OptionSpec(name: "seed", kind: .value, valueName: "S", help: "Seed of the generated items (default 1)."),
    OptionSpec(name: "k", kind: .value, valueName: "N", help: "Results of the ranked queries (default 10)."),
    OptionSpec(name: "passes", kind: .value, valueName: "N", help: "Timed passes over the ranked queries (default 5; FTS5 gets a fifth)."),
    OptionSpec(name: "skip-without-ranked", kind: .flag, help: "Skip the second ingest without ranked postings."),
    OptionSpec(name: "ranked-only", kind: .flag, help: "Skip the query mix: ingest and the ranked measurement only."),
    OptionSpec(name: "reuse", kind: .flag, help: "With --db: time the queries of the index an earlier bench --db built (same --items and --seed) without ingesting."),
    OptionSpec(name: "only", kind: .value, valueName: "NAMES", help: "Time only these queries of the mix (comma-separated names); skips the ranked measurement."),
    OptionSpec(name: "generate", kind: .value, valueName: "N", help: "Write a synthetic Zipf collection of N documents to --corpus and --queries."),
    OptionSpec(name: "cranfield", kind: .value, valueName: "DIR", help: "Cranfield folder for --generate (default ../shared/data/cranfield)."),
    OptionSpec(name: "progress", kind: .flag, help: "Print progress on standard error (default on a terminal)."),
    OptionSpec(name: "format", kind: .value, valueName: "FORMAT", help: "table (default) or json (one object)."),
  ] + vectorOptions

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    let format = try Common.format(arguments, allowed: ["table", "json"], default: "table", command: name)
    if !arguments.positionals.isEmpty {
      throw UsageError(message: "unexpected argument '\(arguments.positionals[0])'", command: name)
    }
    if arguments.has("vectors") { return try runVectors(arguments, format: format) }
    func whole(_ option: String, _ range: ClosedRange<Int>) throws -> Int? {
      guard let text = arguments.value(option) else { return nil }
      guard let n = Int(text.replacingOccurrences(of: "_", with: "")), range.contains(n) else {
        throw UsageError(message: "--\(option) needs a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text)'", command: name)
      }
      return n
    }
    if let count = try whole("generate", 1...100_000_000) { return try generate(count, arguments) }
    let path = arguments.value("db") ?? FileManager.default.temporaryDirectory
      .appendingPathComponent("searchlight-bench-\(ProcessInfo.processInfo.processIdentifier).db").path
    var configuration = Benchmark.Configuration(path: path)
    if let items = try whole("items", 1...100_000_000) { configuration.items = items }
    configuration.corpus = arguments.value("corpus")
    configuration.questions = arguments.value("queries")
    if let runs = try whole("runs", 1...1000) { configuration.runs = runs }
    if let iterations = try whole("iterations", 1...100_000) { configuration.iterations = iterations }
    if let cold = try whole("cold-runs", 0...1000) { configuration.coldRuns = cold }
    if let k = try whole("k", 1...1000) { configuration.k = k }
    if let passes = try whole("passes", 1...1000) { configuration.rankedPasses = passes }
    configuration.measuresWithoutRanked = !arguments.has("skip-without-ranked")
    configuration.timesMix = !arguments.has("ranked-only")
    if let seed = arguments.value("seed") {
      guard let value = UInt64(seed) else { throw UsageError(message: "--seed needs a whole number, got '\(seed)'", command: name) }
      configuration.seed = value
    }
    if configuration.corpus != nil && arguments.value("items") != nil {
      throw UsageError(message: "use --items or --corpus, not both", command: name)
    }
    if configuration.questions != nil && configuration.corpus == nil {
      throw UsageError(message: "--queries goes with --corpus", command: name)
    }
    for input in [configuration.corpus, configuration.questions].compactMap({ $0 }) where !FileManager.default.fileExists(atPath: input) {
      throw CommandFailure(.noInput, "\(input): no such file", location: input)
    }
    configuration.reusesIndex = arguments.has("reuse")
    if let only = arguments.value("only") {
      configuration.onlyQueries = Set(only.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
    }
    if configuration.reusesIndex {
      guard arguments.value("db") != nil, FileManager.default.fileExists(atPath: path) else {
        throw UsageError(message: "--reuse needs --db naming an index an earlier bench --db built", command: name)
      }
    } else if arguments.value("db") != nil, FileManager.default.fileExists(atPath: path) {
      throw UsageError(message: "'\(path)' exists; bench builds a new index, so name a file that does not exist", command: name)
    }
    let keep = arguments.value("db") != nil
    var succeeded = false
    defer {
      // A reused index is never removed, whatever happens.
      if !configuration.reusesIndex, !keep || !succeeded {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
      }
    }
    let showProgress = arguments.has("progress") || Terminal.stderrIsTTY
    let benchmark = Benchmark(configuration) { line in
      if showProgress { Terminal.err("bench: \(line)\n") }
    }
    let report = try benchmark.run()
    succeeded = true
    Terminal.out(format == "json" ? report.jsonValue.compactText + "\n" : table(report))
    if let ranked = report.ranked, ranked.mismatches > 0 {
      Terminal.err("warning: \(ranked.mismatches) ranked queries did not return the exhaustive BM25 top k\n")
    }
    return .success
  }

  /// `--generate N`: writes the Zipf collection and its queries.
  static func generate(_ count: Int, _ arguments: ParsedArguments) throws -> ExitCode {
    guard let corpus = arguments.value("corpus"), let queries = arguments.value("queries") else {
      throw UsageError(message: "--generate needs --corpus FILE and --queries FILE to write", command: name)
    }
    for option in ["items", "db"] where arguments.value(option) != nil {
      throw UsageError(message: "--generate writes files; it does not take --\(option)", command: name)
    }
    let directory = arguments.value("cranfield") ?? Self.defaultCranfield
    for file in ["corpus.jsonl", "queries.jsonl"] where !FileManager.default.fileExists(atPath: directory + "/" + file) {
      throw CommandFailure(.noInput, "\(directory)/\(file): no such file", location: directory)
    }
    var seed: UInt64 = 1
    if let text = arguments.value("seed") {
      guard let value = UInt64(text) else { throw UsageError(message: "--seed needs a whole number, got '\(text)'", command: name) }
      seed = value
    }
    try ZipfCorpus(cranfield: directory).write(documents: count, seed: seed, corpus: corpus, queries: queries)
    Terminal.out("wrote \(count) documents to \(corpus) and their queries to \(queries)\n")
    return .success
  }

  static func table(_ report: BenchmarkReport) -> String {
    let ingest = report.ingest
    var text = "source:  \(report.source)\n"
    text += "ingest:  \(ingest.items) items in " + String(format: "%.2f s", ingest.seconds)
    if ingest.generationSeconds > 0 { text += String(format: " (%.2f s generating them, not counted)", ingest.generationSeconds) }
    text += String(format: ": %.0f items/s\n", ingest.itemsPerSecond)
    text += "index:   \(Common.formatBytes(ingest.fileBytes)), \(Int(ingest.bytesPerItem.rounded())) bytes per item\n"
    text += "memory:  peak \(ingest.peakMemoryBytes.map { Common.formatBytes($0) } ?? "n/a") while ingesting, "
      + "\(report.peakMemoryBytes.map { Common.formatBytes($0) } ?? "n/a") for the whole run\n\n"
    func ms(_ value: Double) -> String { value.isFinite ? String(format: "%.2f", value) : "n/a" }
    func ratio(_ value: Double) -> String { value.isFinite && value > 0 ? String(format: "%.2fx", value) : "n/a" }
    let rows: [[String]] = [["query", "p50 ms", "p95 ms", "p99 ms", "SQL p50", "ratio", "cold p50", "SQL cold", "cold ratio", "results", "same results"]]
      + report.queries.map { query in
        [query.name, ms(query.engine.p50), ms(query.engine.p95), ms(query.engine.p99), ms(query.handWritten.p50), ratio(query.ratio),
         ms(query.coldEngine), ms(query.coldHandWritten), ratio(query.coldRatio), String(query.results), query.resultsMatch.map { $0 ? "yes" : "NO" } ?? "n/a"]
      }
    text += EvalCommand.columns(rows)
    text += "\nwarm: median of \(report.runs) run\(report.runs == 1 ? "" : "s") of \(report.iterations) executions per query; "
      + "cold: \(report.coldRuns) executions, \(report.coldCache)\n\nqueries:\n"
    for query in report.queries { text += "  \(query.name): \(query.example)\n" }
    if let ranked = report.ranked { text += "\n" + rankedTable(ranked, report) }
    return text
  }

  /// The ranked top-k section: latency of each path, exactness and the postings' cost.
  static func rankedTable(_ ranked: RankedBenchmark.Report, _ report: BenchmarkReport) -> String {
    var text = "ranked top-\(ranked.k), OR of each query's words: \(ranked.queryCount) queries, "
      + String(format: "%.1f", ranked.termsPerQuery) + " terms each\n"
    if ranked.unavailable { return text + "exact:   n/a (this file has no current ranked index)\n" }
    text += "exact:   " + (ranked.mismatches == 0 ? "every query returns the exhaustive BM25 top k" : "\(ranked.mismatches) MISMATCHES") + "\n\n"
    func ms(_ samples: [Double], _ p: Double) -> String { Percentiles.percentile(samples, p).map { String(format: "%.3f", $0) } ?? "n/a" }
    let rows: [[String]] = [["path", "p50 ms", "p95 ms", "p99 ms", "cpu p50", "cpu p95", "cpu p99", "samples"]]
      + ranked.paths.map { path in
        [path.label] + [path.latency.wall, path.latency.cpu].flatMap { samples in [50.0, 95, 99].map { ms(samples, $0) } }
          + [String(path.latency.wall.count)]
      }
    text += EvalCommand.columns(rows)
    if let without = report.ingestWithoutRanked {
      text += "\ningest without ranked postings: \(Int(without.itemsPerSecond.rounded())) items/s, "
        + "\(Int(without.bytesPerItem.rounded())) bytes per item\n"
      text += "ranked postings: ingest rate " + String(format: "%+.0f%%", (report.rankedIngestRateChange ?? 0) * 100)
        + ", index size " + String(format: "%+.0f%%", (report.rankedSizeChange ?? 0) * 100) + "\n"
    }
    text += "load average: \(ranked.loadAverage)\n"
    return text
  }

  /// The Cranfield collection for `--generate` without `--cranfield`: `../shared/data/cranfield`
  /// from the working folder when it is there, else beside the package this binary was built
  /// from (found from this source file's path), so a checkout works from any folder.
  static var defaultCranfield: String {
    let relative = "../shared/data/cranfield"
    if FileManager.default.fileExists(atPath: relative + "/corpus.jsonl") { return relative }
    let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/data/cranfield").path
  }
}
