import Assistant
import Foundation
import QueryEngine
import SearchIndex
import Stages

/// What `query`, `explain` and the REPL share: the index, the stage registry, and the
/// options (clock, time zone, protection classes, identity) from flags and environment.
struct QuerySetup {
  var index: SearchIndex
  var registry: StageRegistry
  var options: QueryOptions

  static let options: [OptionSpec] = [
    Common.db, Common.indexName, Common.now, Common.protection,
    OptionSpec(name: "identity", kind: .value, valueName: "FILE", help: "Who 'me' is: {\"names\":[...],\"emails\":[...]}."),
    stagesOption, embeddingsURLOption,
  ]

  static let embeddingsURLOption = OptionSpec(
    name: "embeddings-url", kind: .value, valueName: "URL",
    help: "Where 'similar' phrases are embedded (also SEARCHLIGHT_EMBEDDINGS_URL); default: the URL the index records.")

  /// The embedder for `similar` phrases: the model the index records, at `--embeddings-url`,
  /// SEARCHLIGHT_EMBEDDINGS_URL or the recorded URL; nil when the index has no embeddings.
  static func queryEmbedder(_ index: SearchIndex, arguments: ParsedArguments?) -> (any TextEmbedder)? {
    guard let configuration = try? index.embeddingConfiguration() else { return nil }
    let text = arguments?.value("embeddings-url") ?? EmbeddingsCommand.environmentURL ?? configuration.url
    guard let url = URL(string: text) else { return nil }
    return EndpointEmbedder(url: url, model: configuration.model, dimensions: configuration.dimensions,
                            apiKey: EmbeddingsCommand.environmentAPIKey, requestTimeout: .seconds(30))
  }

  static let stagesOption = OptionSpec(
    name: "stages", kind: .value, valueName: "DIR", help: "Load custom stages from the .stage files in DIR (repeatable; also SEARCHLIGHT_STAGES).")

  /// `index`: an index the command opened itself (`serve` writes); nil opens `--db` for reading.
  init(_ arguments: ParsedArguments, command: String, index opened: SearchIndex? = nil) throws {
    let scope = try Common.scope(arguments, command: command)
    let timing = PhaseTiming.shared
    let index = try opened ?? timing.measure(.open) { try Common.openIndex(arguments, command: command, create: false, readOnly: true) }
    self.index = index
    registry = try timing.measure(.catalogue) { try Self.registry(arguments, catalog: try index.catalog(scope: scope), command: command) }
    var options = QueryOptions(scope: scope, clock: QueryClock(now: try Common.now(arguments, command: command), timeZone: TimeZone.current))
    if let path = arguments.value("identity") ?? ProcessInfo.processInfo.environment["SEARCHLIGHT_IDENTITY"] {
      guard FileManager.default.fileExists(atPath: path) else {
        throw CommandFailure(.noInput, "\(path): no such identity file", location: path)
      }
      do { options.identity = try Identity.load(path: path) } catch { throw CommandFailure(.dataError, "\(error)") }
    }
    // Hydration asks the sources that syncs recorded in the index.
    if let recorded = try? index.recordedSources(), !recorded.isEmpty {
      let sources = recorded.compactMap { try? SourceFactory.source($0.configuration) }
      if !sources.isEmpty { options.delegate = CompositeDelegate(sources) }
    }
    options.embedder = Self.queryEmbedder(index, arguments: arguments)
    self.options = options
  }

  var executor: QueryExecutor { QueryExecutor(index: index, registry: registry) }

  /// The standard stages, the example Swift stage, and the `.stage` files of `--stages` and
  /// SEARCHLIGHT_STAGES. A folder with any bad file reports every problem and fails (65)
  /// before anything runs.
  static func registry(_ arguments: ParsedArguments, catalog: AttributeCatalog?, command: String) throws -> StageRegistry {
    var registry = StandardLibrary.registryWithExamples()
    var folders = arguments.all("stages").flatMap { $0.split(separator: ",").map(String.init) }
    if folders.isEmpty, let environment = ProcessInfo.processInfo.environment["SEARCHLIGHT_STAGES"], !environment.isEmpty {
      folders = environment.split(separator: ":").map(String.init)
    }
    var problems: [DiagnosticsError] = []
    for folder in folders {
      guard FileManager.default.fileExists(atPath: folder) else {
        throw CommandFailure(.noInput, "\(folder): no such stage folder", location: folder)
      }
      do {
        problems += try StageFileLoader.load(directory: folder, into: &registry, catalog: catalog)
      } catch {
        throw CommandFailure(.noInput, "\(error)")
      }
    }
    if !problems.isEmpty {
      var failure = CommandFailure(problems[0])
      failure.message = "\(problems.count) stage file\(problems.count == 1 ? " has" : "s have") problems; nothing was run\n" + problems.map { DiagnosticRenderer.render($0) }.joined(separator: "\n")
      failure.location = nil
      failure.excerpt = []
      failure.hints = []
      failure.others = []
      throw failure
    }
    return registry
  }

  /// The query text: the positional arguments joined, or a usage error.
  static func queryText(_ arguments: ParsedArguments, command: String) throws -> String {
    guard !arguments.positionals.isEmpty else {
      throw UsageError(message: "missing QUERY", command: command)
    }
    return arguments.positionals.joined(separator: " ")
  }
}

/// Maps query-time errors to failures with exit codes.
func queryFailure(_ error: any Error) -> any Error {
  switch error {
  case let error as QueryError: return queryFailure(error.underlying)
  case let error as AnswerError: return queryFailure(error.underlying)
  case let error as DiagnosticsError: return CommandFailure(error)
  case let error as SearchIndexError: return CommandFailure(error)
  case let error as QueryRuntimeError: return CommandFailure(.dataError, error.message)
  case is QueryCancelled: return CommandFailure(.ioError, "query cancelled")
  case let error as EmbeddingError: return CommandFailure(error.isIOFailure ? .ioError : .dataError, error.message)
  case let error as ModelError: return ModelAccess.failure(error)
  default: return error
  }
}
