import Foundation
import SearchIndex
import SearchlightTestSupport
import Testing

/// `searchlight plan` end to end: the binary built next to this test bundle, over an index of
/// the bundled samples made with `searchlight index`.
@Suite(.serialized) struct PlannerCommandTests {
  private final class BundleToken {}

  static let binary: URL = {
    if let override = ProcessInfo.processInfo.environment["SEARCHLIGHT_BINARY"], !override.isEmpty {
      return URL(fileURLWithPath: override)
    }
    let bundle = Bundle(for: BundleToken.self).bundleURL
    let candidates = [
      URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("searchlight"),
      bundle.appendingPathComponent("searchlight"),
      bundle.deletingLastPathComponent().appendingPathComponent("searchlight"),
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
  }()

  /// Runs the binary; returns the exit status, stdout and stderr.
  static func run(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
    let process = Process()
    process.executableURL = binary
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["SEARCHLIGHT_DB"] = nil
    environment["SEARCHLIGHT_NOW"] = nil
    environment["TZ"] = "UTC"
    environment["NO_COLOR"] = "1"
    process.environment = environment
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plan-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let outURL = folder.appendingPathComponent("out")
    let errURL = folder.appendingPathComponent("err")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let out = try FileHandle(forWritingTo: outURL)
    let err = try FileHandle(forWritingTo: errURL)
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    try out.close()
    try err.close()
    return (process.terminationStatus, String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
  }

  /// An index of the samples, made once.
  static let database: String = {
    let path = TemporaryFiles.database("plan-cli")
    let samples = SampleIndex.samples
    _ = try? run(["index", "--db", path] + ["trails.jsonl", "notes.jsonl", "notes-folder"].map { samples.appendingPathComponent($0).path })
    return path
  }()

  static let now = "2026-11-29T12:00:00Z"

  @Test func printsTheQueryThenWhatWasUnderstood() throws {
    let result = try Self.run(["plan", "--db", Self.database, "--now", Self.now, "how many hikes did I complete in California this year"])
    #expect(result.status == 0, "\(result.err)")
    let lines = result.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    #expect(lines.first == #"search contentType == "trail" && stateOrProvince == "California"cd && completionDate == $time.this_year | count"#)
    #expect(lines.contains(#"items: search contentType == "trail" && stateOrProvince == "California"cd && completionDate == $time.this_year"#))
    #expect(lines.contains("understood (count):"))
    #expect(lines.contains("  - \u{201C}this year\u{201D} -> completionDate in [2026-01-01, 2027-01-01)"))
    // The first line runs as it is.
    let query = try Self.run(["query", "--db", Self.database, "--now", Self.now, "--format", "json", lines[0]])
    #expect(query.status == 0)
    #expect(query.out.contains(#""content":{"type":"count","count":5}"#))
  }

  @Test func jsonCarriesTheQuestionQueryNotesAndToolCall() throws {
    let result = try Self.run(["plan", "--db", Self.database, "--now", Self.now, "--format", "json", "--", "notes from last week"])
    #expect(result.status == 0, "\(result.err)")
    let object = try #require(try JSONParser.parse(result.out).objectValue)
    #expect(object["question"]?.stringValue == "notes from last week")
    #expect(object["dsl"]?.stringValue == #"search contentType == "note" && contentModificationDate == $time.last_week | sort contentModificationDate desc"#)
    #expect(object["notes"]?.arrayValue?.compactMap(\.stringValue).contains(
      "\u{201C}from last week\u{201D} -> contentModificationDate in [2026-11-16, 2026-11-23)") == true)
    #expect(object["intent"]?.stringValue == "list")
    #expect(object["toolCall"]?.objectValue?["query"] != nil)
  }

  @Test func theTimeZoneComesFromTZ() throws {
    var result = try Self.run(["plan", "--db", Self.database, "--now", "2026-11-29T12:00:00Z", "what changed yesterday"])
    #expect(result.out.contains("[2026-11-28, 2026-11-29)"))
    let process = ["plan", "--db", Self.database, "--now", "2026-11-29T12:00:00Z", "what changed yesterday"]
    result = try Self.runWith(tz: "Pacific/Kiritimati", process)
    #expect(result.out.contains("[2026-11-29, 2026-11-30)"), "\(result.out)")
  }

  static func runWith(tz: String, _ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
    let process = Process()
    process.executableURL = binary
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["TZ"] = tz
    environment["SEARCHLIGHT_NOW"] = nil
    process.environment = environment
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self), "")
  }

  @Test func usageErrors() throws {
    let missing = try Self.run(["plan", "--db", Self.database])
    #expect(missing.status == 64)
    #expect(missing.err.contains("missing QUESTION"))
    let format = try Self.run(["plan", "--db", Self.database, "--format", "xml", "hello"])
    #expect(format.status == 64)
    let noIndex = try Self.run(["plan", "--db", "/nonexistent/x.db", "hello"])
    #expect(noIndex.status == 66)
    let help = try Self.run(["plan", "--help"])
    #expect(help.status == 0 && help.out.contains("USAGE: searchlight plan --db FILE"))
    let list = try Self.run(["--help"])
    #expect(list.out.contains("plan "))
  }
}
