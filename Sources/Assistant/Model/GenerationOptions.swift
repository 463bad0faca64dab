import SearchIndex

/// Sampling and length settings for one request; nil fields are left to the server's defaults.
package struct GenerationOptions: Sendable, Equatable {
  package var temperature: Double?
  package var topP: Double?
  package var maxTokens: Int?
  package var stop: [String]
  package var seed: Int?
  /// Server-specific request fields (e.g. llama.cpp's `cache_prompt`, vLLM's
  /// `chat_template_kwargs`), added to the request body as given, in key order so that
  /// bodies are reproducible. They override same-named fields this client writes.
  package var extraFields: [String: JSONValue]

  package init(
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
