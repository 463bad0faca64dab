import SearchIndex

/// A function the model may call, in OpenAI function-calling form.
///
/// `parameters` is a JSON Schema passed through verbatim (member order included), because
/// servers that compile schemas into grammars (llama.cpp, vLLM) are sensitive to exactly
/// what they are given.
public struct ToolDefinition: Sendable, Equatable {
  public var name: String
  public var description: String
  public var parameters: JSONValue
  /// Asks the server to constrain arguments to the schema; servers without support ignore it.
  public var strict: Bool

  public init(name: String, description: String, parameters: JSONValue, strict: Bool = true) {
    self.name = name
    self.description = description
    self.parameters = parameters
    self.strict = strict
  }

  /// The definition as an element of the request's `tools` array.
  var json: JSONValue {
    [
      "type": "function",
      "function": [
        "name": .string(name),
        "description": .string(description),
        "parameters": parameters,
        "strict": .bool(strict),
      ],
    ]
  }
}
