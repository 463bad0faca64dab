import Dispatch
import Synchronization

/// One response handed from a worker thread to the connection thread that waits for it.
final class StreamHandoff: Sendable {
  private let result = Mutex<Result<HTTPResponse, any Error>?>(nil)
  private let ready = DispatchSemaphore(value: 0)

  /// The first call wins; later ones are ignored.
  func answer(_ outcome: Result<HTTPResponse, any Error>) {
    let first = result.withLock { current -> Bool in
      guard current == nil else { return false }
      current = outcome
      return true
    }
    if first { ready.signal() }
  }

  func wait() -> Result<HTTPResponse, any Error> {
    ready.wait()
    return result.withLock { $0! }
  }
}
