import Foundation
import Testing
@testable import SearchIndex

/// `searchlight eval`: exit codes, errors that point at the bad line, and the JSON shapes.
@Suite struct EvalCommandTests {
  static let corpus = """
    {"id": "1", "title": "slipstream wing", "text": "an experimental study of a wing in a propeller slipstream"}
    {"id": "2", "title": "heat conduction", "text": "heat conduction in composite slabs"}
    {"id": "3", "title": "boundary layer", "text": "the laminar boundary layer on a flat plate"}
    """
  static let queries = """
    {"id": "1", "text": "what is the effect of a propeller slipstream on a wing?"}
    {"id": "2", "text": "heat conduction in slabs"}
    {"id": "3", "text": "unjudged question"}
    """
  static let qrels = "query-id\tdoc-id\trelevance\n1\t1\t3\n1\t3\t1\n2\t2\t2\n"

  /// A workspace with the small corpus indexed as `index.db` and the query files written.
  func withCollection<T>(_ body: (Workspace) throws -> T) throws -> T {
    try Workspace.with { workspace in
      try workspace.write("corpus.jsonl", Self.corpus)
      try workspace.write("queries.jsonl", Self.queries)
      try workspace.write("qrels.tsv", Self.qrels)
      try workspace.write("fixtures.jsonl", """
        {"id": "f1", "question": "Which study looks at a wing in a slipstream?", "expectedIdentifiers": ["1"]}
        {"id": "f2", "question": "Where is my passport?", "expectNoEvidence": true}
        """)
      let indexed = try workspace.run("index", "--db", "index.db", "--format", "corpus", "corpus.jsonl")
      #expect(indexed.status == 0, "\(indexed)")
      return try body(workspace)
    }
  }

  @Test func trecStyleJSONIsOneObjectWithTheDocumentedKeys() throws {
    try withCollection { workspace in
      let result = try workspace.run("eval", "--db", "index.db", "--queries", "queries.jsonl", "--qrels", "qrels.tsv", "--format", "json")
      #expect(result.status == 0, "\(result)")
      #expect(result.stderr == "")
      #expect(result.stdout.hasSuffix("}\n"))
      #expect(result.stdout.split(separator: "\n").count == 1)
      let json = try JSONParser.parse(result.stdout)
      #expect(json.objectValue?.keys.prefix(6) == ["queries", "nDCG@10", "recall@10", "recall@100", "MRR@10", "MAP"])
      #expect(json["queries"] == 2)
      #expect(json["skipped"] == 1)
      #expect(json["MRR@10"] == 1)
      // Document 3 shares no word with query 1: recall@10 is 1/2 there and 1 for query 2.
      #expect(json["recall@10"] == 0.75)
      #expect(json["details"] == nil)
    }
  }

  @Test func detailsListEveryJudgedQuery() throws {
    try withCollection { workspace in
      let json = try JSONParser.parse(try workspace.run(
        "eval", "--db", "index.db", "--queries", "queries.jsonl", "--qrels", "qrels.tsv", "--format", "json", "--details").stdout)
      let details = try #require(json["details"]?.arrayValue)
      #expect(details.map { $0["id"] } == ["1", "2"])
      #expect(details[0]["top"]?.arrayValue?.first == "1")
      #expect(details[0]["relevant"] == 2)
      let table = try workspace.run("eval", "--db", "index.db", "--queries", "queries.jsonl", "--qrels", "qrels.tsv", "--details")
      #expect(table.status == 0)
      #expect(table.stdout.contains("  id  nDCG@10  recall@10  recall@100  MRR@10  AP      relevant  retrieved\n"))
      #expect(table.stdout.contains("TREC-style evaluation: 2 queries (planner plain, 1000 results per query)\n"))
      #expect(table.stdout.contains("(1 query without judgments skipped)"))
      let baseline = try JSONParser.parse(try workspace.run(
        "eval", "--db", "index.db", "--queries", "queries.jsonl", "--qrels", "qrels.tsv", "--planner", "fts5", "--format", "json").stdout)
      #expect(baseline["planner"] == "fts5", "the FTS5 baseline is named as such, not as the plain planner")
    }
  }

  @Test func fixturesJSONIsOneObjectWithTheDocumentedKeys() throws {
    try withCollection { workspace in
      let result = try workspace.run("eval", "--db", "index.db", "--fixtures", "fixtures.jsonl", "--format", "json")
      #expect(result.status == 0, "\(result)")
      let json = try JSONParser.parse(result.stdout)
      #expect(json.objectValue?.keys.prefix(6) == ["questions", "coverage", "precision", "MRR", "noEvidenceAccuracy", "timeToFirstResultMs"])
      #expect(json["questions"] == 2)
      #expect(json["coverage"] == 1)
      #expect(json["MRR"] == 1)
      #expect(json["noEvidenceAccuracy"] == 1)
      #expect(json["timeToFirstResultMs"]?.objectValue?.keys == ["p50", "p95"])
      let detailed = try JSONParser.parse(try workspace.run("eval", "--db", "index.db", "--fixtures", "fixtures.jsonl", "--format", "json", "--details").stdout)
      #expect(detailed["details"]?.arrayValue?.map { $0["id"] } == ["f1", "f2"])
      #expect(detailed["details"]?.arrayValue?[1]["noEvidenceCorrect"] == true)
    }
  }

