import Foundation
import SearchIndex
import SearchlightTestSupport
import Testing

/// `searchlight eval --fixtures … --model-url …`: the fixture questions answered by a model
/// (a loopback server that never calls the tool and invents a place), with the grounding score.
@Suite struct EvalModelAnswerTests {
  typealias A = AskCommandTests

  static let fixtures = """
    {"id":"q1","question":"orion retrospective","expectedIdentifiers":["note-52"]}
    {"id":"q2","question":"what went wrong at the Orion launch?","expectedIdentifiers":["note-52"]}
    """

  @Test func modelAnswersReportTheirGroundingScore() throws {
    let loopback = try LoopbackHTTPServer(responder: { request in
      // The run without --model asks the server which model it has.
      if request.path == "/v1/models" { return .json(#"{"data":[{"id":"smol"}]}"#) }
      return A.events([A.text("See the Orion launch retrospective."), A.text(" It happened at Yosemite Falls."), A.finish("stop")])
    })
    defer { loopback.stop() }
    try Workspace.with { workspace in
      try workspace.write("fixtures.jsonl", Self.fixtures)
      let result = try workspace.run(
        ["eval", "--db", A.db, "--fixtures", "fixtures.jsonl", "--model-url", loopback.baseURL.absoluteString, "--model", "m",
         "--format", "json", "--details"] + A.now)
      #expect(result.status == 0, "\(result)")
      let answers = try #require(try JSONParser.parse(result.stdout)["modelAnswers"], "\(result)")
      #expect(answers["model"] == "m")
      #expect(answers["questions"] == 2)
      #expect(answers["answeredByModel"] == 2)
      // Each answer: one supported sentence and one naming a place no source has.
      #expect(answers["checkedSentences"] == 4)
      #expect(answers["unsupportedSentences"] == 2)
      #expect(answers["grounding"] == 0.5)
      #expect(answers["cut"] == 0)
      #expect(answers["details"]?.arrayValue?.first?["unsupported"] == ["It happened at Yosemite Falls."])

      let table = try workspace.run(
        ["eval", "--db", A.db, "--fixtures", "fixtures.jsonl", "--model-url", loopback.baseURL.absoluteString] + A.now)
      #expect(table.status == 0, "\(table)")
      #expect(table.stdout.contains("Model answers: 2 questions (model smol)\n  answered by the model 2 of 2\n  grounding             0.5000  (2 of 4 sentences supported)\n"), "\(table)")
    }
  }

  @Test func aModelNeedsFixtures() throws {
    try Workspace.with { workspace in
      let result = try workspace.run(["eval", "--db", A.db, "--queries", "q.jsonl", "--qrels", "r.tsv", "--model-url", "http://127.0.0.1:9"])
      #expect(result.status == 64, "\(result)")
      #expect(result.stderr.hasPrefix("error: --model-url goes with --fixtures"), "\(result)")
    }
  }
}
