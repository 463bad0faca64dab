import Foundation
import Synchronization

/// A one-way flag shared by a test and the loopback server's thread.
///
/// Tests coordinate through gates instead of sleeping: the server can hold back the rest
/// of a response until the test has seen the first part, which proves streaming without
/// any assertion about how long something took.
package final class TestGate: Sendable {
  private let state = Mutex(false)
  private let condition = NSCondition()

  package init() {}

  /// How long a test waits for something that should happen at once: long, because a
  /// loaded two-core machine can starve a test for many seconds, and only a failing test
  /// ever waits this long.
  package static let patience: Duration = .seconds(120)

  package var isOpen: Bool { state.withLock { $0 } }

  package func open() {
    condition.lock()
    state.withLock { $0 = true }
    condition.broadcast()
    condition.unlock()
  }

  /// Blocks a server thread until the gate opens or `timeout` passes; true if it opened.
  package func blockingWait(timeout: Duration) -> Bool {
    let deadline = Date().addingTimeInterval(Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
    condition.lock()
    defer { condition.unlock() }
    while !isOpen {
      if !condition.wait(until: deadline) { return isOpen }
    }
    return true
  }

  /// Waits from async test code without blocking a cooperative thread (there are only two
  /// on the CI machine); polls because a condition variable cannot be awaited.
  ///
  /// The timeout counts polls, not clock time: synchronous tests running in parallel can hold
  /// both cooperative threads for minutes, and a waiter starved that long must not fail for
  /// it when the task it waits for was starved too.
  package func wait(timeout: Duration) async -> Bool {
    let interval = Duration.milliseconds(20)
    var polls = Int(timeout / interval)
    while !isOpen, polls > 0 {
      try? await Task.sleep(for: interval)
      polls -= 1
    }
    return isOpen
  }
}
