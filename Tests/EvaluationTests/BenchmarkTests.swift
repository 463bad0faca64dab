import Foundation
import QueryEngine
import SearchIndex
import Testing
@testable import Evaluation

@Suite struct ItemGeneratorTests {
  @Test func itemsDependOnlyOnTheSeedAndTheirNumber() {
    let generator = ItemGenerator(seed: 7)
    #expect(generator.item(42) == ItemGenerator(seed: 7).item(42))
    #expect(generator.item(42) != ItemGenerator(seed: 8).item(42))
    #expect(generator.item(41) != generator.item(42))
  }

  @Test func itemsLookLikeTheSamples() {
    let items = (0..<600).map(ItemGenerator(seed: 1).item)
    #expect(Set(items.map(\.uniqueIdentifier)).count == 600)
    let types = Dictionary(grouping: items, by: { $0.contentType ?? "" }).mapValues(\.count)
    #expect(Set(types.keys) == ["note", "email", "trail"])
    #expect(types.values.allSatisfy { $0 > 100 })
    for item in items {
      #expect(item.attributeSet.title?.isEmpty == false)
      #expect(item.attributeSet["contentModificationDate"] != nil)
      if item.contentType == "trail" {
        #expect(item.domainIdentifier == "trails")
        #expect(item.attributeSet["stateOrProvince"]?.stringValue != nil)
        #expect(item.attributeSet["rating"]?.numericValue.map { (4...5).contains($0) } == true)
      } else {
        let words = item.attributeSet["textContent"]?.stringValue?.split(separator: " ").count ?? 0
        #expect(words >= 8)
      }
    }
  }

  @Test func theVocabularyHasUniqueWordsMostFrequentFirst() {
    #expect(ItemGenerator.vocabulary.count == ItemGenerator.vocabularySize)
    #expect(Set(ItemGenerator.vocabulary).count == ItemGenerator.vocabulary.count)
    #expect(ItemGenerator.vocabulary.first == "the")
  }

  @Test func theSameSeedGivesTheSameNumbers() {
    var a = SplitMix64(seed: 3), b = SplitMix64(seed: 3)
    #expect((0..<10).map { _ in a.next() } == (0..<10).map { _ in b.next() })
    var c = SplitMix64(seed: 3)
    #expect((0..<1000).map { _ in c.unit() }.allSatisfy { (0..<1).contains($0) })
  }
}

@Suite struct BenchmarkTests {
  /// A small run of the whole mix: every query of the engine returns what its hand-written SQL
  /// returns, and the report has the documented JSON shape (timings are not checked).
  @Test func theEngineAndTheHandWrittenSQLAgreeOnEveryQuery() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("bench-tests-\(UUID().uuidString).db").path
    defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
    var configuration = Benchmark.Configuration(path: path)
    configuration.items = 400
    configuration.runs = 1
    configuration.iterations = 2
    configuration.coldRuns = 1
    configuration.batchSize = 150
    let report = try Benchmark(configuration).run()
    #expect(report.ingest.items == 400)
    #expect(report.ingest.bytesPerItem > 0)
    #expect(report.queries.map(\.name) == [
      "text top-10", "question top-10 (OR)", "text count", "text group", "text stats", "predicate", "date range", "sort + limit",
      "group + count", "group all", "list value count", "stats", "custom scoring stage", "people", "sample", "planner question", "tool call", "fuse",
    ])
    for query in report.queries {
      // The OR question is ranked by BM25F, which no SQL expresses; `ranked` checks it.
      #expect(query.resultsMatch == (query.name == "question top-10 (OR)" ? nil : true), "\(query.name): \(query.example)")
      #expect(query.results > 0, "\(query.name)")
    }
    let ranked = try #require(report.ranked)
    #expect(!ranked.unavailable && ranked.mismatches == 0)
    #expect(ranked.queryCount > 0)
    #expect(ranked.ranked.wall.count == ranked.queryCount * configuration.rankedPasses)
    #expect(report.ingestWithoutRanked?.items == 400)
    let json = report.jsonValue
    #expect(json.objectValue?.keys.prefix(2) == ["ingest", "queries"])
    #expect(json["ingest"]?.objectValue?.keys.prefix(3) == ["itemsPerSecond", "bytesPerItem", "peakMemoryBytes"])
    #expect(json["queries"]?.arrayValue?.first?.objectValue?.keys.prefix(6) == ["name", "p50_ms", "p95_ms", "p99_ms", "sql_p50_ms", "ratio"])
  }

  @Test func aCorpusGetsTheTextQueries() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-corpus-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let corpus = (0..<120).map { n in
      #"{"id": "\#(n)", "title": "wing slipstream study \#(n % 7)", "text": "experimental study of wing number \#(n) in a propeller slipstream at angle \#(n % 5)"}"#
    }.joined(separator: "\n")
    try Data(corpus.utf8).write(to: directory.appendingPathComponent("corpus.jsonl"))
    var configuration = Benchmark.Configuration(path: directory.appendingPathComponent("index.db").path)
    configuration.corpus = directory.appendingPathComponent("corpus.jsonl").path
    configuration.runs = 1
    configuration.iterations = 2
    configuration.coldRuns = 1
    let report = try Benchmark(configuration).run()
    #expect(report.ingest.items == 120)
    #expect(report.ingest.generationSeconds == 0)
    #expect(report.queries.map(\.name) == ["text top-10", "text count", "question top-10 (OR)"])
    #expect(report.queries.map(\.resultsMatch) == [true, true, nil])
    #expect(report.ranked?.mismatches == 0)
  }
}
