@testable import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Testing

/// The `prompted` stage: split off the tool call, run by the session's model over the items
/// of the stage it reads.
@Suite struct PromptedStageTests {
  typealias T = TestSupport
  typealias F = AnswerFixture

  static func call(limit: Int?, prompted: String) -> String {
    let limitField = limit.map { #","limit":\#($0)"# } ?? ""
    return #"{"query":{"type":"search","value":{"pipeline":{"stages":[{"id":"r","kind":{"type":"query","value":{"query":{"type":"allText","value":{"terms":["orion"]}}\#(limitField)}}},"#
      + #"{"id":"s","header":"Action items","kind":{"type":"prompted","value":\#(prompted)}}]}}}}"#
  }

  // MARK: Splitting

  @Test func theStageIsTakenOutAndThePageCoversMaxItems() throws {
    let (arguments, stage) = try #require(try PromptedStage.split(Self.call(limit: 2, prompted: #"{"from":"r","prompt":"List them","processingMode":"reduce","maxItems":7,"parameters":[{"key":"temperature","value":"0.1"}]}"#)))
    #expect(stage.id == "s")
    #expect(stage.label == "Action items")
    #expect(stage.prompt == "List them")
    #expect(stage.reduce)
    #expect(stage.maxItems == 7)
    #expect(stage.options.temperature == 0.1)
    let json = try JSONParser.parse(arguments)
    #expect(json["query"]?["value"]?["pipeline"]?["stages"]?.arrayValue?.count == 1)
    #expect(json["query"]?["value"]?["pageSize"] == 8)
  }

  @Test func callsWithoutAPromptedStageAreLeftAlone() throws {
    #expect(try PromptedStage.split(F.textSearch(["orion"])) == nil)
    #expect(try PromptedStage.split("not json") == nil)
  }

  @Test func mistakesAreReportedAtTheirPath() {
    #expect(throws: ToolCallError(path: "$.query.value.pipeline.stages[1].kind.value.processingMode", message: "unknown processingMode \"fold\"", expected: "map or reduce")) {
      try PromptedStage.split(Self.call(limit: nil, prompted: #"{"from":"r","prompt":"p","processingMode":"fold"}"#))
    }
    let readBy = #"{"query":{"type":"search","value":{"pipeline":{"stages":[{"id":"r","kind":{"type":"query","value":{"query":{"type":"allText","value":{"terms":["orion"]}}}}},{"id":"p","kind":{"type":"prompted","value":{"from":"r","prompt":"x"}}},{"id":"c","kind":{"type":"count","value":{"from":"p"}}}]}}}}"#
    #expect {
      try PromptedStage.split(readBy)
    } throws: { error in
      (error as? ToolCallError)?.path == "$.query.value.pipeline.stages[2]"
    }
  }

  @Test func theSchemaOffersTheStageOnlyWithAPipeline() throws {
    // The model is never called.
    let model = OpenAICompatibleModel(server: ModelServer(baseURL: URL(string: "http://127.0.0.1:9")!), model: "m")
    let complete = try F.session(model: model, guidance: .complete).toolDefinition
    #expect(complete.parameters.compactText.contains(#"{"const":"prompted"}"#) || complete.parameters.compactText.contains(#""enum":["prompted"]"#))
    let focused = try F.session(model: nil, guidance: .focused).toolDefinition
    #expect(!focused.parameters.compactText.contains("prompted"))
  }

  // MARK: Running

  @Test func reduceRunsOnePromptOverAllItemsAsData() async throws {
    let loopback = try LoopbackHTTPServer([
      F.toolCallTurn(id: "call_1", arguments: Self.call(limit: 2, prompted: #"{"from":"r","prompt":"List the action items","processingMode":"reduce"}"#)),
      F.answerTurn(["Pre-stage launch emails; add a CDN canary."]),
      F.answerTurn(["Two action items."]),
    ])
    defer { loopback.stop() }
    let collected = await F.collect(try F.session(model: T.model(loopback), guidance: .complete).streamResponse(to: "orion action items"))
    #expect(collected.text == "Two action items.")
    let requests = loopback.requests
    #expect(requests.count == 3)
    // The reduce call: no tools, the stage's instructions, the prompt, the items fenced.
    #expect(requests[1].json?["tools"] == nil)
    #expect(F.contents(requests[1], role: "system").first == PromptedStage.instructions)
    let user = try #require(F.contents(requests[1], role: "user").first)
    #expect(user.hasPrefix("List the action items\n\n"))
    #expect(user.contains("<data>\nid: "))
    #expect(user.hasSuffix("</data>"))
    // The model reads the stage's output as one more reply.
    let result = try #require(F.contents(requests[2], role: "tool").first)
    #expect(result.contains("## Action items (text)\nList the action items\nPre-stage launch emails; add a CDN canary."))
    let prompted = try #require(collected.replies.last)
    #expect(prompted.stage == "prompted")
    #expect(prompted.content == .text(TextSummary(header: "List the action items", body: "Pre-stage launch emails; add a CDN canary.")))
    #expect(collected.sourceIDs.count == 2)
  }

  @Test func mapRunsThePromptOnEachItem() async throws {
    let loopback = try LoopbackHTTPServer([
      F.toolCallTurn(id: "call_1", arguments: Self.call(limit: 2, prompted: #"{"from":"r","prompt":"One line"}"#)),
      F.answerTurn(["first"]), F.answerTurn(["second"]),
      F.answerTurn(["Done."]),
    ])
    defer { loopback.stop() }
    let collected = await F.collect(try F.session(model: T.model(loopback), guidance: .complete).streamResponse(to: "orion"))
    #expect(loopback.requests.count == 4)
    guard case .table(let table)? = collected.replies.last?.content else {
      Issue.record("expected a table, got \(String(describing: collected.replies.last?.content))")
      return
    }
    #expect(table.columns == ["id", "title", "output"])
    #expect(table.rows.map { $0[2] } == [.string("first"), .string("second")])
    #expect(table.rows.map { $0[0].displayText } == collected.sourceIDs)
  }

  @Test func aFailedPromptIsReportedToTheModel() async throws {
    let loopback = try LoopbackHTTPServer([
      F.toolCallTurn(id: "call_1", arguments: Self.call(limit: 2, prompted: #"{"from":"r","prompt":"p","processingMode":"reduce"}"#)),
      .json(#"{"error":{"code":500,"message":"slot crashed"}}"#, status: 500),
      F.answerTurn(["Without the summary."]),
    ])
    defer { loopback.stop() }
    let collected = await F.collect(try F.session(model: T.model(loopback), guidance: .complete).streamResponse(to: "orion"))
    #expect(F.contents(loopback.requests[2], role: "tool") == ["The prompted stage did not run: model server returned http 500: slot crashed"])
    #expect(collected.notices.isEmpty)
    #expect(collected.summary?.responder == .model("test-model"))
  }

  @Test func moreItemsThanMaxItemsIsAnInBandError() async throws {
    let loopback = try LoopbackHTTPServer([
      F.toolCallTurn(id: "call_1", arguments: Self.call(limit: nil, prompted: #"{"from":"r","prompt":"p","maxItems":2}"#)),
      F.answerTurn(["Nothing."]),
    ])
    defer { loopback.stop() }
    let collected = await F.collect(try F.session(model: T.model(loopback), guidance: .complete).streamResponse(to: "orion"))
    #expect(loopback.requests.count == 2)
    let error = try #require(F.contents(loopback.requests[1], role: "tool").first)
    #expect(error.contains("invalid tool call at $.query.value.pipeline.stages[1].kind.value.maxItems: the prompted stage would read more than 2 items"))
    #expect(collected.replies.isEmpty)
    #expect(collected.text == AnswerInstructions.notFound)
  }
}
