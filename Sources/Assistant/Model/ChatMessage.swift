import SearchIndex

/// One message of a chat transcript in the roles OpenAI-compatible servers understand.
///
/// An enum rather than a struct with optional fields, so a transcript cannot hold a tool
/// result without the id of the call it answers, or a system message with tool calls.
public enum ChatMessage: Sendable, Equatable {
  case system(String)
  case user(String)
  /// A model turn. `content` is nil when the turn only called tools.
  case assistant(content: String?, toolCalls: [ToolCall] = [])
  /// The result of running a tool, answering the call with id `callID`.
  case tool(callID: String, content: String)

  /// The message as the `messages` array element of a chat completions request.
  var json: JSONValue {
    switch self {
    case .system(let text):
      return ["role": "system", "content": .string(text)]
    case .user(let text):
      return ["role": "user", "content": .string(text)]
    case .assistant(let content, let toolCalls):
      var message: JSONObject = ["role": "assistant"]
      // OpenAI allows null content only alongside tool calls; an empty string keeps a
      // (rare) empty turn valid for strict servers.
      if let content {
        message["content"] = .string(content)
      } else {
        message["content"] = toolCalls.isEmpty ? "" : .null
      }
      if !toolCalls.isEmpty {
        message["tool_calls"] = .array(toolCalls.map(\.json))
      }
      return .object(message)
    case .tool(let callID, let content):
      return ["role": "tool", "tool_call_id": .string(callID), "content": .string(content)]
    }
  }
}
