import Foundation
import SearchIndex

/// Turns chat completion responses into `ModelEvent`s: streamed `chat.completion.chunk`
/// payloads one at a time, or a whole `chat.completion` from a server that ignored
/// `stream: true`.
///
/// It owns the end-of-stream rules: tool calls are released once complete (at the finish
/// reason, or the end), `.finished` is always last, and a stream that stops before either
/// a finish reason or `[DONE]` is reported as truncated rather than passed off as an answer.
struct ChatResponseDecoder {
  private var toolCalls = ToolCallAssembler()
  private var finishReason: FinishReason?
  private var usage: TokenUsage?

  /// True once `[DONE]` arrived; nothing after it matters.
  private(set) var isDone = false

  init() {}

  // MARK: Streaming

  /// Decodes the data of one server-sent event.
  mutating func consume(_ event: ServerSentEventParser.Event) throws(ModelError) -> [ModelEvent] {
    let payload = event.data.trimmingCharacters(in: .whitespacesAndNewlines)
    if payload == "[DONE]" {
      isDone = true
      return []
    }
    if payload.isEmpty { return [] }
    let chunk: JSONValue
    do {
      chunk = try JSONParser.parse(payload)
    } catch {
      throw .malformed(problem: "invalid json in stream chunk (\(error))", excerpt: ModelError.excerpt(payload))
    }
    guard chunk.objectValue != nil else {
      throw .malformed(problem: "stream chunk is not a json object", excerpt: ModelError.excerpt(payload))
    }
    try Self.throwIfError(chunk, eventType: event.type)

    if let reportedUsage = chunk["usage"], let parsed = TokenUsage(json: reportedUsage) {
      usage = parsed
    }
    // The final usage-only chunk has an empty `choices`, and some servers send chunks
    // with no `choices` at all (keep-alives, timings); neither is an error.
    guard let choices = chunk["choices"], !choices.isNull else { return [] }
    guard let choiceList = choices.arrayValue else {
      throw .malformed(problem: "choices is not an array", excerpt: ModelError.excerpt(payload))
    }
    // Only the first choice is followed: this client never asks for n > 1.
    guard let choice = choiceList.first(where: { ($0["index"]?.intValue ?? 0) == 0 }) else { return [] }

    var events: [ModelEvent] = []
    // `message` instead of `delta` is a quirk of a few servers' streaming mode.
    if let delta = choice["delta"] ?? choice["message"], !delta.isNull {
      guard delta.objectValue != nil else {
        throw .malformed(problem: "delta is not an object", excerpt: ModelError.excerpt(payload))
      }
      if let reasoning = (delta["reasoning_content"] ?? delta["reasoning"])?.stringValue, !reasoning.isEmpty {
        events.append(.reasoningDelta(reasoning))
      }
      if let content = delta["content"], !content.isNull {
        guard let text = content.stringValue else {
          throw .malformed(problem: "delta content is not a string", excerpt: ModelError.excerpt(payload))
        }
        if !text.isEmpty { events.append(.textDelta(text)) }
      }
      if let fragments = delta["tool_calls"], !fragments.isNull {
        do {
          try toolCalls.add(fragments)
        } catch {
          throw .malformed(problem: error.description, excerpt: ModelError.excerpt(payload))
        }
      }
    }
    if let reason = choice["finish_reason"]?.stringValue {
      finishReason = FinishReason(wireValue: reason)
      // The calls are complete once the server says why it stopped; releasing them
      // now lets the caller start a tool while a usage chunk is still on its way.
      events += try drainToolCalls(excerpt: payload)
    }
    return events
  }

  /// Ends the stream: releases any tool calls still pending, then `.finished`.
  mutating func finish() throws(ModelError) -> [ModelEvent] {
    if !isDone, finishReason == nil {
      throw .malformed(problem: "stream ended before a finish_reason or [DONE]", excerpt: "")
    }
    var events = try drainToolCalls(excerpt: "")
    events.append(.finished(reason: finishReason, usage: usage))
    return events
  }

  private mutating func drainToolCalls(excerpt: String) throws(ModelError) -> [ModelEvent] {
    guard !toolCalls.isEmpty else { return [] }
    do {
      return try toolCalls.drain().map(ModelEvent.toolCall)
    } catch {
      throw .malformed(problem: error.description, excerpt: ModelError.excerpt(excerpt))
    }
  }

  // MARK: Whole responses

  /// Decodes a non-streamed `chat.completion` into the same events a stream would give.
  static func decodeCompletion(_ body: Data) throws(ModelError) -> [ModelEvent] {
    let completion: JSONValue
    do {
      completion = try JSONParser.parse(body)
    } catch {
      throw .malformed(problem: "invalid json in completion (\(error))", excerpt: ModelError.excerpt(body))
    }
    try throwIfError(completion, eventType: "message")
    guard let choice = completion["choices"]?.arrayValue?.first else {
      throw .malformed(problem: "completion has no choices", excerpt: ModelError.excerpt(body))
    }
    guard let message = choice["message"], message.objectValue != nil else {
      throw .malformed(problem: "completion choice has no message object", excerpt: ModelError.excerpt(body))
    }
    var events: [ModelEvent] = []
    if let reasoning = (message["reasoning_content"] ?? message["reasoning"])?.stringValue, !reasoning.isEmpty {
      events.append(.reasoningDelta(reasoning))
    }
    if let content = message["content"], !content.isNull {
      guard let text = content.stringValue else {
        throw .malformed(problem: "message content is not a string", excerpt: ModelError.excerpt(body))
      }
      if !text.isEmpty { events.append(.textDelta(text)) }
    }
    if let calls = message["tool_calls"], !calls.isNull {
      var assembler = ToolCallAssembler()
      do {
        try assembler.add(calls)
        events += try assembler.drain().map(ModelEvent.toolCall)
      } catch {
        throw .malformed(problem: error.description, excerpt: ModelError.excerpt(body))
      }
    }
    let reason = choice["finish_reason"]?.stringValue.map(FinishReason.init(wireValue:))
    events.append(.finished(reason: reason, usage: completion["usage"].flatMap(TokenUsage.init(json:))))
    return events
  }

  // MARK: Errors

  /// Servers report failures that happen after the 200 head (context overflow, a crashed
  /// slot) as an `error` object inside the body; they become `.http` with the server's
  /// code, or 500 when it gave none, so callers handle them like any server error.
  private static func throwIfError(_ payload: JSONValue, eventType: String) throws(ModelError) {
    guard let error = payload["error"], !error.isNull else {
      if eventType == "error" {
        throw .http(status: 500, body: ModelError.excerpt(payload.compactText))
      }
      return
    }
    let message = error["message"]?.stringValue ?? error.stringValue ?? error.compactText
    let status = error["code"]?.intValue ?? payload["code"]?.intValue ?? 500
    throw .http(status: (100..<600).contains(status) ? status : 500, body: ModelError.excerpt(message))
  }
}
