import SearchIndex

/// Sampling and length settings for one request; nil fields are left to the server's defaults.
public struct GenerationOptions: Sendable, Equatable {
  public var temperature: Double?
  public var topP: Double?
  public var maxTokens: Int?
  public var stop: [String]
  public var seed: Int?
  /// Server-specific request fields (e.g. llama.cpp's `cache_prompt`, vLLM's
  /// `chat_template_kwargs`), added to the request body as given, in key order so that
  /// bodies are reproducible. They override same-named fields this client writes.
  public var extraFields: [String: JSONValue]

  public init(
    temperature: Double? = nil,
    topP: Double? = nil,
    maxTokens: Int? = nil,
    stop: [String] = [],
    seed: Int? = nil,
    extraFields: [String: JSONValue] = [:]
  ) {
    self.temperature = temperature
    self.topP = topP
    self.maxTokens = maxTokens
    self.stop = stop
    self.seed = seed
    self.extraFields = extraFields
  }
}
