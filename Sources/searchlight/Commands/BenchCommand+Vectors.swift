import Evaluation
import Foundation
import SearchIndex

/// `searchlight bench --vectors N`: exact top-k by cosine over N stored vectors.
extension BenchCommand {
  static let vectorOptions: [OptionSpec] = [
    OptionSpec(name: "vectors", kind: .value, valueName: "N", help: "Benchmark top-k cosine search over N vectors instead (see --dimensions)."),
    OptionSpec(name: "dimensions", kind: .value, valueName: "D", help: "With --vectors: vector size (default 384)."),
    OptionSpec(name: "vector-queries", kind: .value, valueName: "N", help: "With --vectors: query vectors (default 100)."),
    OptionSpec(name: "vectors-file", kind: .value, valueName: "FILE", help: "With --vectors: raw float32 vectors to use instead of random ones."),
    OptionSpec(name: "queries-file", kind: .value, valueName: "FILE", help: "With --vectors: raw float32 query vectors."),
  ]

  static func runVectors(_ arguments: ParsedArguments, format: String) throws -> ExitCode {
    func whole(_ option: String, _ range: ClosedRange<Int>) throws -> Int? {
      guard let text = arguments.value(option) else { return nil }
      guard let n = Int(text.replacingOccurrences(of: "_", with: "")), range.contains(n) else {
        throw UsageError(message: "--\(option) needs a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text)'", command: name)
      }
      return n
    }
    let path = arguments.value("db") ?? FileManager.default.temporaryDirectory
      .appendingPathComponent("searchlight-vector-bench-\(ProcessInfo.processInfo.processIdentifier).db").path
    if FileManager.default.fileExists(atPath: path) {
      throw UsageError(message: "'\(path)' exists; bench builds a new index, so name a file that does not exist", command: name)
    }
    var configuration = VectorBenchmark.Configuration(path: path)
    configuration.count = try whole("vectors", 1...100_000_000) ?? configuration.count
    configuration.dimensions = try whole("dimensions", 1...65_536) ?? configuration.dimensions
    configuration.queries = try whole("vector-queries", 1...100_000) ?? configuration.queries
    configuration.k = try whole("k", 1...1000) ?? configuration.k
    if let seed = arguments.value("seed") {
      guard let value = UInt64(seed) else { throw UsageError(message: "--seed needs a whole number, got '\(seed)'", command: name) }
      configuration.seed = value
    }
    configuration.vectorsFile = arguments.value("vectors-file")
    configuration.queriesFile = arguments.value("queries-file")
    for input in [configuration.vectorsFile, configuration.queriesFile].compactMap({ $0 }) where !FileManager.default.fileExists(atPath: input) {
      throw CommandFailure(.noInput, "\(input): no such file", location: input)
    }
    let keep = arguments.value("db") != nil
    defer { if !keep { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } } }
    let showProgress = arguments.has("progress") || Terminal.stderrIsTTY
    let report = try VectorBenchmark(configuration) { line in if showProgress { Terminal.err("bench: \(line)\n") } }.run()
    if format == "json" {
      Terminal.out(report.jsonValue.compactText + "\n")
      return .success
    }
    func ms(_ value: Double) -> String { String(format: "%.2f", value) }
    var text = "vectors: \(report.count) x \(report.dimensions) float32, written in \(String(format: "%.2f", report.writeSeconds)) s, "
    text += "index \(Common.formatBytes(report.fileBytes))\n"
    text += "load:    \(String(format: "%.2f", report.loadSeconds)) s to read every vector into memory (once per index generation)\n"
    text += "memory:  peak \(report.peakMemoryBytes.map { Common.formatBytes($0) } ?? "n/a")\n\n"
    text += EvalCommand.columns([
      ["top-\(report.k) by cosine", "p50 ms", "p95 ms"],
      ["SIMD scan of the matrix", ms(report.scanP50), ms(report.scanP95)],
      ["similar query (scan + SQL)", ms(report.queryP50), ms(report.queryP95)],
    ])
    text += "\n\(report.queries) query vectors, \(ProcessInfo.processInfo.activeProcessorCount) cores\n"
    Terminal.out(text)
    return .success
  }
}
