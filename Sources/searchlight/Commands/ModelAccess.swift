import Assistant
import Foundation

/// How a command reaches a chat-completions server: its URL, the model, the API key, the
/// idle timeout and what happens when the model fails. One place, so `ask`, `eval`, the
/// REPL and `serve` read the same flags and environment the same way.
struct ModelAccess {
  /// The options every model-using command (`ask`, `serve`) offers besides its own; what
  /// `AskCommand.languageModel` and `AskCommand.modelBounds` read.
  static let options: [OptionSpec] = [
    OptionSpec(name: "model-url", kind: .value, valueName: "URL", help: "The chat-completions server, e.g. http://localhost:8080 (also SEARCHLIGHT_MODEL_URL)."),
    OptionSpec(name: "model", kind: .value, valueName: "NAME", help: "The model name the server knows (also SEARCHLIGHT_MODEL)."),
    OptionSpec(name: "max-tokens", kind: .value, valueName: "N", help: "Tokens each model turn may generate (default 512)."),
    OptionSpec(name: "timeout", kind: .value, valueName: "SECONDS", help: "Longest the model server may take to connect, or stay silent before or during its answer (default 60)."),
    OptionSpec(name: "total-timeout", kind: .value, valueName: "SECONDS", help: "Longest a model request may take in all (default 300)."),
    OptionSpec(name: "grounding", kind: .value, valueName: "MODE", help: "Check the model's sentences against the sources: flag (default, mark unsupported ones), strict (leave them out) or off."),
  ] + accessOptions

  /// The API key and the fallback, for commands that name their model server their own way (`eval`).
  static let accessOptions: [OptionSpec] = [
    OptionSpec(name: "api-key-file", kind: .value, valueName: "FILE", help: "Read the server's API key from FILE (otherwise SEARCHLIGHT_API_KEY, then OPENAI_API_KEY); never on the command line."),
    OptionSpec(name: "fallback", kind: .value, valueName: "WHEN", help: "Answer offline when the model fails: unreachable (default: only when the server cannot be reached), offline (on any model failure) or none."),
  ]

  /// Environment variables holding an API key, in the order they are read.
  static let keyVariables = ["SEARCHLIGHT_API_KEY", "OPENAI_API_KEY"]

  /// The API key from `--api-key-file`, else the first non-empty key variable; nil for
  /// none. The key is only ever sent as a bearer header: never printed, never an argument.
  static func apiKey(_ arguments: ParsedArguments, command: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String? {
    if let path = arguments.value("api-key-file") {
      guard FileManager.default.fileExists(atPath: path) else {
        throw CommandFailure(.noInput, "cannot read --api-key-file '\(path)': no such file")
      }
      guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
        throw CommandFailure(.noInput, "cannot read --api-key-file '\(path)'")
      }
      let key = text.trimmingCharacters(in: .whitespacesAndNewlines)
      guard !key.isEmpty, !key.contains(where: \.isNewline) else {
        throw UsageError(message: "--api-key-file '\(path)' must hold one key on one line", command: command)
      }
      return key
    }
    return environmentKey(environment)
  }

  /// The first non-empty key variable, or nil.
  static func environmentKey(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
    keyVariables.lazy.compactMap { environment[$0].flatMap { $0.isEmpty ? nil : $0 } }.first
  }

  /// `--fallback` as the session's policy; `unreachable` when not given.
  static func fallback(_ arguments: ParsedArguments, command: String) throws -> ModelFallback {
    guard let text = arguments.value("fallback") else { return .whenUnreachable }
    guard let policy = ModelFallback(rawValue: text) else {
      let names = ModelFallback.allCases.map(\.rawValue).joined(separator: ", ")
      throw UsageError(message: "unknown --fallback '\(text)'; use one of \(names)", command: command)
    }
    return policy
  }

  /// A client for the server at `urlText` (validated), with the key and timeouts from the
  /// arguments; `model` nil asks the server for its one model on first use.
  static func model(
    urlText: String, model: String?, arguments: ParsedArguments, command: String,
    idleTimeout: Duration? = nil, requestTimeout: Duration? = nil
  ) throws -> OpenAICompatibleModel {
    guard let url = URL(string: urlText), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
      throw UsageError(message: "'\(urlText)' is not an http or https URL", command: command)
    }
    var server = ModelServer(baseURL: url, apiKey: try apiKey(arguments, command: command))
    if let idleTimeout { server.idleTimeout = idleTimeout }
    if let requestTimeout { server.requestTimeout = requestTimeout }
    return OpenAICompatibleModel(server: server, model: model)
  }

  /// The command's failure for a model that failed an answer: exit 74 (the server is I/O),
  /// with a hint at the flag or setting that fixes the usual cause.
  static func failure(_ error: ModelError) -> CommandFailure {
    var failure = CommandFailure(.ioError, error.description)
    switch error {
    case .http(let status, _) where status == 401 || status == 403:
      failure.hints.append("help: the server refused the key; set SEARCHLIGHT_API_KEY (or OPENAI_API_KEY), or use --api-key-file FILE")
    case .http(404, let body) where body.lowercased().contains("model"):
      failure.hints.append("help: name a model the server has with --model (its list: GET /v1/models)")
    case .http(429, _):
      failure.hints.append("help: the server is limiting requests; try again later, or --fallback offline to answer without the model")
    case .silent, .timeout:
      failure.hints.append("help: wait longer with --timeout SECONDS, or --fallback offline to answer without the model")
    default:
      failure.hints.append("help: --fallback offline answers without the model when it fails")
    }
    return failure
  }
}
