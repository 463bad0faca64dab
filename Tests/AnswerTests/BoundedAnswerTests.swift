import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Testing

/// A model's answer stays bounded and grounded: the token limit it is sent, the repetition
/// guard, the notes of a cut answer, the grounding check of its sentences, and what small
/// models get wrong about tool calls. Scripted streams on the loopback server.
@Suite struct BoundedAnswerTests {
  typealias T = TestSupport
  typealias F = AnswerFixture

  static let orion = F.textSearch(["orion", "retrospective"])

  static func cuts(_ collected: F.Collected) -> [AnswerCut] {
    collected.events.compactMap { if case .cut(let cut) = $0 { cut } else { nil } }
  }

  static func unsupported(_ collected: F.Collected) -> [UnsupportedSentence] {
    collected.events.compactMap { if case .unsupported(let sentence) = $0 { sentence } else { nil } }
  }

  // MARK: Bounds

  @Test func everyTurnAsksForAtMostTheTokenLimit() async throws {
    let loopback = try LoopbackHTTPServer([F.toolCallTurn(id: "call_1", arguments: Self.orion), F.answerTurn(["See the retrospective."])])
    defer { loopback.stop() }
    _ = await F.collect(try F.session(model: T.model(loopback)).streamResponse(to: "orion retrospective"))
    #expect(loopback.requests.map { $0.json?["max_tokens"] } == [512, 512])

    let custom = try LoopbackHTTPServer([F.answerTurn(["Orion."]), F.answerTurn(["Orion."])])
    defer { custom.stop() }
    _ = await F.collect(try F.session(model: T.model(custom)) { $0.generation.maxTokens = 64 }.streamResponse(to: "orion"))
    #expect(custom.requests.first?.json?["max_tokens"] == 64)
  }

  @Test func anAnswerStoppedAtTheTokenLimitSaysSo() async throws {
    let loopback = try LoopbackHTTPServer([
      F.toolCallTurn(id: "call_1", arguments: Self.orion),
      .events([T.textChunk("The retrospective lists"), T.finishChunk("length"), T.usageChunk, "[DONE]"]),
    ])
    defer { loopback.stop() }
    let collected = await F.collect(try F.session(model: T.model(loopback)).streamResponse(to: "orion retrospective"))
    #expect(collected.text == "The retrospective lists")
    #expect(collected.notices == ["the answer was cut at the token limit (512 tokens)"])
    #expect(Self.cuts(collected) == [AnswerCut(reason: .length, limit: 512)])
    #expect(collected.summary?.cut == AnswerCut(reason: .length, limit: 512))
    #expect(collected.summary?.usage == TokenUsage(promptTokens: 12, completionTokens: 3, totalTokens: 15))
    // The cut event follows the notice that says it in words.
    let notice = try #require(collected.events.firstIndex { if case .notice = $0 { true } else { false } })
    let cut = try #require(collected.events.firstIndex { if case .cut = $0 { true } else { false } })
    #expect(notice + 1 == cut)
  }

  @Test func aLoopingAnswerIsStoppedWithoutWaitingForTheServer() async throws {
    var looping = ScriptedResponse.events(Array(repeating: T.textChunk("The Orion launch retrospective lists action items.\n"), count: 12))
    // The server would go on for minutes: only the client stopping ends this test quickly.
    looping.steps += [.pause(.seconds(300)), .write(Data("data: \(T.finishChunk("stop"))\n\ndata: [DONE]\n\n".utf8))]
    let loopback = try LoopbackHTTPServer([F.toolCallTurn(id: "call_1", arguments: Self.orion), looping])
    defer { loopback.stop() }
    let collected = await F.collect(try F.session(model: T.model(loopback)).streamResponse(to: "orion retrospective"))
    #expect(collected.error == nil)
    #expect(collected.text == String(repeating: "The Orion launch retrospective lists action items.\n", count: 3))
    #expect(collected.notices == ["the answer was cut: the model started repeating itself"])
    #expect(Self.cuts(collected) == [AnswerCut(reason: .repetition)])
    #expect(collected.summary?.sourceIDsForTest == ["note-52"])
    #expect(await loopback.clientHungUp.wait(timeout: TestGate.patience))
  }

  @Test func theGuardCanBeTurnedOff() async throws {
    let loopback = try LoopbackHTTPServer([
      F.toolCallTurn(id: "call_1", arguments: Self.orion),
      F.answerTurn(Array(repeating: "Orion launch retrospective action items.\n", count: 4)),
    ])
    defer { loopback.stop() }
    let collected = await F.collect(
      try F.session(model: T.model(loopback)) { $0.stopsRepetition = false }.streamResponse(to: "orion retrospective"))
    #expect(collected.text == String(repeating: "Orion launch retrospective action items.\n", count: 4))
    #expect(Self.cuts(collected).isEmpty)
  }

  @Test func aStallInTheMiddleOfTheAnswerIsATimeoutCut() async throws {
    var stalled = ScriptedResponse.events([T.textChunk("The retrospective")])
    stalled.steps.append(.pause(.seconds(120)))
    let loopback = try LoopbackHTTPServer([F.toolCallTurn(id: "call_1", arguments: Self.orion), stalled])
    defer { loopback.stop() }
    let server = T.server(loopback, idleTimeout: .seconds(1))
    let collected = await F.collect(
      try F.session(model: OpenAICompatibleModel(server: server, model: "m")).streamResponse(to: "orion retrospective"))
    #expect(collected.text == "The retrospective")
    #expect(collected.notices == ["the answer was cut short: model server sent nothing for 1s in the middle of a response"])
    #expect(Self.cuts(collected) == [AnswerCut(reason: .timeout)])
  }

