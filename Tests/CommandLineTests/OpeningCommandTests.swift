import Foundation
import Synchronization
import Testing
@testable import SearchIndex

/// Opening index files from the command line: read commands work on read-only media and
/// never create or change a file; concurrent creators of one new index all succeed.
@Suite struct OpeningCommandTests {
  /// Runs `searchlight arguments` with the workspace folder mounted read-only, in a mount
  /// namespace of its own (`unshare`; user namespaces let a non-root user do it too).
  func runOnReadOnlyMedia(_ workspace: Workspace, _ arguments: [String]) throws -> CLIResult {
    let folder = workspace.directory.path
    let script = #"mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && cd "$0" && exec "$@""#
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
    process.arguments = ["-rm", "sh", "-c", script, folder, folder, CLI.executable.path] + arguments
    let output = workspace.directory.deletingLastPathComponent().appendingPathComponent("ro-output-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: output) }
    let out = output.appendingPathComponent("stdout"), err = output.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    _ = FileManager.default.createFile(atPath: err.path, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: out)
    process.standardError = try FileHandle(forWritingTo: err)
    process.standardInput = FileHandle.nullDevice
    var environment = ProcessInfo.processInfo.environment
    environment["SEARCHLIGHT_DB"] = nil
    environment["SEARCHLIGHT_NOW"] = nil
    process.environment = environment
    try process.run()
    process.waitUntilExit()
    return CLIResult(
      status: process.terminationStatus, stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
      stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self), exitedNormally: process.terminationReason == .exit)
  }

