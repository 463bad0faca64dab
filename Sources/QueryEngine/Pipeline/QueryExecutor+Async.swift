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
    return QueryReplies(stream: stream)
  }
}

/// The replies of one query, in order, as `QueryExecutor.replies(for:options:)` produces
/// them; iterating throws only `QueryError`.
public struct QueryReplies: AsyncSequence, Sendable {
  public typealias Element = Reply
  public typealias Failure = QueryError

  let stream: AsyncThrowingStream<Reply, any Error>

  public func makeAsyncIterator() -> Iterator { Iterator(base: stream.makeAsyncIterator()) }

  /// Iterates the replies.
  public struct Iterator: AsyncIteratorProtocol {
    public typealias Element = Reply
    public typealias Failure = QueryError
    var base: AsyncThrowingStream<Reply, any Error>.Iterator

    public mutating func next(isolation actor: isolated (any Actor)?) async throws(QueryError) -> Reply? {
      do { return try await base.next(isolation: actor) } catch { throw QueryError(error) }
    }

    public mutating func next() async throws(QueryError) -> Reply? {
      do { return try await base.next() } catch { throw QueryError(error) }
    }
  }
}
