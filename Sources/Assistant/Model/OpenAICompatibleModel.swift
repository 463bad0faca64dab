import Foundation
import SearchIndex

/// A `LanguageModel` served over the OpenAI chat completions API, as llama.cpp's server,
/// Ollama, vLLM and LM Studio provide it.
///
/// Requests always ask for a stream; a server that answers with one JSON document instead
/// is handled too, producing the same events in one burst.
package struct OpenAICompatibleModel: LanguageModel {
  package let server: ModelServer
  /// The server's model name; single-model servers such as llama.cpp accept anything.
  package let model: String
  /// Asks for a final usage chunk (`stream_options.include_usage`). Servers that predate
  /// the option ignore it; turn it off only for one that rejects unknown fields.
  package var requestsUsage: Bool

  private var http: ModelHTTPClient { ModelHTTPClient(server: server) }

  /// The largest non-streamed completion accepted; far above any real answer.
  static let completionBodyLimit = 32 * 1024 * 1024

  package init(server: ModelServer, model: String, requestsUsage: Bool = true) {
    self.server = server
    self.model = model
    self.requestsUsage = requestsUsage
  }

  package func stream(
    messages: [ChatMessage],
    tools: [ToolDefinition],
    options: GenerationOptions
  ) -> AsyncThrowingStream<ModelEvent, any Error> {
    let body = Data(requestBody(messages: messages, tools: tools, options: options).compactText.utf8)
    let http = self.http
    let (stream, continuation) = AsyncThrowingStream<ModelEvent, any Error>.makeStream()
    let producer = Task {
      do {
        try await Self.produce(http: http, body: body) { continuation.yield($0) }
        continuation.finish()
      } catch {
        continuation.finish(throwing: ModelError(wrapping: error))
      }
    }
    // The consumer stopping (or its task being cancelled) terminates the stream; cancel
    // the producer so the HTTP transfer is torn down at once.
    continuation.onTermination = { _ in producer.cancel() }
    return stream
  }

  /// Sends the request and emits events until the response ends.
  private static func produce(
    http: ModelHTTPClient,
    body: Data,
    emit: (ModelEvent) -> Void
  ) async throws {
    var response = try await http.post("chat/completions", body: body, accept: "text/event-stream")
    let firstChunk = try await response.next()

    if isWholeCompletion(mediaType: response.mediaType, firstChunk: firstChunk) {
      var whole = firstChunk ?? Data()
      while let chunk = try await response.next() {
        whole.append(chunk)
        if whole.count > completionBodyLimit {
          throw ModelError.malformed(problem: "completion larger than \(completionBodyLimit) bytes", excerpt: ModelError.excerpt(whole))
        }
      }
      try ChatResponseDecoder.decodeCompletion(whole).forEach(emit)
      return
    }

    var parser = ServerSentEventParser()
    var decoder = ChatResponseDecoder()
    var pending = firstChunk
    reading: while let chunk = pending {
      for event in try parser.feed(chunk) {
        try decoder.consume(event).forEach(emit)
        // Stop at [DONE] rather than waiting for the server to close: the finish
        // event reaches the caller without another network round, and dropping the
        // response closes the connection.
        if decoder.isDone { break reading }
      }
      pending = try await response.next()
    }
    if !decoder.isDone {
      for event in parser.finish() where !decoder.isDone {
        try decoder.consume(event).forEach(emit)
      }
    }
    try decoder.finish().forEach(emit)
  }

  /// A declared JSON type means a whole completion. With no usable type, the first byte
  /// decides: a JSON object starts with `{`, while an event stream starts with a field
  /// name or a `:` comment.
  private static func isWholeCompletion(mediaType: String, firstChunk: Data?) -> Bool {
    if mediaType == "text/event-stream" { return false }
    if mediaType == "application/json" || mediaType.hasSuffix("+json") { return true }
    let firstByte = firstChunk?.first { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }
    return firstByte == UInt8(ascii: "{")
  }

  /// The chat completions request as JSON, in a fixed member order so identical inputs
  /// give identical bytes (useful for logs and for prompt caching proxies).
  func requestBody(messages: [ChatMessage], tools: [ToolDefinition], options: GenerationOptions) -> JSONValue {
    var body: JSONObject = ["model": .string(model), "messages": .array(messages.map(\.json))]
    // An empty tools array is rejected by some servers' validation; leave it out.
    if !tools.isEmpty {
      body["tools"] = .array(tools.map(\.json))
    }
    if let temperature = options.temperature { body["temperature"] = .number(temperature) }
    if let topP = options.topP { body["top_p"] = .number(topP) }
    if let maxTokens = options.maxTokens { body["max_tokens"] = .number(Double(maxTokens)) }
    if !options.stop.isEmpty { body["stop"] = .array(options.stop.map(JSONValue.string)) }
    if let seed = options.seed { body["seed"] = .number(Double(seed)) }
    body["stream"] = true
    if requestsUsage {
      body["stream_options"] = ["include_usage": true]
    }
    for key in options.extraFields.keys.sorted() {
      guard let value = options.extraFields[key] else { continue }
      // Removed first so an override moves to the end, after the fields it replaces.
      body[key] = nil
      body[key] = value
    }
    return .object(body)
  }
}