  @Test func readCommandsWorkOnReadOnlyMedia() throws {
    try withMiniIndex { workspace in
      let before = try FileManager.default.contentsOfDirectory(atPath: workspace.directory.path).sorted()
      // The mount is really read-only: a write there fails (a new item: indexing the stored
      // items again would write nothing, as they are unchanged).
      try workspace.write("../ro-new-\(workspace.directory.lastPathComponent).jsonl", #"{"id":"new","attributes":{"title":"New"}}"# + "\n")
      let newItems = workspace.directory.deletingLastPathComponent().appendingPathComponent("ro-new-\(workspace.directory.lastPathComponent).jsonl")
      defer { try? FileManager.default.removeItem(at: newItems) }
      let touch = try runOnReadOnlyMedia(workspace, ["index", "--db", "index.db", newItems.path])
      #expect(touch.status == 74, "\(touch)")
      let query = try runOnReadOnlyMedia(workspace, ["query", "--db", "index.db", "--format", "json", "--", "*"])
      #expect(query.status == 0, "\(query)")
      #expect(query.stdout.contains(#""id":"trail-17""#))
      let stats = try runOnReadOnlyMedia(workspace, ["stats", "--db", "index.db"])
      #expect(stats.status == 0, "\(stats)")
      #expect(stats.stdout.contains("items:"))
      let missing = try runOnReadOnlyMedia(workspace, ["query", "--db", "none.db", "--", "*"])
      #expect(missing.status == 66, "\(missing)")
      #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.directory.path).sorted() == before)
    }
  }

  /// A file written before the item indexes (`Tests/Fixtures/schema-v5`): on read-only
  /// media its readers answer the same without them and `check` says they are missing; the
  /// first command on writable media, even a query, adds them.
  @Test func aFileWithoutTheItemIndexesAnswersTheSameAndGainsThemWhenWritable() throws {
    try Workspace.with { workspace in
      try FileManager.default.copyItem(
        at: fixtures.appendingPathComponent("schema-v5/v5.db"), to: workspace.directory.appendingPathComponent("v5.db"))
      let query = #"search contentType == "note" && ("budget"s || "review"s) | top 10"#
      let readOnly = try runOnReadOnlyMedia(workspace, ["query", "--db", "v5.db", "--format", "json", "--", query])
      #expect(readOnly.status == 0, "\(readOnly)")
      #expect(readOnly.stdout.contains(#""id":"n1""#) && !readOnly.stdout.contains(#""id":"n2""#), "\(readOnly)")
      // (FTS5's integrity-check writes, so `check` on read-only media reports that too.)
      let unchanged = try runOnReadOnlyMedia(workspace, ["check", "--db", "v5.db"])
      #expect(unchanged.stdout.contains("item indexes: missing items_domain_type_scope, items_type_domain_scope, items_expiring, items_protected"), "\(unchanged)")
      // Read-only media cannot be upgraded, and nothing says it will be.
      #expect(!readOnly.stderr.contains("upgrading"), "\(readOnly)")
      let writable = try workspace.run("query", "--db", "v5.db", "--format", "json", "--", query)
      #expect(writable.status == 0, "\(writable)")
      // The first writable open says it upgrades the file (a million items take half a minute).
      #expect(writable.stderr.contains("upgrading v5.db from schema version 5 to \(Schema.version)"), "\(writable)")
      #expect(Self.withoutTokens(writable.stdout) == Self.withoutTokens(readOnly.stdout), "\(writable)\n\(readOnly)")
      let check = try workspace.run("check", "--db", "v5.db")
      #expect(check.status == 0, "\(check)")
      #expect(!check.stderr.contains("upgrading"), "\(check)")
      #expect(check.stdout.contains("item indexes: items_domain_type_scope, items_type_domain_scope, items_expiring, items_protected present"), "\(check)")
    }
  }

  /// A current-version file with the domain and type indexes of before session 43: the first
  /// command that may write says which indexes it builds (ten seconds at a million items),
  /// builds them, and answers as before; the next says nothing.
  @Test func aFileWithTheFormerScopeIndexesSaysItGainsTheCurrentOnes() throws {
    try Workspace.with { workspace in
      try workspace.write("items.jsonl", #"{"id":"a","domain":"notes","contentType":"note","attributes":{"title":"Budget"}}"# + "\n"
        + #"{"id":"b","domain":"trails","contentType":"trail","attributes":{"title":"Lake"}}"# + "\n")
      #expect(try workspace.run("index", "--db", "f.db", "items.jsonl").status == 0)
      let path = workspace.directory.appendingPathComponent("f.db").path
      try Connection(path: path, readOnly: false, create: false).execute("""
        DROP INDEX items_domain_type_scope; DROP INDEX items_type_domain_scope;
        CREATE INDEX items_domain_scope ON items(indexId, domain, rowid, expiration, protection);
        CREATE INDEX items_type_scope ON items(indexId, contentType, rowid, expiration, protection);
        """)
      let query = #"search contentType == "note" | group by domainIdentifier | count"#
      let first = try workspace.run("query", "--db", "f.db", "--format", "json", "--", query)
      #expect(first.status == 0, "\(first)")
      #expect(first.stderr.contains("upgrading f.db with the indexes items_domain_type_scope, items_type_domain_scope"), "\(first)")
      #expect(first.stdout.contains(#""notes""#), "\(first)")
      let second = try workspace.run("query", "--db", "f.db", "--format", "json", "--", query)
      #expect(second.stderr.isEmpty, "\(second)")
      #expect(Self.withoutTokens(second.stdout) == Self.withoutTokens(first.stdout))
    }
  }

  /// JSON replies without their query tokens (each execution gets its own).
  static func withoutTokens(_ text: String) -> String {
    text.replacingOccurrences(of: #""queryToken":"[^"]*""#, with: "", options: .regularExpression)
  }

  @Test func statsOnAnEmptyFileSaysSoAndLeavesItEmpty() throws {
    try Workspace.with { workspace in
      try workspace.write("empty.db", "")
      let result = try workspace.run("stats", "--db", "empty.db")
      #expect(result.status == 74, "\(result)")
      #expect(result.stderr == "error: 'empty.db' is not a Searchlight index: the file is empty\n")
      #expect(workspace.contents("empty.db") == Data())
      let query = try workspace.run("query", "--db", "empty.db", "*")
      #expect(query.status == 74, "\(query)")
      #expect(workspace.contents("empty.db") == Data())
    }
  }

  @Test func readCommandsOnAMissingFileCreateNothing() throws {
    try Workspace.with { workspace in
      for command in [["query", "--db", "none.db", "*"], ["stats", "--db", "none.db"], ["explain", "--db", "none.db", "*"],
                      ["plan", "--db", "none.db", "hikes"]] {
        let result = try workspace.run(command)
        #expect(result.status == 66, "\(command): \(result)")
        #expect(!workspace.exists("none.db"), "\(command)")
      }
    }
  }

  @Test func processesCreatingOneNewIndexAtOnceAllSucceed() throws {
    try Workspace.with { workspace in
      for number in 0..<4 { try workspace.write("items-\(number).jsonl", #"{"id":"item-\#(number)","attributes":{"title":"Item \#(number)"}}"# + "\n") }
      for trial in 0..<5 {
        let results = Mutex<[CLIResult]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { number in
          let result = try? workspace.run(["index", "--db", "race-\(trial).db", "--index", "shared", "items-\(number).jsonl"])
          results.withLock { $0.append(result ?? CLIResult(status: -1, stdout: "", stderr: "did not run", exitedNormally: false)) }
        }
        for result in results.withLock({ $0 }) { #expect(result.status == 0, "trial \(trial): \(result)") }
        let query = try workspace.run("query", "--db", "race-\(trial).db", "--index", "shared", "--format", "json", "*")
        for number in 0..<4 { #expect(query.stdout.contains(#""id":"item-\#(number)""#), "trial \(trial): \(query)") }
      }
    }
  }
}
