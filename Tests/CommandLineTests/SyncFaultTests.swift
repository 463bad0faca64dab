import Foundation
import SearchIndex
import SearchlightTestSupport
import Testing

/// Crash safety of `searchlight sync`: killed with SIGKILL at moments drawn from a seeded
/// generator while applying thousands of changes, the next sync leaves the index equal to the
/// folder. The seed is fixed (SEARCHLIGHT_TEST_SEED overrides it) and named in every failure, so
/// a failing run can be repeated.
@Suite(.serialized) struct SyncFaultTests {
  static let seed = ProcessInfo.processInfo.environment["SEARCHLIGHT_TEST_SEED"].flatMap(UInt64.init) ?? 23

  static func note(_ n: Int, revision: Int) -> String {
    "---\ntitle: Note \(n) r\(revision)\nkeywords: [k\(n % 7), shared]\nrating: \(n % 5)\n---\nBody of note \(n), revision \(revision). " + String(repeating: "word\(n % 13) ", count: 20) + "\n"
  }

  func write(_ folder: URL, _ name: String, _ text: String) throws {
    let url = folder.appendingPathComponent(name)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
  }

  /// Items by id with their canonical JSON, without the file URL (it names the folder).
  func contents(_ path: String) throws -> [String: String] {
    let index = try SearchIndex(path: path, create: false)
    return Dictionary(uniqueKeysWithValues: try index.allItems().map { item in
      var copy = item
      copy.attributeSet["contentURL"] = nil
      return (item.uniqueIdentifier, JSONValue.object(copy.jsonObject).compactText)
    })
  }

  func startSync(_ workspace: Workspace, db: String, batch: Int) throws -> Process {
    let process = Process()
    process.executableURL = CLI.executable
    process.arguments = ["sync", "--db", db, "--folder", "notes", "--batch", String(batch)]
    process.currentDirectoryURL = workspace.directory
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    return process
  }

  @Test func killingSyncAtRandomMomentsNeverLosesOrDuplicatesWork() throws {
    try Workspace.with { workspace in
      let folder = workspace.directory.appendingPathComponent("notes")
      for n in 0..<800 { try write(folder, "n\(n).md", Self.note(n, revision: 0)) }
      #expect(try workspace.run("sync", "--db", "i.db", "--folder", "notes").status == 0)
      // A few thousand changes: edits, deletes and inserts.
      for n in stride(from: 0, to: 800, by: 2) { try write(folder, "n\(n).md", Self.note(n, revision: 1)) }
      for n in stride(from: 1, to: 800, by: 5) { try FileManager.default.removeItem(at: folder.appendingPathComponent("n\(n).md")) }
      for n in 800..<1400 { try write(folder, "new/n\(n).md", Self.note(n, revision: 0)) }
      var generator = SplitMix64(seed: Self.seed)
      var killed = 0
      for attempt in 0..<10 {
        let process = try startSync(workspace, db: "i.db", batch: 40)
        // The first kill comes early, while the whole backlog is still being applied.
        usleep(attempt == 0 ? 2_000 : UInt32.random(in: 2_000...150_000, using: &generator))
        if process.isRunning {
          kill(process.processIdentifier, SIGKILL)
          killed += 1
        }
        process.waitUntilExit()
      }
      #expect(killed > 0, "at least one sync was killed mid-way (seed \(Self.seed))")
      let finish = try workspace.run("sync", "--db", "i.db", "--folder", "notes")
      #expect(finish.status == 0, "\(finish)")
      // The reference: a fresh index of the same folder.
      #expect(try workspace.run("sync", "--db", "fresh.db", "--folder", "notes").status == 0)
      let synced = try contents(workspace.path("i.db"))
      let fresh = try contents(workspace.path("fresh.db"))
      #expect(synced.count == fresh.count)
      #expect(Set(synced.keys) == Set(fresh.keys), "no orphan and no missing item")
      #expect(synced == fresh, "every item has the source's values (seed \(Self.seed))")
      let check = try workspace.run("check", "--db", "i.db")
      #expect(check.status == 0, "\(check)")
    }
  }

