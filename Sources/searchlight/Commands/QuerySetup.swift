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
  ]

  init(_ arguments: ParsedArguments, command: String) throws {
    let scope = try Common.scope(arguments, command: command)
    index = try Common.openIndex(arguments, command: command, create: false)
    registry = StandardLibrary.registry()
    var options = QueryOptions(scope: scope, clock: QueryClock(now: scope.now, timeZone: TimeZone.current))
    if let path = arguments.value("identity") ?? ProcessInfo.processInfo.environment["SEARCHLIGHT_IDENTITY"] {
      guard FileManager.default.fileExists(atPath: path) else {
        throw CommandFailure(.noInput, "\(path): no such identity file", location: path)
      }
      do { options.identity = try Identity.load(path: path) } catch { throw CommandFailure(.dataError, "\(error)") }
    }
    self.options = options
  }

  var executor: QueryExecutor { QueryExecutor(index: index, registry: registry) }

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
  case let error as DiagnosticsError: return CommandFailure(error)
  case let error as SearchIndexError: return CommandFailure(error)
  case let error as QueryRuntimeError: return CommandFailure(.dataError, error.message)
  case is QueryCancelled: return CommandFailure(.ioError, "query cancelled")
  default: return error
  }
}
