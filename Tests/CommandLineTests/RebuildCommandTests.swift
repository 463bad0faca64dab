import Foundation
import Testing
@testable import SearchIndex

/// `searchlight rebuild` end to end: `--compact` gives the free space back with the answers
/// unchanged, and its misuse is a usage error that touches nothing; `--progress` shows each
/// step of a rebuild.
@Suite struct RebuildCommandTests {
  /// A workspace whose `index.db` held 300 items with long texts, 260 of them deleted (the
  /// delete's run is `deletion`).
  func withHollowIndex<T>(_ body: (_ workspace: Workspace, _ deletion: CLIResult) throws -> T) throws -> T {
    try Workspace.with { workspace in
      let lines = (0..<300).map { number in
        let text = (0..<300).map { "word\(($0 * 7 + number) % 500)" }.joined(separator: " ")
        return #"{"id":"i\#(number)","domain":"\#(number < 40 ? "kept" : "gone")","attributes":{"title":"Report \#(number)","textContent":"\#(text) granite"}}"#
      }
      try workspace.write("items.jsonl", lines.joined(separator: "\n") + "\n")
      #expect(try workspace.run("index", "--db", "index.db", "items.jsonl").status == 0)
      let deletion = try workspace.run("delete", "--db", "index.db", "--domain", "gone")
      #expect(deletion.status == 0, "\(deletion)")
      return try body(workspace, deletion)
    }
  }

  func stats(_ workspace: Workspace) throws -> JSONValue {
    try JSONParser.parse(try workspace.run("stats", "--db", "index.db", "--format", "json").stdout)
  }

  static let queries = ["search \"granite\" | count", "search \"word7\" || \"word123\" | top 5", "search * | limit 3"]

  func answers(_ workspace: Workspace) throws -> [String] {
    try Self.queries.map { query in
      let result = try workspace.run("query", "--db", "index.db", "--format", "json", query)
      #expect(result.status == 0, "\(result)")
      // Query tokens differ per run; the items and counts must not.
      return result.stdout.replacing(/"queryToken":"[^"]*"/, with: "")
    }
  }

  @Test func aDeleteThatFreesMuchOfTheFileSaysHowToGiveItBack() throws {
    try withHollowIndex { workspace, deletion in
      #expect(deletion.stdout == "deleted 260 items\n")
      #expect(deletion.stderr.hasPrefix("note: the file has "), "\(deletion)")
      #expect(deletion.stderr.hasSuffix(" free: `searchlight rebuild --db index.db --compact` gives it back (later writes reuse it)\n"))
      // A delete that frees little says nothing.
      let small = try workspace.run("delete", "--db", "index.db", "--id", "i0")
      #expect(small.stdout == "deleted 1 item\n")
      #expect(try workspace.run("rebuild", "--db", "index.db", "--compact").status == 0)
      #expect(try workspace.run("delete", "--db", "index.db", "--id", "i1").stderr == "")
    }
  }

