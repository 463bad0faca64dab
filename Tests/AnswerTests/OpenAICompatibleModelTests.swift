import Foundation
import Assistant
import SearchIndex
import SearchlightTestSupport
import Testing

/// `OpenAICompatibleModel` against the loopback server: streaming, tool calls, what is
/// sent, retries, timeouts and cancellation.
@Suite struct OpenAICompatibleModelTests {
  typealias T = TestSupport

  // MARK: Streaming

  @Test func streamedDeltasArriveBeforeTheStreamEnds() async throws {
    let clientSawFirstDelta = TestGate()
    let serverSendingRest = TestGate()
    var response = ScriptedResponse.events([T.textChunk("Hel")])
    response.steps += [.waitFor(clientSawFirstDelta), .open(serverSendingRest)]
    response.steps += [T.textChunk("lo"), T.textChunk(" world"), T.finishChunk("stop"), "[DONE]"]
      .map { .write(Data("data: \($0)\n\n".utf8)) }
    let loopback = try LoopbackHTTPServer([response])
    defer { loopback.stop() }

    var events: [ModelEvent] = []
    var restWasSentBeforeFirstDelta: Bool?
    for try await event in T.model(loopback).stream(messages: T.user) {
      if case .textDelta = event, restWasSentBeforeFirstDelta == nil {
        // The server holds the rest of the body until this gate opens, so seeing
        // the delta now proves it was delivered while the response was still open.
        restWasSentBeforeFirstDelta = serverSendingRest.isOpen
        clientSawFirstDelta.open()
      }
      events.append(event)
    }
    #expect(restWasSentBeforeFirstDelta == false)
    #expect(T.texts(events) == ["Hel", "lo", " world"])
    #expect(events.last == .finished(reason: .stop, usage: nil))
  }

