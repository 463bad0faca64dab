import Foundation
import SearchIndex
import SearchlightTestSupport
import Testing

/// What the client costs while it waits on a slow server: the real binary against a loopback
/// server that sends a token every 200 ms (or an embeddings answer after 5 s), with the CPU
/// time the kernel charged to the child process set against the wall time.
///
/// A client that blocks in poll(2) uses well under 5 % here (measured: 0.09 s of CPU over a
/// 10.9 s answer); the URLSession client it replaced spun at 70–95 %. The bound is loose so a
/// loaded machine cannot trip it, and still far below a spinning client.
@Suite struct WaitingCostTests {
  static let now = ["--now", "2026-11-29T12:00:00Z"]
  /// Generous against scheduling noise and the process's own start-up; a spinning client
  /// sits near 100 %.
  static let maximumCPUShare = 0.25

  static func text(_ piece: String) -> String {
    #"{"choices":[{"index":0,"delta":{"content":\#(JSONValue.string(piece).compactText)},"finish_reason":null}]}"#
  }

  static let searchCall = #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"search_items","arguments":"{\"query\":{\"type\":\"search\",\"value\":{\"root\":{\"type\":\"allText\",\"value\":{\"terms\":[\"orion\",\"retrospective\"]}}}}}"}}]},"finish_reason":null}]}"#

  @Test func askWaitingOnASlowStreamCostsAlmostNoCPU() throws {
    let words = (1...25).map { "word\($0) " }
    var slow = ScriptedResponse(headers: [("Content-Type", "text/event-stream")])
    for word in words {
      slow.steps += [.pause(.milliseconds(200)), .write(Data("data: \(Self.text(word))\n\n".utf8))]
    }
    slow.steps.append(.write(Data("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n".utf8)))
    let loopback = try LoopbackHTTPServer([
      .events([Self.searchCall, #"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#, "[DONE]"]),
      slow,
    ])
    defer { loopback.stop() }
    let run = try MeasuredProcess.run(
      MeasuredProcess.searchlight,
      ["ask", "--db", SampleIndex.shared.path, "--model-url", loopback.baseURL.absoluteString, "--model", "m", "--grounding", "off"] + Self.now
        + ["orion retrospective"],
      environment: ["NO_COLOR": "1"])
    #expect(run.status == 0, "\(run)")
    #expect(run.stdout.hasPrefix(words.joined()), "\(run)")
    // It did wait: 25 pauses of 200 ms.
    #expect(run.wall >= .seconds(5), "\(run)")
    #expect(run.cpuShare < Self.maximumCPUShare, "\(run)")
  }

  @Test func embeddingsWaitingOnASlowEndpointCostsAlmostNoCPU() throws {
    let endpoint = try EmbeddingsEndpoint(dimensions: 16, delay: .seconds(5))
    defer { endpoint.stop() }
    try Workspace.with { workspace in
      try workspace.write("items.jsonl", #"{"id":"a","domain":"notes","attributes":{"title":"Waterfall hike","textContent":"Mist trail."}}"#)
      #expect(try workspace.run("index", "--db", "index.db", "items.jsonl").status == 0)
      let run = try MeasuredProcess.run(
        MeasuredProcess.searchlight,
        ["embeddings", "--db", workspace.path("index.db"), "--url", endpoint.url.absoluteString, "--model", "hash"])
      #expect(run.status == 0, "\(run)")
      #expect(run.stdout.hasPrefix("embedded 1 item"), "\(run)")
      #expect(run.wall >= .seconds(5), "\(run)")
      #expect(run.cpuShare < Self.maximumCPUShare, "\(run)")
    }
  }
}
