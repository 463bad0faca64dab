import Foundation
import Assistant
import SearchIndex
import SearchlightTestSupport

/// Shared builders and collectors for the client tests.
enum TestSupport {
  /// Generous limits: a loaded two-core CI machine must never trip them by accident.
  static func server(
    _ loopback: LoopbackHTTPServer,
    apiKey: String? = nil,
    requestTimeout: Duration = .seconds(300),
    idleTimeout: Duration = TestGate.patience
  ) -> ModelServer {
    ModelServer(
      baseURL: loopback.baseURL,
      apiKey: apiKey,
      requestTimeout: requestTimeout,
      idleTimeout: idleTimeout,
      retryDelay: .milliseconds(20)
    )
  }

  static func model(_ loopback: LoopbackHTTPServer, apiKey: String? = nil) -> OpenAICompatibleModel {
    OpenAICompatibleModel(server: server(loopback, apiKey: apiKey), model: "test-model")
  }

  /// Everything a stream produced, plus the error that ended it, if any; `onEvent` sees
  /// each event as it arrives (to open a gate the scripted server waits for).
  static func collect(
    _ stream: AsyncThrowingStream<ModelEvent, any Error>, onEvent: (ModelEvent) -> Void = { _ in }
  ) async -> (events: [ModelEvent], error: ModelError?) {
    var events: [ModelEvent] = []
    do {
      for try await event in stream {
        onEvent(event)
        events.append(event)
      }
      return (events, nil)
    } catch let error as ModelError {
      return (events, error)
    } catch {
      return (events, .malformed(problem: "not a ModelError: \(error)", excerpt: ""))
    }
  }

  static func texts(_ events: [ModelEvent]) -> [String] {
    events.compactMap { if case .textDelta(let text) = $0 { text } else { nil } }
  }

  static func toolCalls(_ events: [ModelEvent]) -> [ToolCall] {
    events.compactMap { if case .toolCall(let call) = $0 { call } else { nil } }
  }

  /// A streamed chunk carrying a text delta.
  static func textChunk(_ text: String) -> String {
    #"{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":\#(JSONValue.string(text).compactText)},"finish_reason":null}]}"#
  }

  static func finishChunk(_ reason: String) -> String {
    #"{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"\#(reason)"}]}"#
  }

  static let usageChunk = #"{"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}"#

  static let user: [ChatMessage] = [.user("hi")]
}
