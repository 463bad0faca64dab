import Foundation

/// Why a model or embeddings request failed. Every error this layer throws is one of these.
public enum ModelError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
  /// No usable connection: refused, reset before a response, DNS failure, TLS failure.
  case unreachable(url: String, reason: String)
  /// The server answered with a non-2xx status, or streamed an `error` object. `body` is a
  /// one-line excerpt, preferring the server's own `error.message`.
  case http(status: Int, body: String)
  /// `idle` is true when an already-started response went silent for longer than the idle
  /// timeout; false when the whole request outlasted the request timeout.
  case timeout(seconds: Double, idle: Bool)
  /// The server took the request and then sent nothing at all (no status line) for longer
  /// than the idle timeout: hung, or thinking longer than the caller agreed to wait.
  case silent(seconds: Double)
  /// The server said something this client cannot interpret. `problem` names what was
  /// wrong; `excerpt` is the offending text, shortened to one line.
  case malformed(problem: String, excerpt: String)
  /// The request was cancelled before it completed.
  case cancelled
  /// No model was named and the server's `/v1/models` did not settle which one to use:
  /// `reason` says what it listed (several models, none) or why asking failed.
  case modelNotChosen(reason: String)

  public var description: String {
    switch self {
    case .unreachable(let url, let reason):
      return "model server unreachable at \(url): \(reason)"
    case .http(let status, let body):
      return body.isEmpty
        ? "model server returned http \(status) with an empty body"
        : "model server returned http \(status): \(body)"
    case .timeout(let seconds, let idle):
      return idle
        ? "model server sent nothing for \(Self.format(seconds))s in the middle of a response"
        : "model server did not complete the request within \(Self.format(seconds))s"
    case .silent(let seconds):
      return "model server sent no response within \(Self.format(seconds))s"
    case .malformed(let problem, let excerpt):
      return excerpt.isEmpty
        ? "malformed model server response: \(problem)"
        : "malformed model server response: \(problem) in: \(excerpt)"
    case .cancelled:
      return "model request cancelled"
    case .modelNotChosen(let reason):
      return "no model named: \(reason)"
    }
  }

  public var errorDescription: String? { description }

  /// Shortens server text to one line so that error descriptions stay one line whatever
  /// the server sent (HTML error pages, pretty-printed JSON, stack traces).
  static func excerpt(_ text: String, limit: Int = 240) -> String {
    let collapsed = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    guard collapsed.count > limit else { return collapsed }
    return String(collapsed.prefix(limit)) + "…"
  }

  static func excerpt(_ data: Data, limit: Int = 240) -> String {
    // Only the head is decoded: bodies can be megabytes, the excerpt never is.
    excerpt(String(decoding: data.prefix(limit * 4), as: UTF8.self), limit: limit)
  }

  /// Maps anything thrown inside the client to a `ModelError`, so callers see one type.
  init(wrapping error: any Error) {
    if let modelError = error as? ModelError {
      self = modelError
    } else if error is CancellationError {
      self = .cancelled
    } else {
      self = .malformed(problem: "unexpected internal error: \(error)", excerpt: "")
    }
  }

  /// Seconds as people write them: `60`, `1.50`.
  static func seconds(_ seconds: Double) -> String { format(seconds) }

  private static func format(_ seconds: Double) -> String {
    seconds.rounded() == seconds ? String(Int(seconds)) : String(format: "%.2f", seconds)
  }
}
