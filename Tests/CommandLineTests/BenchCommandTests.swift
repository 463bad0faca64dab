import Foundation
import Testing
@testable import SearchIndex

/// `searchlight bench`: the JSON shape and the exit codes (timings are never asserted).
@Suite struct BenchCommandTests {
  @Test func jsonIsOneObjectWithIngestAndTheQueryMix() throws {
    try Workspace.with { workspace in
      let result = try workspace.run("bench", "--items", "300", "--runs", "1", "--iterations", "1", "--cold-runs", "1", "--format", "json")
      #expect(result.status == 0, "\(result)")
      #expect(result.stderr == "")
      #expect(result.stdout.split(separator: "\n").count == 1)
      let json = try JSONParser.parse(result.stdout)
      #expect(json.objectValue?.keys.prefix(2) == ["ingest", "queries"])
      #expect(json["ingest"]?.objectValue?.keys.prefix(3) == ["itemsPerSecond", "bytesPerItem", "peakMemoryBytes"])
      #expect(json["ingest"]?["items"] == 300)
      let queries = try #require(json["queries"]?.arrayValue)
      #expect(queries.map { $0["name"]?.stringValue ?? "" } == [
        "text top-10", "question top-10 (OR)", "predicate", "date range", "group + count", "stats", "custom scoring stage",
      ])
      for query in queries {
        #expect(query.objectValue?.keys.prefix(6) == ["name", "p50_ms", "p95_ms", "p99_ms", "sql_p50_ms", "ratio"])
        #expect(query["resultsMatch"] == true, "\(query)")
      }
    }
  }

  @Test func aCorpusIndexIsKeptWithDB() throws {
    try Workspace.with { workspace in
      try workspace.write("corpus.jsonl", (0..<50).map { #"{"id": "\#($0)", "title": "wing study \#($0)", "text": "propeller slipstream wing experiment \#($0)"}"# }.joined(separator: "\n"))
      let result = try workspace.run("bench", "--corpus", "corpus.jsonl", "--db", "kept.db", "--runs", "1", "--iterations", "1", "--cold-runs", "0")
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout.hasPrefix("source:  corpus.jsonl\ningest:  50 items in "))
      #expect(result.stdout.contains("text top-10"))
      #expect(workspace.exists("kept.db"))
      let again = try workspace.run("bench", "--corpus", "corpus.jsonl", "--db", "kept.db")
      #expect(again.status == 64)
      #expect(again.stderr.hasPrefix("error: 'kept.db' exists; bench builds a new index"))
    }
  }

  @Test(arguments: [
    (["--items", "0"], 64, "error: --items needs a whole number from 1 to 100000000, got '0'"),
    (["--items", "10", "--corpus", "c.jsonl"], 64, "error: use --items or --corpus, not both"),
    (["--queries", "q.jsonl"], 64, "error: --queries goes with --corpus"),
    (["--format", "xml"], 64, "error: unknown format 'xml'; use one of table, json"),
    (["--corpus", "missing.jsonl"], 66, "error: missing.jsonl: no such file"),
  ])
  func badArgumentsExitWithTheirCode(_ arguments: [String], _ status: Int32, _ message: String) throws {
    try Workspace.with { workspace in
      let result = try workspace.run(["bench"] + arguments)
      #expect(result.status == status, "\(result)")
      #expect(result.stderr.hasPrefix(message), "\(result)")
    }
  }

  @Test func aMalformedCorpusLineExits65WithItsLine() throws {
    try Workspace.with { workspace in
      try workspace.write("corpus.jsonl", "{\"id\": \"1\", \"title\": \"a\", \"text\": \"b\"}\n{\"id\": \"2\", \"text\": \"c\", \"author\": \"x\"}\n")
      let result = try workspace.run("bench", "--corpus", "corpus.jsonl")
      #expect(result.status == 65, "\(result)")
      #expect(result.stderr.contains(" --> corpus.jsonl:2"), "\(result)")
    }
  }
}
