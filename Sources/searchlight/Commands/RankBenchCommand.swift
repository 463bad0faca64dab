import Foundation
import SearchIndex

/// `searchlight rankbench`: issue 12's ranked top-k benchmark (see `RankBenchmark`), and
/// the generator of its synthetic collection.
enum RankBenchCommand: Command {
  static let name = "rankbench"
  static let abstract = "Benchmark ranked top-k retrieval against FTS5's exhaustive OR query, and its ingest and size cost."
  static let usage = """
    rankbench --corpus FILE --queries FILE [--k N] [--passes N] [--db FILE] [--format table|json]
           rankbench --generate N --corpus FILE --queries FILE [--seed S] [--cranfield DIR]
    """
  static let discussion = """
    Indexes the corpus ({"id","title","text"} lines) into a new index twice, without and with
    the ranked postings (ingest items/s and index bytes per item), then for each query line
    ({"id","text"}) times the exact BM25F top k of the OR of its words: warm (snapshot cached
    in the process), cold (cache dropped before each query, as a fresh process), through the
    whole query path (search "a" || "b" ... | top k), and FTS5's exhaustive
    MATCH 'a OR b ...' ORDER BY bm25 LIMIT k on the same file. Every query is first checked to
    return exactly the exhaustive top k. Latencies are wall-clock; "cpu" has thread CPU time.

    --generate writes the synthetic collection: N documents with 8-word titles and
    40-120-word bodies over a 50,000-word Zipf vocabulary ranked by Cranfield frequency, and the
    225 Cranfield questions as the content words they map to, minus the 100 most frequent.

    EXAMPLES:
      searchlight rankbench --generate 100000 --corpus zipf-100k.jsonl --queries zipf-queries.jsonl
      searchlight rankbench --corpus zipf-100k.jsonl --queries zipf-queries.jsonl --format json
      searchlight rankbench --corpus cranfield/corpus.jsonl --queries cranfield/queries.jsonl
    """
  static let options: [OptionSpec] = [
    OptionSpec(name: "corpus", kind: .value, valueName: "FILE", help: "Corpus lines to index (or to write with --generate)."),
    OptionSpec(name: "queries", kind: .value, valueName: "FILE", help: "Query lines to time (or to write with --generate)."),
    OptionSpec(name: "k", kind: .value, valueName: "N", help: "Results per query (default 10)."),
    OptionSpec(name: "passes", kind: .value, valueName: "N", help: "Timed passes over the queries (default 5; FTS5 gets a fifth)."),
    OptionSpec(name: "db", kind: .value, valueName: "FILE", help: "Build the index in FILE (must not exist) and keep it."),
    OptionSpec(name: "skip-without", kind: .flag, help: "Skip the ingest without ranked postings."),
    OptionSpec(name: "generate", kind: .value, valueName: "N", help: "Write a synthetic collection of N documents instead."),
    OptionSpec(name: "seed", kind: .value, valueName: "S", help: "Seed of the generated documents (default 42)."),
    OptionSpec(name: "cranfield", kind: .value, valueName: "DIR", help: "Cranfield folder for --generate (default /work/shared/data/cranfield)."),
    OptionSpec(name: "format", kind: .value, valueName: "FORMAT", help: "table (default) or json."),
  ]

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    let format = try Common.format(arguments, allowed: ["table", "json"], default: "table", command: name)
    if !arguments.positionals.isEmpty {
      throw UsageError(message: "unexpected argument '\(arguments.positionals[0])'", command: name)
    }
    guard let corpus = arguments.value("corpus"), let queries = arguments.value("queries") else {
      throw UsageError(message: "missing '--corpus <FILE>' or '--queries <FILE>'", command: name)
    }
    func whole(_ option: String, _ range: ClosedRange<Int>) throws -> Int? {
      guard let text = arguments.value(option) else { return nil }
      guard let n = Int(text.replacingOccurrences(of: "_", with: "")), range.contains(n) else {
        throw UsageError(message: "--\(option) needs a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text)'", command: name)
      }
      return n
    }
    if let count = try whole("generate", 1...100_000_000) {
      let directory = arguments.value("cranfield") ?? "/work/shared/data/cranfield"
      guard FileManager.default.fileExists(atPath: directory + "/corpus.jsonl") else {
        throw CommandFailure(.noInput, "\(directory)/corpus.jsonl: no such file", location: directory)
      }
      let seed = try whole("seed", 0...Int.max).map(UInt64.init) ?? 42
      try BenchmarkCorpus(cranfield: directory).write(documents: count, seed: seed, corpus: corpus, queries: queries)
      Terminal.out("wrote \(count) documents to \(corpus) and the questions to \(queries)\n")
      return .success
    }
    for input in [corpus, queries] where !FileManager.default.fileExists(atPath: input) {
      throw CommandFailure(.noInput, "\(input): no such file", location: input)
    }
    let keep = arguments.value("db") != nil
    let path = arguments.value("db") ?? FileManager.default.temporaryDirectory
      .appendingPathComponent("searchlight-rankbench-\(ProcessInfo.processInfo.processIdentifier).db").path
    if keep, FileManager.default.fileExists(atPath: path) {
      throw UsageError(message: "'\(path)' exists; rankbench builds a new index, so name a file that does not exist", command: name)
    }
    var configuration = RankBenchmark.Configuration(corpus: corpus, queries: queries, path: path, keep: keep)
    if let k = try whole("k", 1...10_000) { configuration.k = k }
    if let passes = try whole("passes", 1...1_000) { configuration.passes = passes }
    configuration.skipWithout = arguments.has("skip-without")
    defer {
      if !keep { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
    }
    let report = try RankBenchmark(configuration: configuration) { line in Terminal.err("rankbench: \(line)\n") }.run()
    Terminal.out(format == "json" ? report.json.compactText + "\n" : table(report))
    return report.mismatches == 0 ? .success : .dataError
  }

