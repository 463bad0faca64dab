import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex

/// `QueryExecutor.replies(for:options:)`: the async face of `execute`.
@Suite struct AsyncRepliesTests {
  static let query = #"search "orion"; search "launch""#

  static func executor() -> QueryExecutor {
    QueryExecutor(index: SampleIndex.shared, registry: StageRegistry())
  }

  @Test func theStreamCarriesTheSameRepliesAsExecute() async throws {
    let executor = Self.executor()
    var expected: [PipelineData] = []
    try executor.execute(try executor.prepare(Self.query, options: SampleIndex.options), options: SampleIndex.options) {
      if !$0.isPartial { expected.append($0.content) }
    }
    var streamed: [PipelineData] = []
    for try await reply in executor.replies(for: Self.query, options: SampleIndex.options) where !reply.isPartial {
      streamed.append(reply.content)
    }
    #expect(streamed == expected)
    #expect(streamed.count == 2)
  }

  @Test func aBadQueryThrowsItsDiagnostics() async throws {
    let error = await #expect(throws: QueryError.self) {
      for try await _ in Self.executor().replies(for: #"search "orion" |"#, options: SampleIndex.options) {}
    }
    #expect(error?.diagnostics?.primary.message == "expected a stage after '|'")
  }

  @Test func leavingEarlyOrCancellingEndsTheStreamWithoutAnError() async throws {
    var first: Reply?
    for try await reply in Self.executor().replies(for: Self.query, options: SampleIndex.options) {
      first = reply
      break
    }
    #expect(first != nil)
    let task = Task {
      var count = 0
      for try await _ in Self.executor().replies(for: Self.query, options: SampleIndex.options) { count += 1 }
      return count
    }
    task.cancel()
    // A cancelled iteration ends quietly: no error, and never more replies than the query has.
    let count = try await task.value
    #expect(count <= 3)
  }
}
