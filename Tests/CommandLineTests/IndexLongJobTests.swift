#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Testing
@testable import SearchIndex

/// Long `index` runs: progress (lines, and the bar on a terminal), `--batch` commits, Ctrl-C
/// and resuming. Interrupts are sent when the run reports progress, never after a sleep.
@Suite struct IndexLongJobTests {
  /// Items in the generated file: enough that a run is still going when its first progress
  /// line has been read and the SIGINT arrives.
  static let itemCount = 10_000

  /// Writes `big.jsonl` with `count` small items.
  func writeItems(_ workspace: Workspace, count: Int = itemCount, name: String = "big.jsonl") throws {
    var text = ""
    text.reserveCapacity(count * 90)
    for number in 0..<count {
      text += #"{"id":"item-\#(number)","domain":"bulk","attributes":{"title":"Item \#(number)","textContent":"word\#(number % 97) bulk text"}}"#
      text += "\n"
    }
    try workspace.write(name, text)
  }

  /// Items stored in the default index of `name`, whatever their visibility.
  func storedCount(_ workspace: Workspace, _ name: String = "index.db") throws -> Int {
    try SearchIndex(path: workspace.path(name), create: false).statistics().items
  }

  /// The number after `kept` in `interrupted: kept 14,000 of 10,000 items; ...`.
  func keptCount(_ stderr: String) -> Int? {
    guard let range = stderr.range(of: "interrupted: kept ") else { return nil }
    let digits = stderr[range.upperBound...].prefix { $0.isNumber || $0 == "," }.filter(\.isNumber)
    return Int(digits)
  }

  /// Runs `searchlight arguments` with standard error on a pipe; sends SIGINT once a line of
  /// standard error satisfies `interruptWhen`, then waits for the exit.
  func runInterrupted(_ workspace: Workspace, _ arguments: [String], interruptWhen: (String) -> Bool) throws -> CLIResult {
    let process = Process()
    process.executableURL = CLI.executable
    process.arguments = arguments
    process.currentDirectoryURL = workspace.directory
    var environment = ProcessInfo.processInfo.environment
    environment["SEARCHLIGHT_DB"] = nil
    environment["NO_COLOR"] = "1"
    process.environment = environment
    let errors = Pipe()
    let output = Pipe()
    process.standardError = errors
    process.standardOutput = output
    process.standardInput = FileHandle.nullDevice
    try process.run()
    var stderr = Data()
    var sent = false
    let reader = errors.fileHandleForReading
    while true {
      let chunk = reader.availableData
      if chunk.isEmpty { break }
      stderr.append(chunk)
      if !sent, String(decoding: stderr, as: UTF8.self).split(separator: "\n").contains(where: { interruptWhen(String($0)) }) {
        kill(process.processIdentifier, SIGINT)
        sent = true
      }
    }
    process.waitUntilExit()
    let stdout = output.fileHandleForReading.readDataToEndOfFile()
    #expect(sent, "no progress line came: \(String(decoding: stderr, as: UTF8.self))")
    return CLIResult(
      status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
      stderr: String(decoding: stderr, as: UTF8.self), exitedNormally: process.terminationReason == .exit)
  }

  @Test func progressLinesShowDoneTotalPercentAndRate() throws {
    try Workspace.with { workspace in
      try writeItems(workspace, count: 5, name: "five.jsonl")
      try workspace.write("notes/a.md", "# A\n\ntext\n")
      try workspace.write("notes/b.txt", "b text\n")
      let result = try workspace.run("index", "--db", "index.db", "--progress", "five.jsonl", "notes")
      #expect(result.status == 0, "\(result)")
      let lines = result.stderr.split(separator: "\n").map(String.init)
      #expect(!lines.isEmpty)
      #expect(lines.allSatisfy { $0.hasPrefix("indexing ") && $0.contains("/7 items, ") }, "\(lines)")
      // The first line comes with the first item; the last is the whole job: 5 lines plus 2 notes.
      #expect(lines.first == "indexing 1/7 items, 14%", "\(lines)")
      #expect(lines.last?.hasPrefix("indexing 7/7 items, 100%") == true, "\(lines)")
      #expect(result.stdout.hasPrefix("indexed 7 items from 3 files; 0 skipped; into "))
    }
  }

  @Test func withoutProgressOrATerminalNothingIsPrinted() throws {
    try Workspace.with { workspace in
      try writeItems(workspace, count: 5, name: "five.jsonl")
      let result = try workspace.run("index", "--db", "index.db", "five.jsonl")
      #expect(result.status == 0)
      #expect(result.stderr == "")
    }
  }

