import Foundation
import Testing
@testable import SearchIndex

/// Hostile queries through the real binary: a clean exit with a clear message, never a signal.
@Suite struct QueryLimitCommandTests {
  @Test func aFlatOrOfTenThousandWordsRuns() throws {
    let words = (0..<9_999).map { "\"w\($0)\"" }.joined(separator: " || ") + " || \"granite\""
    let result = try runOnSamples("query", ["--format", "json", "--", words])
    #expect(result.exitedNormally)
    #expect(result.status == 0, "\(result.stderr.prefix(300))")
    let lines = try result.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
    #expect(!itemIDs(lines).isEmpty)
  }

  @Test func deepArithmeticIsAQueryErrorNamingTheLimit() throws {
    let chain = "rating > " + Array(repeating: "1", count: 5_000).joined(separator: " - ")
    let result = try runOnSamples("query", ["--", chain])
    #expect(result.exitedNormally)
    #expect(result.status == 65)
    #expect(result.stderr.hasPrefix("error: the query is nested too deeply (more than 256 levels)\n --> query:1:"), "\(result.stderr.prefix(300))")
  }

  @Test func aNumberBeyondADoubleIsAQueryErrorWithItsPosition() throws {
    let result = try runOnSamples("query", ["--format", "json", "--", "rating > 1e999999"])
    #expect(result.status == 65)
    let error = try JSONParser.parse(result.stderr.trimmingCharacters(in: .newlines))["error"]
    #expect(error?["message"] == "the number '1e999999' is too large")
    #expect(error?["line"] == 1)
    #expect(error?["column"] == 10)
  }

  @Test func toolCallWithTooManyChildrenIsRefusedInBand() throws {
    let children = (0..<1_001).map { #"{"type":"predicate","value":{"attribute":"title","operator":"equals","value":{"type":"string","value":"w\#($0)"}}}"# }
    let call = #"{"query":{"type":"search","value":{"root":{"type":"operation","value":{"logic":"any","children":["# + children.joined(separator: ",") + "]}}}}}"
    let result = try runOnSamples("tool-call", ["--", call])
    #expect(result.exitedNormally)
    #expect(result.status == 65, "\(result.stderr.prefix(300))")
    #expect((result.stdout + result.stderr).contains("the query has more than 1000 comparisons and calls"))
  }
}
