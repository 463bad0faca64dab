#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import QueryEngine
import Synchronization

/// Turns Ctrl-C (SIGINT) into cancelling the running query, or into dropping the input line at
/// the prompt; it never ends the shell.
///
/// A signal handler may only do async-signal-safe work, so the handler counts the signal and
/// writes one byte to each of two pipes (the self-pipe pattern):
/// - a watcher thread reads the first and cancels the `CancellationFlag` of the running query,
///   if any; SQLite statements then stop at their next progress check and Swift stages at their
///   next item;
/// - the prompt's key reader waits on the second next to the terminal (`waitForKey`), so a
///   SIGINT wakes it whenever it arrives, even between two reads.
final class InterruptMonitor: Sendable {
  /// The one monitor of the process (signal dispositions are process-wide).
  static let shared = InterruptMonitor()

  /// SIGINTs received so far.
  private let received = Atomic<Int>(0)
  /// Handler to watcher thread: read end, write end.
  private let cancelPipe: (read: Int32, write: Int32)
  /// Handler to the prompt's key reader: read end, write end.
  private let wakePipe: (read: Int32, write: Int32)
  /// The flag of the query that is running, and the SIGINT count when it started: the watcher
  /// thread may run late (a loaded machine), and a Ctrl-C that dropped a line at the prompt
  /// must not cancel the query typed after it.
  private let current = Mutex<(flag: CancellationFlag, baseline: Int)?>(nil)
  private let installed = Atomic<Bool>(false)

  private init() {
    cancelPipe = Self.makePipe(nonblockingRead: false)
    wakePipe = Self.makePipe(nonblockingRead: true)
  }

  /// A close-on-exec pipe whose write end never blocks (a signal handler writes to it).
  private static func makePipe(nonblockingRead: Bool) -> (read: Int32, write: Int32) {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return (-1, -1) }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
    if nonblockingRead { _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK) }
    return (ends[0], ends[1])
  }

  /// How many SIGINTs have arrived; compare before and after a blocking call.
  var count: Int { received.load(ordering: .sequentiallyConsistent) }

  /// Installs the handler and starts the watcher thread (once).
  func install() {
    guard cancelPipe.read >= 0, wakePipe.read >= 0, !installed.exchange(true, ordering: .sequentiallyConsistent) else {
      return
    }
    // The watcher thread starts with SIGINT blocked (threads inherit the mask), so the signal
    // goes to the main thread, which runs queries and the prompt.
    var blocked = sigset_t()
    sigemptyset(&blocked)
    sigaddset(&blocked, SIGINT)
    pthread_sigmask(SIG_BLOCK, &blocked, nil)
    let thread = Thread { [self] in watch() }
    thread.name = "searchlight-interrupts"
    thread.start()
    pthread_sigmask(SIG_UNBLOCK, &blocked, nil)
    var action = sigaction()
    #if canImport(Glibc)
    action.__sigaction_handler.sa_handler = interruptHandler
    #else
    action.__sigaction_u.__sa_handler = interruptHandler
    #endif
    sigemptyset(&action.sa_mask)
    action.sa_flags = SA_RESTART
    sigaction(SIGINT, &action, nil)
  }

  /// Runs `body` with `flag` as the flag a SIGINT cancels.
  func running<T>(_ flag: CancellationFlag, _ body: () throws -> T) rethrows -> T {
    current.withLock { $0 = (flag, count) }
    defer { current.withLock { $0 = nil } }
    return try body()
  }

  /// Waits until `descriptor` can be read; false when a SIGINT arrived since the count was
  /// `baseline` (checked before waiting, and the wait wakes on a SIGINT, so none is missed).
  func waitForKey(on descriptor: Int32, since baseline: Int) -> Bool {
    var drain = [UInt8](repeating: 0, count: 64)
    while true {
      if count != baseline { return false }
      var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                         pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0)]
      let ready = poll(&descriptors, 2, -1)
      if ready < 0 && errno != EINTR { return true }  // let the read report the problem
      if descriptors[1].revents != 0 { while read(wakePipe.read, &drain, drain.count) > 0 {} }
      if count != baseline { return false }
      if descriptors[0].revents != 0 { return true }
    }
  }

  /// Called by the signal handler: only async-signal-safe work.
  fileprivate func signalled() {
    received.add(1, ordering: .sequentiallyConsistent)
    var byte: UInt8 = 1
    _ = write(cancelPipe.write, &byte, 1)
    _ = write(wakePipe.write, &byte, 1)
  }

  private func watch() {
    var byte: UInt8 = 0
    while true {
      let n = read(cancelPipe.read, &byte, 1)
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { return }
      current.withLock { running in
        if let running, count > running.baseline { running.flag.cancel() }
      }
    }
  }
}

/// The SIGINT handler: a C function pointer, so it captures nothing.
private func interruptHandler(_ signal: Int32) {
  InterruptMonitor.shared.signalled()
}