  @Test func compactGivesTheFreeSpaceBackAndTheAnswersStay() throws {
    try withHollowIndex { workspace, _ in
      let before = try stats(workspace)
      let free = try #require(before["freeBytes"]?.numberValue)
      let size = try #require(before["fileSize"]?.numberValue)
      #expect(free > 500_000)
      let table = try workspace.run("stats", "--db", "index.db").stdout
      #expect(table.contains(" free: `searchlight rebuild --db index.db --compact` gives it back)"), "\(table)")
      let answers = try answers(workspace)

      let result = try workspace.run("rebuild", "--db", "index.db", "--compact")
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout.hasPrefix("compacted index.db: "), "\(result)")
      #expect(result.stdout.contains(" → "))
      #expect(result.stderr.hasPrefix("compacting index.db ("), "\(result)")
      #expect(!result.stderr.contains("note:"), "no other process reads the file")

      let after = try stats(workspace)
      #expect(after["freeBytes"] == 0)
      #expect(try #require(after["fileSize"]?.numberValue) <= size - free)
      #expect(after["items"] == 40)
      #expect(try !workspace.run("stats", "--db", "index.db").stdout.contains("--compact"))
      #expect(try self.answers(workspace) == answers)
      #expect(try workspace.run("check", "--db", "index.db").stdout.hasSuffix("ok\n"))
    }
  }

  @Test func compactWhileAnotherProcessReadsSaysWhenTheFileShrinks() throws {
    try withHollowIndex { workspace, _ in
      let answers = try answers(workspace)
      // This test process reads an older state of the file while the command rewrites it.
      let reader = try Connection(path: workspace.path("index.db"), readOnly: true, create: false)
      try reader.execute("BEGIN")
      #expect(try reader.scalar("SELECT count(*) FROM items")?.int64Value == 40)
      let result = try workspace.run("rebuild", "--db", "index.db", "--compact")
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout.hasPrefix("compacted index.db: "))
      #expect(result.stderr.contains("note: other processes are reading the file; it shrinks once they finish"), "\(result)")
      try reader.execute("COMMIT")
      #expect(try self.answers(workspace) == answers)
    }
  }

  @Test func compactWithFromSourcesIsAUsageErrorThatChangesNothing() throws {
    try withHollowIndex { workspace, _ in
      let before = workspace.contents("index.db")
      let result = try workspace.run("rebuild", "--db", "index.db", "--compact", "--from-sources")
      #expect(result.status == 64, "\(result)")
      #expect(result.stderr.contains("--compact rebuilds nothing"), "\(result)")
      #expect(result.stdout == "")
      #expect(workspace.contents("index.db") == before)
    }
  }

  /// A rebuild with `--progress` prints its steps in order (the full text, the values, the
  /// ranked index, each from 0 to every item, then the commit), and answers as before.
  @Test func progressLinesShowEachStepOfARebuild() throws {
    try withHollowIndex { workspace, _ in
      let answers = try answers(workspace)
      let result = try workspace.run("rebuild", "--db", "index.db", "--progress")
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout == "rebuilt the full-text index of 40 items\n")
      let lines = result.stderr.split(separator: "\n").map(String.init)
      var steps: [String] = []
      for line in lines {
        let step = line.split(separator: " ").prefix { !$0.first!.isNumber }.joined(separator: " ")
        if steps.last != step { steps.append(step) }
      }
      #expect(steps == ["rebuilding the full-text index", "rebuilding the values", "rebuilding the ranked index", "committing"], "\(lines)")
      for step in steps.dropLast() {
        #expect(lines.contains("\(step) 0/40 items, 0%"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("\(step) 40/40 items, 100%") }, "\(lines)")
      }
      #expect(try self.answers(workspace) == answers)
    }
  }

  @Test func progressLinesShowEachStepOfACheck() throws {
    try withHollowIndex { workspace, _ in
      let quiet = try workspace.run("check", "--db", "index.db")
      let result = try workspace.run("check", "--db", "index.db", "--progress")
      #expect(result.status == 0, "\(result)")
      // The report is the same; the steps go to standard error.
      #expect(result.stdout == quiet.stdout && quiet.stderr.isEmpty, "\(result)")
      #expect(result.stdout.hasSuffix("ok\n"))
      let lines = result.stderr.split(separator: "\n").map(String.init)
      var steps: [String] = []
      for line in lines {
        let step = line.split(separator: " ").prefix { !$0.first!.isNumber }.joined(separator: " ")
        if steps.last != step { steps.append(step) }
      }
      #expect(steps == [
        "checking the file (SQLite's and FTS5's checks)", "deriving the records' full text", "comparing the full text with the records",
        "comparing the values with the records", "checking the ranked index",
      ], "\(lines)")
      for step in ["deriving the records' full text", "comparing the values with the records"] {
        #expect(lines.contains("\(step) 0/40 items, 0%"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("\(step) 40/40 items, 100%") }, "\(lines)")
      }
    }
  }

  @Test func compactOfAMissingIndexExits66AndCreatesNothing() throws {
    try Workspace.with { workspace in
      let result = try workspace.run("rebuild", "--db", "missing.db", "--compact")
      #expect(result.status == 66, "\(result)")
      #expect(!workspace.exists("missing.db"))
    }
  }
}
