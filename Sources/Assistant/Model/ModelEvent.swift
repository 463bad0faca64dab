/// One thing that happened while the model was answering, in the order it happened.
public enum ModelEvent: Sendable, Equatable {
  /// A fragment of the visible answer, delivered as soon as the server sent it.
  case textDelta(String)
  /// A fragment of the model's reasoning, for servers that split it out
  /// (`reasoning_content` in llama.cpp and vLLM, `reasoning` in Ollama). Kept apart from
  /// text so it never leaks into an answer, yet still visible as a sign of progress.
  case reasoningDelta(String)
  /// A tool call whose fragments have all arrived; sent once per call, in index order,
  /// when the server reports the finish reason or the stream ends.
  case toolCall(ToolCall)
  /// Always the last event of a successful stream.
  case finished(reason: FinishReason?, usage: TokenUsage?)
}
