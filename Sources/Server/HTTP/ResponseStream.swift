import Foundation

/// A body written by a producer (an answer streaming in) while libmicrohttpd's connection
/// thread reads it: `write` appends, `finish` ends it, and `read` blocks the connection thread
/// until there is something to send. When the client goes away (or the server stops), the
/// stream is cancelled: writes are dropped and `onCancel` runs once so the producer can stop.
/// A connection thread waiting here cannot see the client leave, so a stream with a
/// `heartbeat` sends it after `heartbeatInterval` of silence (an SSE comment line): the write
/// fails once the client is gone, and libmicrohttpd ends the response.
///
/// `@unchecked Sendable`: every stored property is read and written only while `condition`
/// is locked, and the producer and the connection thread are different threads by design.
package final class ResponseStream: @unchecked Sendable {
  private let condition = NSCondition()
  private var buffer: [UInt8] = []
  private var finished = false
  private var cancelled = false
  private var cancelHandler: (@Sendable () -> Void)?
  private let heartbeat: [UInt8]
  private let heartbeatInterval: TimeInterval

  /// `heartbeat`: text sent after `heartbeatInterval` seconds without any (empty: none).
  package init(heartbeat: String = "", heartbeatInterval: TimeInterval = 15) {
    self.heartbeat = Array(heartbeat.utf8)
    self.heartbeatInterval = heartbeatInterval
  }

  /// Appends `text` for the client; ignored once the stream is finished or cancelled. With
  /// `waitingAbove`, first waits while more than that many bytes are unread, so a producer
  /// faster than the client holds a bounded buffer.
  package func write(_ text: String, waitingAbove highWater: Int? = nil) {
    condition.lock()
    defer { condition.unlock() }
    if let highWater {
      while buffer.count > highWater && !finished && !cancelled {
        _ = condition.wait(until: Date(timeIntervalSinceNow: 1))
      }
    }
    guard !finished, !cancelled else { return }
    buffer.append(contentsOf: text.utf8)
    condition.broadcast()
  }

  /// Ends the body once what was written has been read.
  package func finish() {
    condition.lock()
    defer { condition.unlock() }
    finished = true
    condition.broadcast()
  }

  /// True when the client went away or the server is stopping: the producer should stop.
  package var isCancelled: Bool {
    condition.lock()
    defer { condition.unlock() }
    return cancelled
  }

  /// Runs `handler` when the stream is cancelled (at once if it already was).
  package func onCancel(_ handler: @escaping @Sendable () -> Void) {
    condition.lock()
    if cancelled {
      condition.unlock()
      handler()
      return
    }
    cancelHandler = handler
    condition.unlock()
  }

  /// Stops the stream: the reader gets the end, the producer its cancel handler.
  package func cancel() {
    condition.lock()
    let handler = cancelled ? nil : cancelHandler
    cancelled = true
    cancelHandler = nil
    condition.broadcast()
    condition.unlock()
    handler?()
  }

  /// Up to `maximum` bytes, waiting for the producer; nil at the end of the body (finished
  /// and drained, or cancelled).
  func read(maximum: Int) -> [UInt8]? {
    condition.lock()
    defer { condition.unlock() }
    var quietSince = Date()
    while buffer.isEmpty && !finished && !cancelled {
      // A bounded wait, so a stuck producer never pins the thread past a cancel.
      _ = condition.wait(until: Date(timeIntervalSinceNow: min(1, heartbeatInterval)))
      if buffer.isEmpty, !heartbeat.isEmpty, !finished, !cancelled, Date().timeIntervalSince(quietSince) >= heartbeatInterval {
        quietSince = Date()
        return Array(heartbeat.prefix(maximum))
      }
    }
    if cancelled || buffer.isEmpty { return nil }
    let count = min(maximum, buffer.count)
    let chunk = Array(buffer[..<count])
    buffer.removeFirst(count)
    // A producer may be waiting for room.
    condition.broadcast()
    return chunk
  }
}