  @Test func aBadBatchSizeIsAUsageError() throws {
    try Workspace.with { workspace in
      try writeItems(workspace, count: 1, name: "one.jsonl")
      for value in ["0", "-3", "many"] {
        let result = try workspace.run("index", "--db", "index.db", "--batch", value, "one.jsonl")
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("'--batch' needs a positive number of items"))
      }
      #expect(!workspace.exists("index.db"))
    }
  }

  @Test func interruptedBatchRunKeepsItsItemsAndARerunResumes() throws {
    try Workspace.with { workspace in
      try writeItems(workspace)
      let arguments = ["index", "--db", "index.db", "--batch", "500", "--progress", "big.jsonl"]
      let result = try runInterrupted(workspace, arguments) { $0.hasPrefix("indexing ") }
      #expect(result.status == 130, "\(result)")
      #expect(result.stderr.contains(" of 10,000 items; rerun to continue\n"), "\(result)")
      let kept = try #require(keptCount(result.stderr), "\(result)")
      #expect(kept > 0 && kept < Self.itemCount)
      #expect(try storedCount(workspace) == kept)
      #expect(result.stdout == "")

      let rerun = try workspace.run(arguments)
      #expect(rerun.status == 0, "\(rerun)")
      #expect(rerun.stdout.hasPrefix("indexed 10000 items from 1 file; 0 skipped; \(kept) unchanged; into index.db"), "\(rerun)")
      #expect(try storedCount(workspace) == Self.itemCount)
    }
  }

  @Test func interruptedRunWithoutBatchKeepsNothingAndSaysSo() throws {
    try Workspace.with { workspace in
      try writeItems(workspace)
      let result = try runInterrupted(workspace, ["index", "--db", "index.db", "--progress", "big.jsonl"]) { $0.hasPrefix("indexing ") }
      #expect(result.status == 130, "\(result)")
      #expect(result.stderr.contains(
        "interrupted: kept 0 of 10,000 items (without --batch the run is one transaction); nothing written\n"), "\(result)")
      // The file was new: nothing of the run is left behind.
      #expect(!workspace.exists("index.db"))
    }
  }

  /// Without a progress meter nothing is counted up front (the count reads every file once
  /// more), but the note of an interrupted run still counts what the run would have read.
  @Test func anInterruptedRunWithoutAMeterStillCountsWhatItWouldHaveRead() throws {
    try Workspace.with { workspace in
      try writeItems(workspace)
      // A malformed first file: its warning is the moment to interrupt.
      try workspace.write("bad.jsonl", "{not json\n")
      let result = try runInterrupted(workspace, ["index", "--db", "index.db", "bad.jsonl", "big.jsonl"]) { $0.hasPrefix("warning: ") }
      #expect(result.status == 130, "\(result)")
      #expect(result.stderr.contains(
        "interrupted: kept 0 of 10,001 items (without --batch the run is one transaction); nothing written\n"), "\(result)")
      #expect(!result.stderr.contains("indexing "), "\(result)")
    }
  }

  @Test func anUnchangedRerunWritesNothing() throws {
    try Workspace.with { workspace in
      try writeItems(workspace, count: 20, name: "twenty.jsonl")
      #expect(try workspace.run("index", "--db", "index.db", "twenty.jsonl").status == 0)
      let generation = try SearchIndex(path: workspace.path("index.db"), create: false).generation()
      let again = try workspace.run("index", "--db", "index.db", "twenty.jsonl")
      #expect(again.stdout.hasPrefix("indexed 20 items from 1 file; 0 skipped; 20 unchanged; into "), "\(again)")
      #expect(try SearchIndex(path: workspace.path("index.db"), create: false).generation() == generation)
      // A changed item is written again.
      try workspace.write("one.jsonl", #"{"id":"item-3","domain":"bulk","attributes":{"title":"Changed"}}"# + "\n")
      let changed = try workspace.run("index", "--db", "index.db", "one.jsonl")
      #expect(changed.stdout.hasPrefix("indexed 1 item from 1 file; 0 skipped; into "), "\(changed)")
      let item = try SearchIndex(path: workspace.path("index.db"), create: false).item(withIdentifier: "item-3")
      #expect(item?.attributeSet["title"] == .string("Changed"))
    }
  }

  @Test func aTerminalShowsAProgressBar() throws {
    try Workspace.with { workspace in
      try writeItems(workspace)
      // The bar shows from the first item (not after a second), so even a fast run draws it.
      let terminal = try PseudoTerminal(
        ["index", "--db", "index.db", "--batch", "1000", "big.jsonl"], in: workspace.directory,
        environment: ["SEARCHLIGHT_PROGRESS_AFTER": "0"])
      #expect(terminal.expect("indexing [------------------------] 1/10,000  0%"))
      #expect(terminal.waitForExit() == 0)
      #expect(terminal.expect("indexed 10000 items from 1 file; 0 skipped; into index.db"))
      // The bar is redrawn in place and cleared before the summary.
      #expect(terminal.rawText.contains("\r\u{1B}[Kindexing ["))
      #expect(terminal.rawText.contains("\r\u{1B}[Kindexed 10000 items"))
    }
  }
}
