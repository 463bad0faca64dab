import SearchIndex

/// Why a query did not prepare or run: the one error type `QueryExecutor`'s public entry
/// points throw (`throws(QueryError)`), so a caller can switch over every failure:
///
/// ```swift
/// do {
///   let graph = try executor.prepare(#"search rating > "high""#, options: options)
/// } catch .invalidQuery(let diagnostics) {
///   let (line, column) = diagnostics.primaryLocation
/// } catch .index(let error) {
///   // SQLite failed; `.database(let sqlite)` keeps its result code
/// } catch {
///   // .embedding, .runtime, .stage, .cancelled, .reply
/// }
/// ```
///
/// Its `description` is the underlying error's, word for word.
public enum QueryError: Error, Sendable, CustomStringConvertible {
  /// The query did not parse or type-check, or it is over a syntax limit (nesting depth,
  /// length): every diagnostic at once, each with its span (line and column through
  /// `DiagnosticsError.source`).
  case invalidQuery(DiagnosticsError)
  /// The index failed; `.database` keeps SQLite's result code.
  case index(SearchIndexError)
  /// Embedding a `similar` phrase failed (no embeddings, a model mismatch, an unreachable
  /// endpoint).
  case embedding(EmbeddingError)
  /// A built-in stage failed while running, or a run-time limit was reached (a pattern too
  /// complex, a selection of a value that is not a number, a custom stage returning a type
  /// it did not declare).
  case runtime(QueryRuntimeError)
  /// A custom stage threw an error of its own; `error` is that error, unchanged.
  case stage(name: String, error: any Error)
  /// The query was cancelled (its `CancellationFlag`, or the task iterating its replies).
  case cancelled
  /// The caller's `onReply` threw `error`, which ended the run; it is passed back unchanged.
  case reply(any Error)

  /// Classifies an error thrown inside the engine. Errors of no known kind come from the
  /// caller's `onReply` (custom stages' own errors are tagged where they are thrown).
  public init(_ error: any Error) {
    switch error {
    case let error as QueryError: self = error
    case let error as DiagnosticsError: self = .invalidQuery(error)
    case let error as SearchIndexError: self = .index(error)
    case let error as DatabaseError: self = .index(.database(error))
    case let error as EmbeddingError: self = .embedding(error)
    case let error as QueryRuntimeError: self = .runtime(error)
    case let error as CustomStageFailure: self = .stage(name: error.stage, error: error.error)
    case is QueryCancelled, is CancellationError: self = .cancelled
    default: self = .reply(error)
    }
  }

  /// The error this one wraps (`DiagnosticsError`, `SearchIndexError`, `EmbeddingError`,
  /// `QueryRuntimeError`, a stage's or `onReply`'s own error, `QueryCancelled`), for callers
  /// that map errors by their type.
  public var underlying: any Error {
    switch self {
    case .invalidQuery(let error): error
    case .index(let error): error
    case .embedding(let error): error
    case .runtime(let error): error
    case .stage(_, let error): error
    case .cancelled: QueryCancelled()
    case .reply(let error): error
    }
  }

  /// The diagnostics of an invalid query; nil for the other cases.
  public var diagnostics: DiagnosticsError? {
    if case .invalidQuery(let error) = self { return error }
    return nil
  }

  public var description: String { "\(underlying)" }

  /// Runs `body`, classifying what it throws: the bridge from the engine's untyped internals
  /// to the typed public surface.
  package static func catching<T>(_ body: () throws -> T) throws(QueryError) -> T {
    do { return try body() } catch { throw QueryError(error) }
  }
}

extension DiagnosticsError {
  /// The 1-based line and column (in UTF-8 bytes) where the primary diagnostic starts.
  public var primaryLocation: (line: Int, column: Int) { source.location(of: primary.span.start) }
}

/// A custom stage's own error, tagged with the stage's name on its way out of the engine.
struct CustomStageFailure: Error, CustomStringConvertible {
  let stage: String
  let error: any Error
  var description: String { "\(error)" }

  /// Runs a custom stage's code: its own errors are tagged, the engine's pass unchanged.
  static func tagging<T>(_ stage: String, _ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as CustomStageFailure {
      throw error
    } catch let error as QueryError {
      // A nested query's failure, thrown by the stage's own code.
      throw CustomStageFailure(stage: stage, error: error)
    } catch {
      // The engine's kinds are those `QueryError` classifies; anything else is the stage's.
      switch QueryError(error) {
      case .reply: throw CustomStageFailure(stage: stage, error: error)
      case .cancelled: throw QueryCancelled()
      default: throw error
      }
    }
  }
}
