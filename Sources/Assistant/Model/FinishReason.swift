/// Why the model stopped generating, from the server's `finish_reason`.
public enum FinishReason: Sendable, Equatable {
  /// A natural end or a stop sequence.
  case stop
  /// The token limit was hit, so the answer is truncated.
  case length
  /// The model stopped to have tools run.
  case toolCalls
  case contentFilter
  /// Any value this client does not know; kept so it can still be logged.
  case other(String)

  init(wireValue: String) {
    switch wireValue {
    case "stop", "eos", "stop_sequence": self = .stop
    case "length", "max_tokens": self = .length
    // `function_call` is the pre-tools spelling some older servers still send.
    case "tool_calls", "function_call": self = .toolCalls
    case "content_filter": self = .contentFilter
    default: self = .other(wireValue)
    }
  }
}
