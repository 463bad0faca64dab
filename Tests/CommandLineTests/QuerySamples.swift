import Foundation
import Testing
@testable import SearchIndex

/// The bundled sample data.
let samplesFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  .appendingPathComponent("Sources/searchlight/Samples")

/// A folder holding `index.db` with the samples, indexed once per test run by the binary
/// itself and only read by the query tests; removed when the tests exit.
let sampleFolder = FileManager.default.temporaryDirectory.appendingPathComponent("searchlight-cli-samples-\(UUID().uuidString)")

/// The sample index file.
let sampleDatabase: String = {
  try! FileManager.default.createDirectory(at: sampleFolder, withIntermediateDirectories: true)
  let result = try! CLI.run(
    ["index", "--db", "index.db"] + ["trails.jsonl", "notes.jsonl", "notes-folder"].map { samplesFolder.appendingPathComponent($0).path },
    in: sampleFolder)
  precondition(result.status == 0, "\(result)")
  atexit { try? FileManager.default.removeItem(at: sampleFolder) }
  return sampleFolder.appendingPathComponent("index.db").path
}()

/// The fixed clock of the samples.
let sampleNow = "2026-11-29T12:00:00Z"

/// Runs a query command (`query`, `explain`) against the samples with the fixed clock and
/// UTC, unless `environment` says otherwise.
func runOnSamples(_ command: String, _ arguments: [String], environment: [String: String] = [:]) throws -> CLIResult {
  try CLI.run([command, "--db", sampleDatabase, "--now", sampleNow] + arguments, in: sampleFolder,
              environment: ["TZ": "UTC"].merging(environment) { $1 })
}

/// The JSON Lines of a successful `query --format json`.
func jsonLines(_ arguments: [String], environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation) throws -> [JSONValue] {
  let result = try runOnSamples("query", ["--format", "json"] + arguments, environment: environment)
  #expect(result.status == 0, "\(result)", sourceLocation: sourceLocation)
  #expect(result.stderr == "", sourceLocation: sourceLocation)
  #expect(result.stdout.hasSuffix("\n"), sourceLocation: sourceLocation)
  return try result.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
}

/// The identifiers of the items in JSON replies.
func itemIDs(_ replies: [JSONValue]) -> [String] {
  replies.flatMap { $0["content"]?["items"]?.arrayValue ?? [] }.compactMap { ($0["item"] ?? $0)["id"]?.stringValue }
}
