import Foundation
import Testing

/// `--stages DIR` end to end: custom stages in query and stages; bad folders fail before
/// anything runs.
@Suite struct StageFolderTests {
  static let good = """
    {"id":"a","domain":"notes","attributes":{"title":"Alpha","rating":5,"contentModificationDate":"2026-11-28T10:00:00Z"}}
    {"id":"b","domain":"notes","attributes":{"title":"Beta","rating":1,"contentModificationDate":"2025-01-01T10:00:00Z"}}
    """

  @Test func aCustomStageRunsInQueryAndIsListedByStages() throws {
    try Workspace.with { workspace in
      try workspace.write("items.jsonl", Self.good + "\n")
      try workspace.write("stages/rated.stage", #"stage rated(minimum: Number = 3 in 0...5 "Lowest rating") "Keeps well rated items" : items -> items = where rating >= minimum"# + "\n")
      #expect(try workspace.run("index", "--db", "i.db", "items.jsonl").status == 0)
      let result = try workspace.run("query", "--db", "i.db", "--stages", "stages", "--format", "json", "search * | rated(minimum: 4)")
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout.contains(#""id":"a""#))
      #expect(!result.stdout.contains(#""id":"b""#))
      let listed = try workspace.run("stages", "--stages", "stages", "--format", "json")
      #expect(listed.status == 0)
      #expect(listed.stdout.contains(#""name":"rated","description":"Keeps well rated items""#))
      #expect(listed.stdout.contains(#""custom":true"#))
    }
  }

  @Test func theEnvironmentVariableLoadsStagesToo() throws {
    try Workspace.with { workspace in
      try workspace.write("items.jsonl", Self.good + "\n")
      try workspace.write("stages/rated.stage", #"stage rated() "Rated" : items -> count = where rating >= 3 | count"# + "\n")
      #expect(try workspace.run("index", "--db", "i.db", "items.jsonl").status == 0)
      let result = try workspace.run(["query", "--db", "i.db", "--format", "json", "search * | rated"], environment: ["SEARCHLIGHT_STAGES": workspace.path("stages")])
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout.contains(#""count":1"#))
    }
  }

  @Test func aFolderWithBadFilesReportsEveryFileAndRunsNothing() throws {
    try Workspace.with { workspace in
      try workspace.write("items.jsonl", Self.good + "\n")
      try workspace.write("stages/a.stage", #"stage one(x: Numbr = 1) "bad type" : items -> items = limit 1"# + "\n")
      try workspace.write("stages/b.stage", #"stage two() "bad signature" : items -> scoredItems = count"# + "\n")
      try workspace.write("stages/c.stage", #"stage three() "fine" : items -> count = count"# + "\n")
      #expect(try workspace.run("index", "--db", "i.db", "items.jsonl").status == 0)
      let result = try workspace.run("query", "--db", "i.db", "--stages", "stages", "search *")
      #expect(result.status == 65)
      #expect(result.stdout.isEmpty, "nothing runs")
      #expect(result.stderr.contains("2 stage files have problems; nothing was run"))
      #expect(result.stderr.contains("a.stage:1:14"))
      #expect(result.stderr.contains("unknown parameter type 'Numbr'"))
      #expect(result.stderr.contains("b.stage:1:40"))
      #expect(result.stderr.contains("the body produces count from items, but the stage declares scoredItems"))
    }
  }

  @Test func aMissingStageFolderExits66() throws {
    try Workspace.with { workspace in
      try workspace.write("items.jsonl", Self.good + "\n")
      #expect(try workspace.run("index", "--db", "i.db", "items.jsonl").status == 0)
      let result = try workspace.run("query", "--db", "i.db", "--stages", "nowhere", "search *")
      #expect(result.status == 66)
      #expect(result.stderr.contains("nowhere: no such stage folder"))
    }
  }

  @Test func anArgumentOutOfRangeAtTheCallPointsAtTheQuery() throws {
    try Workspace.with { workspace in
      try workspace.write("items.jsonl", Self.good + "\n")
      try workspace.write("stages/rated.stage", #"stage rated(minimum: Number = 3 in 0...5 "Lowest rating") "Rated" : items -> items = where rating >= minimum"# + "\n")
      #expect(try workspace.run("index", "--db", "i.db", "items.jsonl").status == 0)
      let result = try workspace.run("query", "--db", "i.db", "--stages", "stages", "search * | rated(minimum: 9)")
      #expect(result.status == 65)
      #expect(result.stderr.hasPrefix("error: 'minimum' of rated must be from 0 to 5; got 9\n --> query:1:27\n"))
    }
  }
}
