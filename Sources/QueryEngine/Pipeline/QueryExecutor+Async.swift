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
  /// query at its next check and ends the stream. Errors are the query's diagnostics
  /// (`DiagnosticsError`), runtime errors (`QueryRuntimeError`) and index errors
  /// (`SearchIndexError`); a cancelled query just ends.
  public func replies(for query: String, options: QueryOptions = QueryOptions()) -> AsyncThrowingStream<Reply, any Error> {
    let (stream, continuation) = AsyncThrowingStream<Reply, any Error>.makeStream()
    // Each stream cancels only its own query, even when the caller's options are shared.
    var options = options
    let cancellation = CancellationFlag()
    let callerCancellation = options.cancellation
    options.cancellation = cancellation
    continuation.onTermination = { _ in cancellation.cancel() }
    let run = options
    let thread = Thread {
      do {
        let graph = try prepare(query, options: run)
        try execute(graph, options: run) { reply in
          if callerCancellation.isCancelled { cancellation.cancel() }
          try cancellation.check()
          if case .terminated = continuation.yield(reply) { throw QueryCancelled() }
        }
        continuation.finish()
      } catch is QueryCancelled {
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
    }
    thread.name = "searchlight-query"
    thread.start()
    return stream
  }
}