  @Test func theTableNamesEachMetric() throws {
    try withCollection { workspace in
      let result = try workspace.run("eval", "--db", "index.db", "--fixtures", "fixtures.jsonl", "--k", "5")
      #expect(result.status == 0)
      #expect(result.stdout.hasPrefix("Result coverage: 2 questions (planner plain, first 5 results)\n"))
      #expect(result.stdout.contains("  coverage              1.0000  (1 with expected items)\n"))
      #expect(result.stdout.contains("  no-evidence accuracy  1.0000  (1 expecting none)\n"))
    }
  }

  @Test(arguments: [
    ("fixtures.jsonl", "{\"id\": \"f1\", \"question\": \"ok\"}\n{\"id\": \"f2\", \"question\": 3}\n", ["--fixtures", "bad"], "bad:2", "'question' must be a string, found a number"),
    ("queries.jsonl", "{\"id\": \"1\", \"text\": \"ok\"}\n\nnot json\n", ["--queries", "bad", "--qrels", "qrels.tsv"], "bad:3", "not a JSON object"),
    ("qrels.tsv", "query-id\tdoc-id\trelevance\n1\t1\t3\n1\t2\n", ["--queries", "queries.jsonl", "--qrels", "bad"], "bad:3", "expected query-id<TAB>doc-id<TAB>grade, found 2 fields"),
    ("qrels.tsv", "1\t1\tvery\n1\t2\t1\n2\t2\tx\n", ["--queries", "queries.jsonl", "--qrels", "bad"], "bad:3", "grade 'x' is not a whole number"),
  ])
  func aMalformedLineExits65WithItsLineNumber(_ name: String, _ content: String, _ options: [String], _ location: String, _ message: String) throws {
    try withCollection { workspace in
      try workspace.write("bad", content)
      let result = try workspace.run(["eval", "--db", "index.db"] + options)
      #expect(result.status == 65, "\(result)")
      #expect(result.stdout == "")
      #expect(result.stderr.hasPrefix("error: \(location): \(message)"), "\(result)")
      #expect(result.stderr.hasSuffix("\n --> \(location)\n"), "\(result)")
      let json = try workspace.run(["eval", "--db", "index.db", "--format", "json"] + options)
      #expect(json.status == 65)
      let error = try #require(try JSONParser.parse(json.stderr)["error"])
      #expect(error["line"] == .number(Double(location.split(separator: ":").last.flatMap { Int($0) } ?? 0)))
      #expect(error["file"] == "bad")
    }
  }

  @Test func missingInputsExit66() throws {
    try withCollection { workspace in
      let missingFixtures = try workspace.run("eval", "--db", "index.db", "--fixtures", "nope.jsonl")
      #expect(missingFixtures.status == 66)
      #expect(missingFixtures.stderr.hasPrefix("error: nope.jsonl: no such file"))
      let missingIndex = try workspace.run("eval", "--db", "missing.db", "--fixtures", "fixtures.jsonl")
      #expect(missingIndex.status == 66)
      #expect(!workspace.exists("missing.db"))
    }
  }

  @Test(arguments: [
    (["--db", "index.db"], "missing '--fixtures <FILE>' or '--queries <FILE> --qrels <FILE>'"),
    (["--db", "index.db", "--queries", "queries.jsonl"], "--queries needs --qrels"),
    (["--db", "index.db", "--qrels", "qrels.tsv"], "--qrels needs --queries"),
    (["--db", "index.db", "--fixtures", "fixtures.jsonl", "--queries", "queries.jsonl", "--qrels", "qrels.tsv"], "use --fixtures, or --queries with --qrels, not both"),
    (["--db", "index.db", "--fixtures", "fixtures.jsonl", "--planner", "model"], "the 'model' planner is not available yet (it needs a model server); use --planner builtin or plain"),
    (["--db", "index.db", "--fixtures", "fixtures.jsonl", "--planner", "plian"], "unknown planner 'plian'; did you mean 'plain'?"),
    (["--db", "index.db", "--fixtures", "fixtures.jsonl", "--k", "0"], "--k needs a whole number from 1 to 1000, got '0'"),
    (["--db", "index.db", "--fixtures", "fixtures.jsonl", "--format", "csv"], "unknown format 'csv'; use one of table, json"),
    (["--fixtures", "fixtures.jsonl"], "missing '--db <FILE>'"),
  ])
  func usageErrorsExit64(_ arguments: [String], _ message: String) throws {
    try withCollection { workspace in
      let result = try workspace.run(["eval"] + arguments)
      #expect(result.status == 64, "\(result)")
      #expect(result.stderr.hasPrefix("error: \(message)\n"), "\(result)")
    }
  }

  @Test func helpListsThePlanners() throws {
    try Workspace.with { workspace in
      let result = try workspace.run("eval", "--help")
      #expect(result.status == 0)
      #expect(result.stdout.hasPrefix("OVERVIEW: Measure retrieval quality"))
      #expect(result.stdout.contains("builtin (the built-in planner"))
      #expect(try workspace.run("--help").stdout.contains("  eval "))
    }
  }
}
