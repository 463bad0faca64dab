import Foundation
import SearchIndex

extension QueryExecutor {
  /// The replies of `query`, as they are produced:
  ///
  /// ```swift
  /// for try await reply in executor.replies(for: #"search "orion" | top 5"#) {
  ///   for item in reply.items { print(item.uniqueIdentifier) }
  /// }
  /// ```
  ///
  /// The query is parsed, checked and run off the caller's task, on a thread of its own
  /// (SQLite blocks). Cancelling the iterating task, or leaving the loop early, stops the
  /// query at its next check and ends the stream. Errors are `QueryError`s: the query's
  /// diagnostics (`.invalidQuery`), index failures (`.index`), run-time failures; a cancelled
  /// query just ends.
  public func replies(for query: String, options: QueryOptions = QueryOptions()) -> QueryReplies {
    let (stream, continuation) = AsyncThrowingStream<Reply, any Error>.makeStream()
    // Each stream cancels only its own query, even when the caller's options are shared.
    var options = options
    let cancellation = CancellationFlag()
    let callerCancellation = options.cancellation
    options.cancellation = cancellation
    continuation.onTermination = { _ in cancellation.cancel() }
    let run = options
    let thread = Thread {
      do throws(QueryError) {
        let graph = try prepare(query, options: run)
        try execute(graph, options: run) { reply in
          if callerCancellation.isCancelled { cancellation.cancel() }
          try cancellation.check()
          if case .terminated = continuation.yield(reply) { throw QueryCancelled() }
        }
        continuation.finish()
      } catch .cancelled {
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
    }
    thread.name = "searchlight-query"
    thread.start()
    return QueryReplies(stream, classify: QueryError.init)
  }
}

/// The replies of one query, in order, as `QueryExecutor.replies(for:options:)` produces
/// them; iterating throws only `QueryError`.
public typealias QueryReplies = ClassifiedStream<Reply, QueryError>

/// The elements of an `AsyncThrowingStream` whose iteration throws one error type: what the
/// stream finishes with, classified (`QueryError.init(_:)` for `QueryReplies`).
public struct ClassifiedStream<Element: Sendable, Failure: Error>: AsyncSequence, Sendable {
  let stream: AsyncThrowingStream<Element, any Error>
  let classify: @Sendable (any Error) -> Failure

  /// The elements of `stream`, its errors turned into `Failure`s by `classify`.
  package init(_ stream: AsyncThrowingStream<Element, any Error>, classify: @escaping @Sendable (any Error) -> Failure) {
    self.stream = stream
    self.classify = classify
  }

  public func makeAsyncIterator() -> Iterator { Iterator(base: stream.makeAsyncIterator(), classify: classify) }

  /// Iterates the elements.
  public struct Iterator: AsyncIteratorProtocol {
    var base: AsyncThrowingStream<Element, any Error>.Iterator
    let classify: @Sendable (any Error) -> Failure

    public mutating func next(isolation actor: isolated (any Actor)?) async throws(Failure) -> Element? {
      do { return try await base.next(isolation: actor) } catch { throw classify(error) }
    }

    public mutating func next() async throws(Failure) -> Element? {
      do { return try await base.next() } catch { throw classify(error) }
    }
  }
}
