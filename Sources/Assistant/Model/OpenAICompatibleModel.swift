import Foundation
import SearchIndex
import Synchronization

/// A `LanguageModel` served over the OpenAI chat completions API, as llama.cpp's server,
/// Ollama, vLLM and LM Studio provide it.
///
/// Requests always ask for a stream; a server that answers with one JSON document instead
/// is handled too, producing the same events in one burst.
public struct OpenAICompatibleModel: LanguageModel {
  public let server: ModelServer
  /// The model name the caller gave, or nil to ask the server (`GET /v1/models`) on the
  /// first request and use the model it lists when it lists exactly one.
  public let requestedModel: String?
  /// Asks for a final usage chunk (`stream_options.include_usage`). Servers that predate
  /// the option ignore it; turn it off only for one that rejects unknown fields.
  public var requestsUsage: Bool
  /// The model the server named, once asked; shared by copies so the question is asked once.
  private let listedModel = ListedModel()

  private var http: ModelHTTPClient { ModelHTTPClient(server: server) }

  /// The largest non-streamed completion accepted; far above any real answer.
  static let completionBodyLimit = 32 * 1024 * 1024
  /// The largest model list read; real lists are a few kilobytes.
  static let modelListLimit = 4 * 1024 * 1024

  public init(server: ModelServer, model: String?, requestsUsage: Bool = true) {
    self.server = server
    self.requestedModel = model
    self.requestsUsage = requestsUsage
  }

  /// The model requests name: the caller's, or the server's only model once known.
  public var model: String? { requestedModel ?? listedModel.name.withLock { $0 } }

  public func stream(
    messages: [ChatMessage],
    tools: [ToolDefinition],
    options: GenerationOptions
  ) -> AsyncThrowingStream<ModelEvent, any Error> {
    let http = self.http
    let (stream, continuation) = AsyncThrowingStream<ModelEvent, any Error>.makeStream()
    let producer = Task {
      do {
        let name = try await resolvedModel()
        let body = Data(requestBody(messages: messages, tools: tools, options: options, model: name).compactText.utf8)
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

  /// The model name to send: the caller's, or the one model `GET /v1/models` lists.
  /// Sending a made-up name instead would let a multi-model server pick one silently
  /// (or fail with an unhelpful 404), so several or none is an error that names them.
  public func resolvedModel() async throws(ModelError) -> String {
    if let model { return model }
    let body: Data
    do {
      body = try await http.get("models", limit: Self.modelListLimit)
    } catch {
      let failure = ModelError(wrapping: error)
      if case .http(let status, _) = failure, status == 404 {
        throw .modelNotChosen(reason: "the server at \(server.baseURL.absoluteString) lists no models (GET /v1/models: 404); name one with --model")
      }
      throw failure
    }
    let names = (try? JSONParser.parse(body))?["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
    switch names.count {
    case 1:
      listedModel.name.withLock { $0 = names[0] }
      return names[0]
    case 0:
      throw .modelNotChosen(reason: "the server at \(server.baseURL.absoluteString) lists no models; name one with --model")
    default:
      let shown = names.prefix(8).joined(separator: ", ") + (names.count > 8 ? ", …" : "")
      throw .modelNotChosen(reason: "the server offers \(names.count) models (\(shown)); name one with --model")
    }
  }

  /// The chat completions request as JSON, in a fixed member order so identical inputs
  /// give identical bytes (useful for logs and for prompt caching proxies).
  func requestBody(messages: [ChatMessage], tools: [ToolDefinition], options: GenerationOptions, model: String) -> JSONValue {
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

/// The server's one model once `GET /v1/models` named it; a class so that copies of the
/// client share it.
private final class ListedModel: Sendable {
  let name = Mutex<String?>(nil)
}
