import Foundation
import QueryEngine
import SearchIndex
import Stages

/// Exact top-k by cosine over N vectors stored in an index file: write, load, scan and
/// full-query latencies (`searchlight bench --vectors N`).
///
/// Vectors come from a raw little-endian float32 file (N x dimensions) so another engine
/// (sqlite-vec, `scripts/bench_vectors.py`) can search the very same vectors, or are
/// generated (uniform in [-1, 1], deterministic for a seed).
package struct VectorBenchmark {
  package struct Configuration: Sendable {
    package var path: String
    package var count = 100_000
    package var dimensions = 384
    package var queries = 100
    package var k = 10
    package var seed: UInt64 = 1
    package var vectorsFile: String?
    package var queriesFile: String?
    package init(path: String) { self.path = path }
  }

  package struct Report: Sendable {
    package var count: Int
    package var dimensions: Int
    package var k: Int
    package var queries: Int
    package var writeSeconds: Double
    package var fileBytes: Int64
    package var loadSeconds: Double
    package var scanP50: Double
    package var scanP95: Double
    package var queryP50: Double
    package var queryP95: Double
    package var peakMemoryBytes: Int64?
    /// Per query, the 0-based vector numbers of the top k, best first.
    package var topK: [[Int]]

    package var jsonValue: JSONValue {
      func ms(_ value: Double) -> JSONValue { .number((value * 1000).rounded() / 1000) }
      return .object(JSONObject([
        ("vectors", .number(Double(count))), ("dimensions", .number(Double(dimensions))), ("k", .number(Double(k))),
        ("queries", .number(Double(queries))), ("writeSeconds", ms(writeSeconds)), ("fileBytes", .number(Double(fileBytes))),
        ("loadSeconds", ms(loadSeconds)), ("scanP50Ms", ms(scanP50)), ("scanP95Ms", ms(scanP95)),
        ("queryP50Ms", ms(queryP50)), ("queryP95Ms", ms(queryP95)),
        ("peakMemoryBytes", peakMemoryBytes.map { .number(Double($0)) } ?? .null),
        ("topK", .array(topK.map { .array($0.map { .number(Double($0)) }) })),
      ]))
    }
  }

  /// Answers `similar "qN"` with query vector N.
  struct FixedEmbedder: TextEmbedder {
    let queries: [[Float]]
    func embed(_ texts: [String]) throws -> [[Float]] {
      try texts.map { text in
        guard let n = Int(text.dropFirst()), queries.indices.contains(n) else { throw EmbeddingError(.malformed, "unknown query '\(text)'") }
        return queries[n]
      }
    }
  }

  let configuration: Configuration
  let progress: (String) -> Void

  package init(_ configuration: Configuration, progress: @escaping (String) -> Void = { _ in }) {
    self.configuration = configuration
    self.progress = progress
  }

  package func run() throws -> Report {
    let c = configuration
    progress("preparing \(c.count) vectors of \(c.dimensions) dimensions")
    let vectors = try c.vectorsFile.map { try Self.read($0, dimensions: c.dimensions, limit: c.count) }
      ?? Self.generate(c.count, c.dimensions, seed: c.seed)
    let queries = try c.queriesFile.map { try Self.read($0, dimensions: c.dimensions, limit: c.queries) }
      ?? Self.generate(c.queries, c.dimensions, seed: c.seed &+ 1_000_003)
    let count = vectors.count / c.dimensions

    progress("writing them to \(c.path)")
    var start = Date()
    do {
      let index = try SearchIndex(path: c.path)
      try index.write { writer in
        let db = writer.db
        let item = try db.cachedStatement("INSERT INTO items(indexId, id, attributes, indexedAt) VALUES (?, ?, '{}', 0)")
        let vector = try db.cachedStatement("INSERT INTO vectors(item, chunk, vector) VALUES (?, 0, ?)")
        for n in 0..<count {
          try item.execute([.integer(index.indexID), .text("v\(n)")])
          let row = Array(vectors[(n * c.dimensions)..<((n + 1) * c.dimensions)])
          try vector.execute([.integer(db.lastInsertRowID), .blob(VectorCodec.encode(VectorCodec.normalized(row)))])
        }
        try db.run("INSERT INTO embedding_models(indexId, model, dimensions, url) VALUES (?, 'bench', ?, '')",
                   [.integer(index.indexID), .integer(Int64(c.dimensions))])
        writer.markChanged()
      }
    }
    let writeSeconds = Date().timeIntervalSince(start)
    let fileBytes = ((try? FileManager.default.attributesOfItem(atPath: c.path)[.size] as? NSNumber) ?? nil)?.int64Value ?? 0

    progress("loading the matrix")
    let index = try SearchIndex(path: c.path, create: false)
    start = Date()
    let matrix = try index.read { db in try index.vectorMatrix(db) }
    let loadSeconds = Date().timeIntervalSince(start)
    guard let matrix else { throw EmbeddingError.noEmbeddings(path: c.path) }

    progress("scanning")
    let queryVectors = (0..<(queries.count / c.dimensions)).map { Array(queries[($0 * c.dimensions)..<(($0 + 1) * c.dimensions)]) }
    _ = matrix.nearest(to: queryVectors[0], maxCount: c.k)  // warm-up
    var scans: [Double] = []
    var topK: [[Int]] = []
    for query in queryVectors {
      let begin = DispatchTime.now().uptimeNanoseconds
      let hits = matrix.nearest(to: query, maxCount: c.k)
      scans.append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e6)
      topK.append(hits.map { Int($0.item) - 1 })
    }

    progress("running 'similar' queries")
    let executor = QueryExecutor(index: index, registry: StandardLibrary.registry())
    var options = QueryOptions()
    options.embedder = FixedEmbedder(queries: queryVectors)
    var fulls: [Double] = []
    for n in queryVectors.indices {
      let begin = DispatchTime.now().uptimeNanoseconds
      try executor.run("similar \"q\(n)\" within 2 limit \(c.k)", options: options) { _ in }
      fulls.append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e6)
    }
    return Report(
      count: count, dimensions: c.dimensions, k: c.k, queries: queryVectors.count, writeSeconds: writeSeconds, fileBytes: fileBytes,
      loadSeconds: loadSeconds, scanP50: Percentiles.percentile(scans, 50) ?? .nan, scanP95: Percentiles.percentile(scans, 95) ?? .nan,
      queryP50: Percentiles.percentile(fulls, 50) ?? .nan, queryP95: Percentiles.percentile(fulls, 95) ?? .nan,
      peakMemoryBytes: ProcessMemory.peakResidentBytes, topK: topK)
  }

  /// Raw little-endian float32, `dimensions` per vector, at most `limit` vectors.
  static func read(_ path: String, dimensions: Int, limit: Int) throws -> [Float] {
    guard let data = FileManager.default.contents(atPath: path) else { throw EmbeddingError(.malformed, "\(path): cannot read") }
    let count = min(limit, data.count / 4 / dimensions)
    var values: [Float] = []
    values.reserveCapacity(count * dimensions)
    data.withUnsafeBytes { bytes in VectorCodec.decode(UnsafeRawBufferPointer(rebasing: bytes[0..<(count * dimensions * 4)]), into: &values) }
    return values
  }

  static func generate(_ count: Int, _ dimensions: Int, seed: UInt64) -> [Float] {
    var generator = SplitMix64(seed: seed)
    return (0..<(count * dimensions)).map { _ in Float(Double(generator.next() >> 11) / Double(1 << 53) * 2 - 1) }
  }
}
