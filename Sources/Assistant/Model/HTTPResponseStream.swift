import Foundation

/// The body of a response whose head has arrived, read piece by piece as the server sends it.
///
/// Not Sendable on purpose: it wraps a stream iterator and belongs to the one task that
/// reads it. Dropping it cancels the transfer.
struct HTTPResponseStream {
  let url: URL
  let status: Int
  /// Header names are lowercased.
  let headers: [String: String]
  private var iterator: AsyncThrowingStream<HTTPExchange.Part, any Error>.AsyncIterator

  init(url: URL, status: Int, headers: [String: String], iterator: AsyncThrowingStream<HTTPExchange.Part, any Error>.AsyncIterator) {
    self.url = url
    self.status = status
    self.headers = headers
    self.iterator = iterator
  }

  /// The media type without parameters, lowercased; empty when the server sent none.
  var mediaType: String {
    let value = headers["content-type"] ?? ""
    return value.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
  }

  /// The next piece of body, or nil at the end. Throws `ModelError` only; ending because
  /// the reading task was cancelled is reported as `.cancelled` rather than a short body.
  mutating func next() async throws -> Data? {
    do {
      while let part = try await iterator.next() {
        if case .body(let data) = part { return data }
      }
    } catch let failure as HTTPExchange.Failure {
      throw failure.error
    } catch {
      throw ModelError(wrapping: error)
    }
    if Task.isCancelled { throw ModelError.cancelled }
    return nil
  }

  /// The whole remaining body; a body larger than `limit` is a malformed response, since no
  /// legitimate completion or embeddings batch comes near it.
  mutating func readAll(limit: Int) async throws -> Data {
    var body = Data()
    while let chunk = try await next() {
      body.append(chunk)
      if body.count > limit {
        throw ModelError.malformed(problem: "response body larger than \(limit) bytes", excerpt: ModelError.excerpt(body))
      }
    }
    return body
  }

  /// As much of an error body as arrives within `limit` bytes; failures while reading it
  /// are ignored because the status is already the error worth reporting.
  mutating func readErrorBody(limit: Int) async -> Data {
    var body = Data()
    while body.count < limit, let chunk = try? await next() {
      body.append(chunk)
    }
    return body.prefix(limit)
  }
}
