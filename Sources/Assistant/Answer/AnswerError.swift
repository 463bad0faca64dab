import Foundation
import QueryEngine

/// Why an answer ended without `.done`: the one error type `AnswerSession.respond(to:)` and
/// the iteration of `AnswerSession.streamResponse(to:)` throw.
///
/// ```swift
/// do {
///   let summary = try await session.respond(to: "When is the Orion launch?")
/// } catch .model(let failure) {
///   // the model failed and `Configuration.fallback` did not allow the offline answer
/// } catch .query(let failure) {
///   // a search failed: the index, a query, an embeddings endpoint
/// } catch {
///   // .cancelled
/// }
/// ```
///
/// Its `description` is the underlying error's, word for word.
public enum AnswerError: Error, Sendable, CustomStringConvertible {
  /// The answer was cancelled (its task, or a cancelled query) before it was complete.
  case cancelled
  /// The model failed before answering, and the session's `fallback` did not give the
  /// offline answer instead.
  case model(ModelError)
  /// A search failed: the index, a query the answer ran, an embeddings endpoint.
  case query(QueryError)

  /// Classifies an error thrown while answering.
  public init(_ error: any Error) {
    switch error {
    case let error as AnswerError: self = error
    case let error as ModelError: self = .model(error)
    case is CancellationError: self = .cancelled
    default:
      let failure = QueryError(error)
      if case .cancelled = failure { self = .cancelled } else { self = .query(failure) }
    }
  }

  /// The error this one wraps (`ModelError`, `QueryError`, or `CancellationError`), for
  /// callers that map errors by their type.
  public var underlying: any Error {
    switch self {
    case .cancelled: CancellationError()
    case .model(let error): error
    case .query(let error): error
    }
  }

  public var description: String { "\(underlying)" }
}

/// The events of one answer, as `AnswerSession.streamResponse(to:)` produces them; iterating
/// throws only `AnswerError`.
public typealias AnswerEvents = ClassifiedStream<AnswerEvent, AnswerError>