  @Test func finishEventCarriesReasonAndUsage() async throws {
    let loopback = try LoopbackHTTPServer([.events([T.textChunk("ok"), T.finishChunk("length"), T.usageChunk, "[DONE]"])])
    defer { loopback.stop() }
    let (events, error) = await T.collect(T.model(loopback).stream(messages: T.user))
    #expect(error == nil)
    #expect(events == [
      .textDelta("ok"),
      .finished(reason: .length, usage: TokenUsage(promptTokens: 12, completionTokens: 3, totalTokens: 15)),
    ])
  }

  @Test func contentLengthAndCloseDelimitedStreamsAreParsed() async throws {
    let payloads = [T.textChunk("a"), T.textChunk("b"), T.finishChunk("stop"), "[DONE]"]
    let loopback = try LoopbackHTTPServer([
      .events(payloads, framing: .contentLength),
      .events(payloads, framing: .closeDelimited),
    ])
    defer { loopback.stop() }
    for _ in 0..<2 {
      let (events, error) = await T.collect(T.model(loopback).stream(messages: T.user))
      #expect(error == nil)
      #expect(T.texts(events) == ["a", "b"])
    }
  }

  @Test func multiLineDataAndCommentsAreHandled() async throws {
    // A server may split one JSON payload over several data lines and send comments.
    let body = ": ping\n\ndata: {\"choices\":[{\"index\":0,\ndata: \"delta\":{\"content\":\"hi\"}}]}\n\n: ping\n\n"
      + "data: \(T.finishChunk("stop"))\n\ndata: [DONE]\n\n"
    let loopback = try LoopbackHTTPServer([ScriptedResponse(
      headers: [("Content-Type", "text/event-stream")],
      steps: [.write(Data(body.utf8))]
    )])
    defer { loopback.stop() }
    let (events, error) = await T.collect(T.model(loopback).stream(messages: T.user))
    #expect(error == nil)
    #expect(T.texts(events) == ["hi"])
  }

  @Test func reasoningIsKeptApartFromText() async throws {
    let reasoning = #"{"choices":[{"index":0,"delta":{"reasoning_content":"think"}}]}"#
    let loopback = try LoopbackHTTPServer([.events([reasoning, T.textChunk("answer"), T.finishChunk("stop"), "[DONE]"])])
    defer { loopback.stop() }
    let reply = try await T.model(loopback).complete(messages: T.user)
    #expect(reply.reasoning == "think")
    #expect(reply.text == "answer")
  }

  // MARK: Tool calls

  @Test func toolCallArgumentsSplitAcrossChunksAreReassembled() async throws {
    let chunks = [
      #"{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"name":"search","arguments":""}}]}}]}"#,
      #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"qu"}}]}}]}"#,
      #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ery\": \"swift"}}]}}]}"#,
      #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":" 6\"}"}}]}}]}"#,
      T.finishChunk("tool_calls"),
      "[DONE]",
    ]
    let loopback = try LoopbackHTTPServer([.events(chunks)])
    defer { loopback.stop() }
    let (events, error) = await T.collect(T.model(loopback).stream(messages: T.user))
    #expect(error == nil)
    #expect(events == [
      .toolCall(ToolCall(id: "call_abc", name: "search", arguments: #"{"query": "swift 6"}"#)),
      .finished(reason: .toolCalls, usage: nil),
    ])
  }

  @Test func twoToolCallsInOneResponseComeOutInIndexOrder() async throws {
    // Fragments of the two calls interleave, and the second call's first fragment
    // arrives before the first call's last one.
    let chunks = [
      #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"search","arguments":"{\"query\":"}}]}}]}"#,
      #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_2","type":"function","function":{"name":"open_page","arguments":"{\"url\":"}}]}}]}"#,
      #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"a\"}"}},{"index":1,"function":{"arguments":"\"b\"}"}}]}}]}"#,
      T.finishChunk("tool_calls"),
      T.usageChunk,
      "[DONE]",
    ]
    let loopback = try LoopbackHTTPServer([.events(chunks)])
    defer { loopback.stop() }
    let reply = try await T.model(loopback).complete(messages: T.user)
    #expect(reply.toolCalls == [
      ToolCall(id: "call_1", name: "search", arguments: #"{"query":"a"}"#),
      ToolCall(id: "call_2", name: "open_page", arguments: #"{"url":"b"}"#),
    ])
    #expect(reply.finishReason == .toolCalls)
    #expect(reply.usage?.totalTokens == 15)
    #expect(reply.message == .assistant(content: nil, toolCalls: reply.toolCalls))
  }

  // MARK: Non-streaming fallback

  @Test func nonStreamingJSONResponseIsParsedWhole() async throws {
    let completion = #"""
    {"id":"x","object":"chat.completion","choices":[{"index":0,"finish_reason":"tool_calls",
     "message":{"role":"assistant","content":"let me look","tool_calls":[
      {"id":"call_9","type":"function","function":{"name":"search","arguments":"{\"query\":\"x\"}"}}]}}],
     "usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12}}
    """#
    let loopback = try LoopbackHTTPServer([.json(completion)])
    defer { loopback.stop() }
    let (events, error) = await T.collect(T.model(loopback).stream(messages: T.user))
    #expect(error == nil)
    #expect(events == [
      .textDelta("let me look"),
      .toolCall(ToolCall(id: "call_9", name: "search", arguments: #"{"query":"x"}"#)),
      .finished(reason: .toolCalls, usage: TokenUsage(promptTokens: 5, completionTokens: 7, totalTokens: 12)),
    ])
  }

  // MARK: What is sent

  @Test func requestBodyContainsMessagesAndToolsAsSent() async throws {
    let loopback = try LoopbackHTTPServer([.events([T.finishChunk("stop"), "[DONE]"])])
    defer { loopback.stop() }
    let schema: JSONValue = [
      "type": "object",
      "properties": ["query": ["type": "string", "description": "what to look for"], "limit": ["type": "integer"]],
      "required": ["query", "limit"],
      "additionalProperties": false,
    ]
    let tools = [ToolDefinition(name: "search", description: "Search the index.", parameters: schema)]
    let call = ToolCall(id: "call_1", name: "search", arguments: #"{"query":"q","limit":3}"#)
    let messages: [ChatMessage] = [
      .system("be brief"),
      .user("find q"),
      .assistant(content: nil, toolCalls: [call]),
      .tool(callID: "call_1", content: "result text"),
    ]
    let options = GenerationOptions(temperature: 0.2, maxTokens: 256, stop: ["</s>"], extraFields: ["cache_prompt": true])
    _ = try await T.model(loopback).complete(messages: messages, tools: tools, options: options)

    let request = try #require(loopback.requests.first)
    #expect(request.method == "POST")
    #expect(request.path == "/v1/chat/completions")
    #expect(request.headers["content-type"] == "application/json")
    let body = try #require(request.json)
    #expect(body["model"] == "test-model")
    #expect(body["stream"] == true)
    #expect(body["temperature"] == 0.2)
    #expect(body["max_tokens"] == 256)
    #expect(body["stop"] == ["</s>"])
    #expect(body["cache_prompt"] == true)
    #expect(body["messages"] == [
      ["role": "system", "content": "be brief"],
      ["role": "user", "content": "find q"],
      ["role": "assistant", "content": nil, "tool_calls": [
        ["id": "call_1", "type": "function", "function": ["name": "search", "arguments": #"{"query":"q","limit":3}"#]],
      ]],
      ["role": "tool", "tool_call_id": "call_1", "content": "result text"],
    ])
    #expect(body["tools"] == [
      ["type": "function", "function": [
        "name": "search", "description": "Search the index.", "parameters": schema, "strict": true,
      ]],
    ])
    // Verbatim: the schema's bytes on the wire are the schema's own serialisation.
    let wire = String(decoding: request.body, as: UTF8.self)
    #expect(wire.contains(#""parameters":"# + schema.compactText))
  }

  @Test func apiKeyIsSentAsBearerHeaderOnlyWhenSet() async throws {
    let finish = ScriptedResponse.events([T.finishChunk("stop"), "[DONE]"])
    let loopback = try LoopbackHTTPServer([finish, finish])
    defer { loopback.stop() }
    _ = try await T.model(loopback, apiKey: "sk-local-123").complete(messages: T.user)
    _ = try await T.model(loopback).complete(messages: T.user)
    let requests = loopback.requests
    #expect(requests.count == 2)
    #expect(requests.first?.headers["authorization"] == "Bearer sk-local-123")
    #expect(requests.last?.headers["authorization"] == nil)
  }

  @Test func baseURLMayIncludeV1() async throws {
    let finish = ScriptedResponse.events([T.finishChunk("stop"), "[DONE]"])
    let loopback = try LoopbackHTTPServer([finish, finish, finish])
    defer { loopback.stop() }
    for suffix in ["", "/v1", "/v1/"] {
      var server = T.server(loopback)
      server.baseURL = URL(string: loopback.baseURL.absoluteString + suffix)!
      _ = try await OpenAICompatibleModel(server: server, model: "m").complete(messages: T.user)
    }
    #expect(loopback.requests.map(\.path) == Array(repeating: "/v1/chat/completions", count: 3))
  }

  // MARK: Choosing the model

  /// With no model named, the one model `GET /v1/models` lists is used; several are a
  /// typed `ModelError` that names them.
  @Test func resolvedModelIsTheOneListedModelOrATypedError() async throws {
    let one = try LoopbackHTTPServer([.json(#"{"object":"list","data":[{"id":"qwen3-4b"}]}"#)])
    defer { one.stop() }
    #expect(try await OpenAICompatibleModel(server: T.server(one), model: nil).resolvedModel() == "qwen3-4b")
    let two = try LoopbackHTTPServer([.json(#"{"object":"list","data":[{"id":"a"},{"id":"b"}]}"#)])
    defer { two.stop() }
    do {
      _ = try await OpenAICompatibleModel(server: T.server(two), model: nil).resolvedModel()
      Issue.record("two listed models resolved to one")
    } catch .modelNotChosen(let reason) {
      #expect(reason == "the server offers 2 models (a, b); name one with --model")
    } catch {
      Issue.record("not modelNotChosen: \(error)")
    }
  }

  // MARK: Retries and errors

  @Test func internalServerErrorIsNotRetried() async throws {
    let loopback = try LoopbackHTTPServer([
      .json(#"{"error":{"code":500,"message":"template failed","type":"server_error"}}"#, status: 500),
      .events([T.finishChunk("stop"), "[DONE]"]),
    ])
    defer { loopback.stop() }
    let (_, error) = await T.collect(T.model(loopback).stream(messages: T.user))
    #expect(error == .http(status: 500, body: "template failed"))
    #expect(loopback.requests.count == 1)
  }

  @Test func unavailableIsRetriedExactlyOnce() async throws {
    let loopback = try LoopbackHTTPServer([
      .status(503, body: "loading model"),
      .status(503, body: "still loading\nmodel"),
      .events([T.finishChunk("stop"), "[DONE]"]),
    ])
    defer { loopback.stop() }
    let (_, error) = await T.collect(T.model(loopback).stream(messages: T.user))
    #expect(error == .http(status: 503, body: "still loading model"))
    #expect(loopback.requests.count == 2)
  }

  @Test func retryAfterUnavailableCanSucceed() async throws {
    let loopback = try LoopbackHTTPServer([
      .status(429),
      .events([T.textChunk("ok"), T.finishChunk("stop"), "[DONE]"]),
    ])
    defer { loopback.stop() }
    let reply = try await T.model(loopback).complete(messages: T.user)
    #expect(reply.text == "ok")
    #expect(loopback.requests.count == 2)
  }

  @Test func badRequestIsNotRetried() async throws {
    let loopback = try LoopbackHTTPServer([
      .json(#"{"error":{"message":"unknown field \"foo\"","type":"invalid_request_error"}}"#, status: 400),
      .events([T.finishChunk("stop"), "[DONE]"]),
    ])
    defer { loopback.stop() }
    let (_, error) = await T.collect(T.model(loopback).stream(messages: T.user))
    #expect(error == .http(status: 400, body: #"unknown field "foo""#))
    #expect(loopback.requests.count == 1)
  }

  @Test func connectionClosedBeforeAnyByteIsRetriedOnce() async throws {
    let loopback = try LoopbackHTTPServer([
      .closeWithoutResponse,
      .events([T.textChunk("ok"), T.finishChunk("stop"), "[DONE]"]),
    ])
    defer { loopback.stop() }
    let reply = try await T.model(loopback).complete(messages: T.user)
    #expect(reply.text == "ok")
    #expect(loopback.requests.count == 2)
  }

  @Test func connectionResetTwiceIsUnreachableAfterOneRetry() async throws {
    let loopback = try LoopbackHTTPServer([.resetWithoutResponse, .resetWithoutResponse, .events(["[DONE]"])])
    defer { loopback.stop() }
    let (_, error) = await T.collect(T.model(loopback).stream(messages: T.user))
    guard case .unreachable? = error else {
      Issue.record("expected unreachable, got \(String(describing: error))")
      return
    }
    #expect(loopback.requests.count == 2)
  }

  @Test func failureAfterStreamingBeganIsNotRetried() async throws {
    // The reset waits until the client has the partial text: a reset sent at once can
    // discard the bytes still queued behind it (Nagle, autocorking on a loaded machine),
    // and then the failure happened before any byte, which is rightly retried.
    let clientSawPartial = TestGate()
    var response = ScriptedResponse.events([T.textChunk("partial")])
    response.steps += [.waitFor(clientSawPartial), .reset]
    let loopback = try LoopbackHTTPServer([response, .events([T.textChunk("again"), T.finishChunk("stop"), "[DONE]"])])
    defer { loopback.stop() }
    let (events, error) = await T.collect(T.model(loopback).stream(messages: T.user)) { event in
      if case .textDelta = event { clientSawPartial.open() }
    }
    #expect(T.texts(events) == ["partial"])
    guard case .unreachable? = error else {
      Issue.record("expected unreachable, got \(String(describing: error))")
      return
    }
    #expect(loopback.requests.count == 1)
  }

  @Test func connectionRefusedIsUnreachable() async throws {
    // A port held bound with no listener: refused, and no other server can take it meanwhile.
    let refusing = LoopbackHTTPServer.RefusingPort()
    let server = ModelServer(baseURL: URL(string: "http://127.0.0.1:\(refusing.port)")!, retryDelay: .milliseconds(20))
    let (_, error) = await T.collect(OpenAICompatibleModel(server: server, model: "m").stream(messages: T.user))
    #expect(error == .unreachable(url: "http://127.0.0.1:\(refusing.port)/v1/chat/completions", reason: "connection refused"))
  }

  @Test func malformedJSONInDataLineIsNamed() async throws {
    let loopback = try LoopbackHTTPServer([.events([T.textChunk("fine"), #"{"choices": [{"delta": {"content": "x"}]"#, "[DONE]"])])
    defer { loopback.stop() }
    let (events, error) = await T.collect(T.model(loopback).stream(messages: T.user))
    #expect(T.texts(events) == ["fine"])
    guard case .malformed(let problem, let excerpt)? = error else {
      Issue.record("expected malformed, got \(String(describing: error))")
      return
    }
    #expect(problem.contains("invalid json in stream chunk"))
    #expect(problem.contains("expected ',' or '}' in object"))
    #expect(excerpt == #"{"choices": [{"delta": {"content": "x"}]"#)
  }

  @Test func streamEndingWithoutFinishIsMalformed() async throws {
    let loopback = try LoopbackHTTPServer([.events([T.textChunk("cut")])])
    defer { loopback.stop() }
    let (events, error) = await T.collect(T.model(loopback).stream(messages: T.user))
    #expect(T.texts(events) == ["cut"])
    #expect(error == .malformed(problem: "stream ended before a finish_reason or [DONE]", excerpt: ""))
  }

  @Test func errorObjectInsideTheStreamBecomesHTTPError() async throws {
    let inBand = #"{"error":{"code":400,"message":"context size exceeded","type":"exceed_context_size_error"}}"#
    let loopback = try LoopbackHTTPServer([.events([inBand])])
    defer { loopback.stop() }
    let (_, error) = await T.collect(T.model(loopback).stream(messages: T.user))
    #expect(error == .http(status: 400, body: "context size exceeded"))
  }

  // MARK: Timeouts and cancellation

  @Test func serverThatNeverRespondsTimesOut() async throws {
    let loopback = try LoopbackHTTPServer([.neverRespond, .neverRespond])
    defer { loopback.stop() }
    let server = T.server(loopback, requestTimeout: .seconds(1), idleTimeout: .seconds(30))
    let (_, error) = await T.collect(OpenAICompatibleModel(server: server, model: "m").stream(messages: T.user))
    #expect(error == .timeout(seconds: 1, idle: false))
    #expect(loopback.requests.count == 1)
    // The timed-out request must not linger: the connection is closed.
    #expect(await loopback.clientHungUp.wait(timeout: TestGate.patience))
  }

  @Test func stalledStreamHitsIdleTimeout() async throws {
    var response = ScriptedResponse.events([T.textChunk("start")])
    response.steps.append(.pause(.seconds(120)))
    let loopback = try LoopbackHTTPServer([response])
    defer { loopback.stop() }
    let server = T.server(loopback, requestTimeout: .seconds(600), idleTimeout: .seconds(1))
    let (events, error) = await T.collect(OpenAICompatibleModel(server: server, model: "m").stream(messages: T.user))
    #expect(T.texts(events) == ["start"])
    #expect(error == .timeout(seconds: 1, idle: true))
    #expect(loopback.requests.count == 1)
  }

  @Test func cancellingTheConsumerCancelsTheRequest() async throws {
    let firstDeltaSeen = TestGate()
    var response = ScriptedResponse.events([T.textChunk("first")])
    response.steps.append(.pause(.seconds(300)))
    let loopback = try LoopbackHTTPServer([response])
    defer { loopback.stop() }
    let model = T.model(loopback)
    let consumer = Task {
      for try await event in model.stream(messages: T.user) {
        if case .textDelta = event { firstDeltaSeen.open() }
      }
    }
    #expect(await firstDeltaSeen.wait(timeout: TestGate.patience))
    consumer.cancel()
    // The server is still inside its 300 s pause; only the client closing the socket
    // can open this gate, so seeing it proves the HTTP request was torn down.
    #expect(await loopback.clientHungUp.wait(timeout: TestGate.patience))
    _ = await consumer.result
  }

  @Test func stoppingIterationEarlyCancelsTheRequest() async throws {
    var response = ScriptedResponse.events([T.textChunk("first")])
    response.steps.append(.pause(.seconds(300)))
    let loopback = try LoopbackHTTPServer([response])
    defer { loopback.stop() }
    for try await event in T.model(loopback).stream(messages: T.user) {
      if case .textDelta = event { break }
    }
    // No task was cancelled: dropping the iterator alone must tear the request down.
    #expect(await loopback.clientHungUp.wait(timeout: TestGate.patience))
  }
}
