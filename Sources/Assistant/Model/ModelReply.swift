/// A whole model turn, gathered from a `ModelEvent` stream.
public struct ModelReply: Sendable, Equatable {
  public var text: String
  public var reasoning: String
  public var toolCalls: [ToolCall]
  public var finishReason: FinishReason?
  public var usage: TokenUsage?

  public init(
    text: String = "",
    reasoning: String = "",
    toolCalls: [ToolCall] = [],
    finishReason: FinishReason? = nil,
    usage: TokenUsage? = nil
  ) {
    self.text = text
    self.reasoning = reasoning
    self.toolCalls = toolCalls
    self.finishReason = finishReason
    self.usage = usage
  }

  /// Reads `events` to the end. A stream that ends without `.finished` was cut short by
  /// cancellation, which is reported as such rather than as a complete reply.
  public init(collecting events: AsyncThrowingStream<ModelEvent, any Error>) async throws {
    self.init()
    var finished = false
    for try await event in events {
      switch event {
      case .textDelta(let piece): text += piece
      case .reasoningDelta(let piece): reasoning += piece
      case .toolCall(let call): toolCalls.append(call)
      case .finished(let reason, let reportedUsage):
        finishReason = reason
        usage = reportedUsage
        finished = true
      }
    }
    guard finished else { throw ModelError.cancelled }
  }

  /// The assistant message to append to the transcript before running the tool calls.
  public var message: ChatMessage {
    .assistant(content: text.isEmpty && !toolCalls.isEmpty ? nil : text, toolCalls: toolCalls)
  }
}
