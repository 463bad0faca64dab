/// A chat model that answers a transcript, optionally by calling tools, as a stream of events.
///
/// The answer loop depends on this protocol rather than on a server client so that tests
/// can script a model and so that other backends can be added without touching the loop.
public protocol LanguageModel: Sendable {
  /// Starts generating and returns the events as they happen. The stream finishes after
  /// `.finished`, or throws a `ModelError`. Cancelling the task that iterates it (or
  /// stopping iteration) cancels the request; the stream then simply ends.
  func stream(
    messages: [ChatMessage],
    tools: [ToolDefinition],
    options: GenerationOptions
  ) -> AsyncThrowingStream<ModelEvent, any Error>
}

extension LanguageModel {
  /// Streams with the server's default sampling settings. (A protocol requirement cannot
  /// have default arguments, and an extension method of the same full signature would
  /// silently satisfy the requirement and recurse.)
  public func stream(
    messages: [ChatMessage],
    tools: [ToolDefinition] = []
  ) -> AsyncThrowingStream<ModelEvent, any Error> {
    stream(messages: messages, tools: tools, options: GenerationOptions())
  }

  /// Waits for the whole answer, for callers that have nothing to show while it streams.
  public func complete(
    messages: [ChatMessage],
    tools: [ToolDefinition] = [],
    options: GenerationOptions = GenerationOptions()
  ) async throws -> ModelReply {
    try await ModelReply(collecting: stream(messages: messages, tools: tools, options: options))
  }
}