  @Test func aReaderDuringSyncSeesWholeBatchesAndNeverErrors() throws {
    try Workspace.with { workspace in
      let folder = workspace.directory.appendingPathComponent("notes")
      for n in 0..<1000 { try write(folder, "n\(n).md", Self.note(n, revision: 0)) }
      #expect(try workspace.run("index", "--db", "i.db", "-", stdin: "").status == 0)
      let reader = try SearchIndex(path: workspace.path("i.db"), create: false)
      let process = try startSync(workspace, db: "i.db", batch: 25)
      var observations = Set<Int>()
      var errors = 0
      while process.isRunning {
        do {
          let count = try reader.statistics().items
          observations.insert(count)
          if count % 25 != 0 && count != 1000 { Issue.record("a reader saw \(count) items: half a batch") }
        } catch {
          errors += 1
        }
      }
      process.waitUntilExit()
      #expect(process.terminationStatus == 0)
      #expect(errors == 0)
      #expect(try reader.statistics().items == 1000)
      #expect(observations.count >= 1)
    }
  }

  @Test func aFullDiskFailsWithExit74WritesNothingAndTheIndexStillAnswers() throws {
    try withMiniIndex { workspace in
      let big = String(repeating: "lorem ipsum dolor sit amet ", count: 20_000)
      try workspace.write("big.jsonl", #"{"id":"big","attributes":{"title":"Big","textContent":"\#(big)"}}"# + "\n")
      let before = try contents(workspace.path("index.db"))
      let pages = try SearchIndex(path: workspace.path("index.db"), create: false).pageCount()
      let result = try workspace.run(["index", "--db", "index.db", "big.jsonl"], environment: ["SEARCHLIGHT_MAX_PAGES": String(pages + 2)])
      #expect(result.status == 74, "\(result)")
      #expect(result.stderr.hasPrefix("error: the disk is full"))
      #expect(try contents(workspace.path("index.db")) == before)
      let query = try workspace.run("query", "--db", "index.db", "--format", "json", "*")
      #expect(query.status == 0, "\(query)")
      #expect(try workspace.run("check", "--db", "index.db").status == 0)
    }
  }

  /// Runs chattr, which makes a file read-only even for root (who ignores permissions).
  static func chattr(_ flag: String, _ path: String) -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["chattr", flag, path]
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
  }

  /// Whether this machine can make a file read-only for this user.
  static let canMakeFilesReadOnly: Bool = {
    if geteuid() != 0 { return true }
    let probe = FileManager.default.temporaryDirectory.appendingPathComponent("ro-\(UUID().uuidString)").path
    _ = FileManager.default.createFile(atPath: probe, contents: Data("x".utf8))
    defer { _ = chattr("-i", probe); try? FileManager.default.removeItem(atPath: probe) }
    return chattr("+i", probe) && access(probe, W_OK) != 0
  }()

  @Test(.enabled(if: canMakeFilesReadOnly, "root ignores file permissions and chattr is unavailable"))
  func aReadOnlyIndexFailsWithExit74AndStillAnswers() throws {
    try withMiniIndex { workspace in
      try workspace.write("more.jsonl", #"{"id":"m","attributes":{"title":"More"}}"# + "\n")
      let path = workspace.path("index.db")
      chmod(path, 0o444)
      if geteuid() == 0 { _ = Self.chattr("+i", path) }
      defer {
        if geteuid() == 0 { _ = Self.chattr("-i", path) }
        chmod(path, 0o644)
      }
      let result = try workspace.run("index", "--db", "index.db", "more.jsonl")
      #expect(result.status == 74, "\(result)")
      #expect(result.stderr.hasPrefix("error: "))
      #expect(result.stderr.contains("read-only"))
      let query = try workspace.run("query", "--db", "index.db", "--format", "json", "*")
      #expect(query.status == 0, "\(query)")
    }
  }
}
