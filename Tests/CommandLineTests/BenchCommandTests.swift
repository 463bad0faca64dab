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
        "text top-10", "question top-10 (OR)", "text count", "text group", "text stats", "predicate", "date range", "sort + limit",
      "group + count", "group all", "list value count", "stats", "custom scoring stage", "people", "sample", "planner question", "tool call", "fuse",
      ])
      for query in queries {
        #expect(query.objectValue?.keys.prefix(6) == ["name", "p50_ms", "p95_ms", "p99_ms", "sql_p50_ms", "ratio"])
        // The OR question is ranked by BM25F, which the SQL cannot express: checked below.
        let compared = query["name"] != "question top-10 (OR)"
        #expect(query["resultsMatch"] == (compared ? .bool(true) : .null), "\(query)")
      }
      // The ranked measurement of the mix's questions, and ingest without ranked postings.
      #expect(json["rankedQueries"]?["exact"] == true, "\(json)")
      #expect(json["rankedQueries"]?["queries"]?.numberValue ?? 0 > 0)
      #expect(json["ingestWithoutRanked"]?["items"] == 300)
    }
  }

  /// Issue 12's form: ranked top k for each query line next to FTS5's exhaustive OR, and
  /// ingest with and without ranked postings.
  @Test func corpusAndQueriesReportRankedTopKNextToExhaustiveFTS5() throws {
    try Workspace.with { workspace in
      let words = ["wing", "flutter", "shock", "boundary", "layer", "heat", "panel", "nozzle", "jet", "slender", "cone", "plate"]
      let corpus = (0..<120).map { n in
        let title = (0..<4).map { words[(n * 7 + $0 * 3) % words.count] }.joined(separator: " ")
        let text = (0..<12).map { words[(n * 5 + $0 * $0) % words.count] }.joined(separator: " ")
        return #"{"id": "d\#(n)", "title": "\#(title)", "text": "\#(text)"}"#
      }
      try workspace.write("corpus.jsonl", corpus.joined(separator: "\n") + "\n")
      try workspace.write("queries.jsonl", """
        {"id": "1", "text": "wing flutter"}
        {"id": "2", "text": "heat transfer in a boundary layer"}
        {"id": "3", "text": "slender cone nozzle jet plate"}

        """)
      let result = try workspace.run(
        "bench", "--corpus", "corpus.jsonl", "--queries", "queries.jsonl", "--k", "5", "--runs", "1", "--iterations", "1",
        "--cold-runs", "0", "--passes", "2", "--format", "json")
      #expect(result.status == 0, "\(result)")
      #expect(result.stderr == "")
      let json = try JSONParser.parse(result.stdout)
      for key in ["ranked", "rankedCold", "queryPath", "fts5Exhaustive", "fts5And"] {
        let latency = try #require(json[key]?.objectValue, "\(key) in \(json)")
        #expect(Array(latency.keys.prefix(3)) == ["p50_ms", "p95_ms", "p99_ms"], "\(key)")
        for percentile in ["p50_ms", "p95_ms", "p99_ms"] { #expect(json[key]?[percentile]?.numberValue ?? -1 >= 0, "\(key)") }
      }
      #expect(json["ranked"]?["samples"] == 6)
      #expect(json["fts5Exhaustive"]?["samples"] == 3)
      #expect(json["cpu"]?["ranked"]?["samples"] == 6)
      let ranked = try #require(json["rankedQueries"])
      #expect(ranked["exact"] == true && ranked["mismatches"] == 0 && ranked["queries"] == 3 && ranked["k"] == 5, "\(ranked)")
      #expect(json["ingest"]?["items"] == 120)
      #expect(json["ingestWithoutRanked"]?["items"] == 120)
      #expect(json["ingestWithoutRanked"]?["bytesPerItem"]?.numberValue ?? 0 > 0)
      #expect(json["rankedPostingsCost"]?["sizeChange"]?.numberValue != nil)

      let table = try workspace.run(
        "bench", "--corpus", "corpus.jsonl", "--queries", "queries.jsonl", "--runs", "1", "--iterations", "1", "--cold-runs", "0",
        "--passes", "1", "--skip-without-ranked", "--ranked-only")
      #expect(table.status == 0, "\(table)")
      #expect(table.stdout.contains("ranked top-10, OR of each query's words: 3 queries"), "\(table)")
      #expect(table.stdout.contains("exact:   every query returns the exhaustive BM25 top k"))
      #expect(table.stdout.contains("FTS5 OR (exhaustive)"))
      #expect(!table.stdout.contains("ingest without ranked postings"))
      #expect(!table.stdout.contains("text top-10"), "--ranked-only skips the query mix")
    }
  }

  @Test func generateWritesTheZipfCollectionAndItsQueries() throws {
    try Workspace.with { workspace in
      try workspace.write("cran/corpus.jsonl", """
        {"id": "1", "title": "flutter of wings", "text": "the flutter of a swept wing in supersonic flow"}
        {"id": "2", "title": "boundary layers", "text": "heat transfer in the laminar boundary layer of a cone"}

        """)
      try workspace.write("cran/queries.jsonl", #"{"id": "1", "text": "what is the flutter of a wing"}"# + "\n")
      let result = try workspace.run(
        "bench", "--generate", "25", "--seed", "42", "--cranfield", "cran", "--corpus", "zipf.jsonl", "--queries", "q.jsonl")
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout == "wrote 25 documents to zipf.jsonl and their queries to q.jsonl\n")
      let lines = Self.text(workspace, "zipf.jsonl").split(separator: "\n")
      #expect(lines.count == 25)
      for line in lines {
        let document = try JSONParser.parse(String(line))
        #expect(document["title"]?.stringValue?.split(separator: " ").count == 8)
        #expect((40...120).contains(document["text"]?.stringValue?.split(separator: " ").count ?? 0))
      }
      #expect(Self.text(workspace, "q.jsonl").split(separator: "\n").count == 1)
      let again = try workspace.run(
        "bench", "--generate", "25", "--seed", "42", "--cranfield", "cran", "--corpus", "zipf2.jsonl", "--queries", "q2.jsonl")
      #expect(again.status == 0)
      #expect(Self.text(workspace, "zipf2.jsonl") == Self.text(workspace, "zipf.jsonl"), "the same seed writes the same collection")

      let missing = try workspace.run("bench", "--generate", "5", "--cranfield", "nowhere", "--corpus", "z.jsonl", "--queries", "q.jsonl")
      #expect(missing.status == 66, "\(missing)")
      #expect(missing.stderr.hasPrefix("error: nowhere/corpus.jsonl: no such file"), "\(missing)")
      let usage = try workspace.run("bench", "--generate", "5", "--cranfield", "cran", "--corpus", "z.jsonl")
      #expect(usage.status == 64, "\(usage)")
      #expect(usage.stderr.hasPrefix("error: --generate needs --corpus FILE and --queries FILE to write"), "\(usage)")
      // Without --cranfield, from a folder with no ../shared: the collection beside the
      // package the binary was built from.
      let located = try workspace.run("bench", "--generate", "5", "--corpus", "z.jsonl", "--queries", "q.jsonl")
      #expect(located.status == 0, "\(located)")
      #expect(Self.text(workspace, "z.jsonl").split(separator: "\n").count == 5)
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
    (["--passes", "0"], 64, "error: --passes needs a whole number from 1 to 1000, got '0'"),
    (["--generate", "x"], 64, "error: --generate needs a whole number from 1 to 100000000, got 'x'"),
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

  /// The text of a workspace file ("" when it is missing).
  static func text(_ workspace: Workspace, _ name: String) -> String {
    String(decoding: workspace.contents(name) ?? Data(), as: UTF8.self)
  }
}
