import SearchIndex

/// A function call the model asked for, with its arguments still as the JSON text it produced.
///
/// Arguments stay a string because that is what the model emitted: the caller decides how
/// to validate it, and the exact text is what must be echoed back in the transcript.
public struct ToolCall: Sendable, Equatable {
  /// Server-assigned id that the `.tool` result message must quote.
  public var id: String
  public var name: String
  /// JSON text of the arguments object; `{}` when the server sent none.
  public var arguments: String

  public init(id: String, name: String, arguments: String) {
    self.id = id
    self.name = name
    self.arguments = arguments
  }

  /// The call as an element of an assistant message's `tool_calls`.
  var json: JSONValue {
    [
      "id": .string(id),
      "type": "function",
      "function": ["name": .string(name), "arguments": .string(arguments)],
    ]
  }
}