  // MARK: Grounding

  static let answer = ["The Orion launch got 1,900 sign-ups.", " It was held at Yosemite Falls.", " Kenji adds a canary."]

  static func answered(_ grounding: GroundingMode, pieces: [String] = answer) async throws -> F.Collected {
    let loopback = try LoopbackHTTPServer([F.toolCallTurn(id: "call_1", arguments: Self.orion), F.answerTurn(pieces)])
    defer { loopback.stop() }
    return await F.collect(try F.session(model: T.model(loopback)) { $0.grounding = grounding }.streamResponse(to: "orion retrospective"))
  }

  @Test func flaggedSentencesAreReportedRightAfterTheirTextWhichStaysUnchanged() async throws {
    let collected = try await Self.answered(.flag)
    #expect(collected.text == Self.answer.joined())
    #expect(collected.textPieces == Self.answer)
    let flagged = UnsupportedSentence(sentence: "It was held at Yosemite Falls.", missing: ["Yosemite", "Falls"], dropped: false)
    #expect(Self.unsupported(collected) == [flagged])
    #expect(collected.summary?.unsupported == [flagged])
    let kinds = collected.events.compactMap { event -> String? in
      switch event {
      case .text(let piece): piece
      case .unsupported: "<unsupported>"
      default: nil
      }
    }
    #expect(kinds == [Self.answer[0], Self.answer[1], "<unsupported>", Self.answer[2]])
    #expect(collected.notices.isEmpty)
  }

  @Test func strictGroundingLeavesUnsupportedSentencesOutWithANote() async throws {
    let collected = try await Self.answered(.strict)
    #expect(collected.text == "The Orion launch got 1,900 sign-ups. Kenji adds a canary.")
    #expect(Self.unsupported(collected).map(\.dropped) == [true])
    #expect(collected.notices == ["left out 1 sentence of the model's answer that the sources do not support"])
  }

  @Test func strictGroundingWithNothingLeftDescribesWhatCameBack() async throws {
    let collected = try await Self.answered(.strict, pieces: ["It was held at Yosemite Falls on 3 March."])
    #expect(collected.text.hasPrefix("Found 1 item:\n- Orion launch retrospective (2026-07-09): "))
    #expect(Self.unsupported(collected).map(\.missing) == [["Yosemite", "Falls", "3", "March"]])
  }

  @Test func groundingOffChecksNothing() async throws {
    let collected = try await Self.answered(.off)
    #expect(collected.text == Self.answer.joined())
    #expect(Self.unsupported(collected).isEmpty)
  }

  // MARK: Tool calls from small models

  static let malformed = #"{"query": {"type": "search", "value": {"root": "#

  @Test func aMalformedCallIsAnsweredInBandAndTheRetryRuns() async throws {
    let loopback = try LoopbackHTTPServer([
      F.toolCallTurn(id: "bad", arguments: Self.malformed),
      F.toolCallTurn(id: "good", arguments: Self.orion),
      F.answerTurn(["See the Orion launch retrospective."]),
    ])
    defer { loopback.stop() }
    let collected = await F.collect(try F.session(model: T.model(loopback)).streamResponse(to: "orion retrospective"))
    let error = try #require(F.contents(loopback.requests[1], role: "tool").first)
    #expect(error.hasPrefix("The tool call was invalid and did not run. Correct it and call again."))
    #expect(collected.sourceIDs == ["note-52"])
    #expect(collected.text == "See the Orion launch retrospective.")
    #expect(collected.summary?.toolRounds == 2)
  }

  @Test func aSecondMalformedCallGetsThePlannedSearchInstead() async throws {
    let loopback = try LoopbackHTTPServer([
      F.toolCallTurn(id: "bad_1", arguments: Self.malformed),
      F.toolCallTurn(id: "bad_2", arguments: Self.malformed),
      F.answerTurn(["See the Orion launch retrospective."]),
    ])
    defer { loopback.stop() }
    let collected = await F.collect(try F.session(model: T.model(loopback)).streamResponse(to: "orion retrospective"))
    #expect(loopback.requests.count == 3)
    let third = F.messages(loopback.requests[2])
    #expect(third.compactMap { $0["role"]?.stringValue } == ["system", "user", "assistant", "tool", "assistant", "tool", "assistant", "tool"])
    #expect(third[6]["tool_calls"]?.arrayValue?.first?["id"] == "planned_search")
    #expect(third[7]["content"]?.stringValue?.contains("id: note-52") == true)
    #expect(collected.sourceIDs.contains("note-52"))
    #expect(collected.text == "See the Orion launch retrospective.")
  }

  @Test func anAnswerWithoutACallIsGroundedByThePlannedSearch() async throws {
    // The first answer is never shown (nothing backs it); the second rests on the planned
    // search and is checked against what it found.
    let loopback = try LoopbackHTTPServer([
      F.answerTurn(["Orion launched at Yosemite Falls."]),
      F.answerTurn(["Orion got 1,900 sign-ups.", " It launched at Yosemite Falls."]),
    ])
    defer { loopback.stop() }
    let collected = await F.collect(try F.session(model: T.model(loopback)).streamResponse(to: "orion retrospective"))
    #expect(collected.summary?.toolRounds == 0)
    #expect(collected.sourceIDs.contains("note-52"))
    #expect(collected.text == "Orion got 1,900 sign-ups. It launched at Yosemite Falls.")
    #expect(Self.unsupported(collected).map(\.missing) == [["Yosemite", "Falls"]])
  }
}

extension AnswerSummary {
  var sourceIDsForTest: [String] { sources.map(\.id) }
}
