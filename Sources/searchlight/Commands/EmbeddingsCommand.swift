import Assistant
import Foundation
import SearchIndex

/// `searchlight embeddings`: records an embedding model in the index and embeds every item
/// that has no vector yet, from any OpenAI-compatible `/v1/embeddings` endpoint.
enum EmbeddingsCommand: Command {
  static let name = "embeddings"
  static let abstract = "Embed the items of an index with an OpenAI-compatible embeddings endpoint."
  static let usage = "embeddings --db FILE [--index NAME] (--url URL --model NAME [--dimensions N] | --pending | --clear)"
  static let discussion = """
    The first run records the model, its vector size and the URL in the index; later runs,
    `index` and `sync` embed new and changed items with it, and `similar` queries embed their
    phrase with it (SEARCHLIGHT_EMBEDDINGS_URL or --url overrides the recorded URL).
    Each item's title, description and text is embedded in chunks of 200 words (at most 16);
    an item is as similar to a query as its best chunk. Batches commit one at a time, so an
    interrupted run resumes where it stopped. Items the endpoint rejects are recorded as
    failed; --pending retries them. Status lines go to stderr.

    EXAMPLES:
      llama-server -m all-MiniLM-L6-v2.Q8_0.gguf --embeddings --port 8081
      searchlight embeddings --db items.db --url http://127.0.0.1:8081 --model all-MiniLM-L6-v2
      ollama pull nomic-embed-text
      searchlight embeddings --db items.db --url http://127.0.0.1:11434 --model nomic-embed-text
      searchlight embeddings --db items.db --pending
    """
  static let options: [OptionSpec] = [
    Common.db, Common.indexName,
    OptionSpec(name: "url", kind: .value, valueName: "URL", help: "The endpoint's base URL (also SEARCHLIGHT_EMBEDDINGS_URL); default: the recorded one."),
    OptionSpec(name: "model", kind: .value, valueName: "NAME", help: "The embedding model; default: the recorded one."),
    OptionSpec(name: "dimensions", kind: .value, valueName: "N", help: "Ask the model for N-dimensional vectors (Matryoshka models)."),
    OptionSpec(name: "pending", kind: .flag, help: "Embed only items still waiting, retrying those that failed."),
    OptionSpec(name: "clear", kind: .flag, help: "Delete every vector and the recorded model."),
    OptionSpec(name: "batch", kind: .value, valueName: "N", help: "Items per request (default 32)."),
    OptionSpec(name: "api-key-file", kind: .value, valueName: "FILE", help: "Read the endpoint's bearer token from FILE (otherwise SEARCHLIGHT_EMBEDDINGS_API_KEY, SEARCHLIGHT_API_KEY, OPENAI_API_KEY)."),
    OptionSpec(name: "api-key", kind: .value, valueName: "KEY", help: "The bearer token itself; other users can see it in the process list, so prefer --api-key-file."),
  ]

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    guard arguments.positionals.isEmpty else { throw UsageError(message: "unexpected argument '\(arguments.positionals[0])'", command: name) }
    let index = try Common.openIndex(arguments, command: name, create: false)
    if arguments.has("clear") {
      let cleared = try index.clearEmbeddings()
      Terminal.out("deleted the vectors of \(cleared) item\(cleared == 1 ? "" : "s") and the recorded model\n")
      return .success
    }
    var dimensions: Int?
    if let text = arguments.value("dimensions") {
      guard let value = Int(text), value > 0, value <= 65_536 else {
        throw UsageError(message: "--dimensions needs a positive whole number, not '\(text)'", command: name)
      }
      dimensions = value
    }
    let batch = try arguments.value("batch").map { text -> Int in
      guard let value = Int(text), value > 0 else { throw UsageError(message: "--batch needs a positive whole number, not '\(text)'", command: name) }
      return value
    } ?? 32
    let recorded = try index.embeddingConfiguration()
    guard let model = arguments.value("model") ?? recorded?.model else {
      throw UsageError(message: "the index has no embedding model yet; give --url URL --model NAME", command: name)
    }
    let urlText = arguments.value("url") ?? Self.environmentURL ?? recorded?.url
    guard let urlText else { throw UsageError(message: "give --url URL (or SEARCHLIGHT_EMBEDDINGS_URL)", command: name) }
    let url = try Self.parseURL(urlText, command: name)
    if let recorded, let dimensions, dimensions != recorded.dimensions {
      throw CommandFailure(.dataError, "the index's embeddings have \(recorded.dimensions) dimensions, not \(dimensions) (model '\(recorded.model)'); use --clear to start over")
    }
    let configuration = EmbeddingConfiguration(model: model, dimensions: dimensions ?? recorded?.dimensions ?? 0, url: urlText)
    let embedder = EndpointEmbedder(url: url, model: model, dimensions: dimensions ?? recorded?.dimensions, apiKey: try ModelAccess.apiKey(arguments, command: name, environment: keyEnvironment)
      ?? arguments.value("api-key") ?? environmentAPIKey)
    var run = EmbeddingRun(index: index, embedder: embedder, configuration: configuration, batchSize: batch, includeFailed: arguments.has("pending"))
    let start = Date()
    var lastReport = Date.distantPast
    let summary: EmbeddingRun.Summary
    do {
      summary = try run.run { progress in
        // At most a few lines a second on stderr.
        if Date().timeIntervalSince(lastReport) > 0.5 || progress.done == progress.total {
          lastReport = Date()
          Terminal.err("embedded \(progress.done)/\(progress.total) items\n")
        }
      }
    } catch let error as EmbeddingError {
      throw failure(error, index: index)
    }
    let seconds = Date().timeIntervalSince(start)
    var line = "embedded \(summary.embedded) item\(summary.embedded == 1 ? "" : "s") with '\(model)' in \(String(format: "%.2f", seconds)) s"
    if summary.empty > 0 { line += "; \(summary.empty) without text" }
    Terminal.out(line + "\n")
    if summary.failed > 0 {
      throw CommandFailure(.dataError,
        "the endpoint rejected \(summary.failed) item\(summary.failed == 1 ? "" : "s") (\(summary.firstFailure ?? "")); retry them with `searchlight embeddings --db \(index.path) --pending`")
    }
    return .success
  }

  static var environmentURL: String? {
    ProcessInfo.processInfo.environment["SEARCHLIGHT_EMBEDDINGS_URL"].flatMap { $0.isEmpty ? nil : $0 }
  }

  /// The key from the environment: the embeddings endpoint's own, else the shared ones.
  static var environmentAPIKey: String? {
    let environment = ProcessInfo.processInfo.environment
    return environment["SEARCHLIGHT_EMBEDDINGS_API_KEY"].flatMap { $0.isEmpty ? nil : $0 } ?? ModelAccess.environmentKey(environment)
  }

  /// No environment for `ModelAccess.apiKey`: here it reads only `--api-key-file`, since
  /// `--api-key` and the embeddings variable come before the shared variables.
  private static let keyEnvironment: [String: String] = [:]

  static func parseURL(_ text: String, command: String) throws -> URL {
    guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
      throw UsageError(message: "'\(text)' is not an http or https URL", command: command)
    }
    return url
  }

  /// Exit 74 for an endpoint that cannot be reached, 65 for everything about the data; the
  /// message says what was kept.
  static func failure(_ error: EmbeddingError, index: SearchIndex) -> CommandFailure {
    var failure = CommandFailure(error.isIOFailure ? .ioError : .dataError, error.message)
    if let counts = try? index.embeddingCounts(), [.unreachable, .malformed, .rejected].contains(error.kind) {
      failure.hints.append("note: \(counts.embedded) items have vectors, \(counts.pending + counts.failed) wait; rerun with --pending to continue")
    }
    return failure
  }

  /// After `index` or `sync`: embeds new and changed items when the index has a model and
  /// its endpoint answers; otherwise they stay pending and a note says how to embed them.
  /// Never fails the command that wrote the items.
  static func embedNewItems(_ index: SearchIndex) {
    guard let configuration = try? index.embeddingConfiguration(),
      let waiting = try? index.pendingEmbeddingCount(includeFailed: false), waiting > 0
    else { return }
    let urlText = environmentURL ?? configuration.url
    guard let url = URL(string: urlText) else { return }
    let embedder = EndpointEmbedder(url: url, model: configuration.model, dimensions: configuration.dimensions, apiKey: environmentAPIKey,
                                    requestTimeout: .seconds(60))
    var run = EmbeddingRun(index: index, embedder: embedder, configuration: configuration)
    do {
      let summary = try run.run()
      Terminal.err("embedded \(summary.embedded) new item\(summary.embedded == 1 ? "" : "s") with '\(configuration.model)'\n")
      if summary.failed > 0 {
        Terminal.err("note: the endpoint rejected \(summary.failed) item\(summary.failed == 1 ? "" : "s"); retry with `searchlight embeddings --db \(index.path) --pending`\n")
      }
    } catch {
      let left = (try? index.pendingEmbeddingCount(includeFailed: false)) ?? waiting
      Terminal.err("note: \(left) \(left == 1 ? "item waits" : "items wait") for embeddings (\(error)); run `searchlight embeddings --db \(index.path) --pending`\n")
    }
  }
}
