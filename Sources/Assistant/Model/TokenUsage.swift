import SearchIndex

/// Token counts the server reported for one completion.
public struct TokenUsage: Sendable, Equatable {
  public var promptTokens: Int
  public var completionTokens: Int
  public var totalTokens: Int

  public init(promptTokens: Int, completionTokens: Int, totalTokens: Int) {
    self.promptTokens = promptTokens
    self.completionTokens = completionTokens
    self.totalTokens = totalTokens
  }

  /// Reads a `usage` object; missing counts are 0 because servers differ in which they send,
  /// and nil when the value is not an object at all.
  init?(json: JSONValue) {
    guard json.objectValue != nil else { return nil }
    let prompt = json["prompt_tokens"]?.intValue ?? 0
    let completion = json["completion_tokens"]?.intValue ?? 0
    self.init(
      promptTokens: prompt,
      completionTokens: completion,
      totalTokens: json["total_tokens"]?.intValue ?? prompt + completion
    )
  }
}