  static func table(_ report: RankBenchmark.Report) -> String {
    func ms(_ samples: [Double], _ q: Double) -> String { String(format: "%.3f", RankBenchmark.Latency.percentile(samples, q)) }
    var text = "items:   \(report.withRanked.items), queries: \(report.queryCount) (\(String(format: "%.1f", report.termsPerQuery)) terms each), k = \(report.configuration.k)\n"
    text += "exact:   \(report.mismatches == 0 ? "every query returns the exhaustive top k" : "\(report.mismatches) MISMATCHES")\n\n"
    text += "latency (ms)       p50     p95     p99   cpu p50  cpu p95  cpu p99\n"
    for (label, latency) in [("ranked", report.ranked), ("ranked, cold", report.rankedCold), ("query path", report.queryPath), ("FTS5 exhaustive", report.fts5)] {
      text += label.padding(toLength: 16, withPad: " ", startingAt: 0)
      for samples in [latency.wall, latency.cpu] {
        for q in [0.5, 0.95, 0.99] { text += ms(samples, q).leftPadded(samples == latency.wall ? 8 : 9) }
      }
      text += "\n"
    }
    func ingest(_ label: String, _ value: RankBenchmark.Ingest) -> String {
      "\(label)\(Int(value.itemsPerSecond.rounded())) items/s (\(String(format: "%.1f s, %.1f s CPU", value.seconds, value.cpuSeconds))), \(Int(value.bytesPerItem.rounded())) bytes per item\n"
    }
    text += "\n" + ingest("ingest with ranked postings:    ", report.withRanked)
    if let without = report.withoutRanked {
      text += ingest("ingest without ranked postings: ", without)
      text += String(format: "ranked postings: ingest rate %+.0f%%, index size %+.0f%%\n",
                     (report.withRanked.itemsPerSecond / without.itemsPerSecond - 1) * 100,
                     (report.withRanked.bytesPerItem / without.bytesPerItem - 1) * 100)
    }
    text += "load average: \(report.load)\n"
    return text
  }
}

private extension String {
  func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
