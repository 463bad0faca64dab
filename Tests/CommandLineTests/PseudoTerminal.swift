#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Runs `searchlight` on a pseudo-terminal, as a person at a terminal would: its standard input,
/// output and error are the terminal, so it edits lines with libedit and shows prompts. The test
/// types into the terminal and reads what appears.
///
/// Waits have generous deadlines only so a broken build fails instead of hanging; no test
/// asserts how long anything takes. Tests read the screen in order with `expect`, which moves a
/// mark forward, and type at the prompt with `enter`.
final class PseudoTerminal {
  private let process = Process()
  private let master: Int32
  /// Everything the program wrote so far, escape sequences removed.
  private(set) var screen = ""
  private var raw: [UInt8] = []
  /// Everything the program wrote so far, as written.
  var rawText: String { String(decoding: raw, as: UTF8.self) }

  /// Starts `searchlight arguments...` in `directory` on a terminal `columns` wide.
  init(_ arguments: [String], in directory: URL, environment: [String: String] = [:], columns: UInt16 = 100) throws {
    var size = winsize(ws_row: 40, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
    var masterEnd: Int32 = -1, slave: Int32 = -1
    // glibc's openpty opens the terminal with O_NOCTTY: it never becomes the test runner's
    // controlling terminal.
    guard openpty(&masterEnd, &slave, nil, nil, &size) == 0 else { throw PseudoTerminalError("openpty failed") }
    master = masterEnd
    // Close-on-exec, so programs other tests start do not hold this terminal open.
    _ = fcntl(master, F_SETFD, FD_CLOEXEC)
    _ = fcntl(slave, F_SETFD, FD_CLOEXEC)
    let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: true)

    process.executableURL = CLI.executable
    process.arguments = arguments
    process.currentDirectoryURL = directory
    var env = ProcessInfo.processInfo.environment
    env["SEARCHLIGHT_DB"] = nil
    env["SEARCHLIGHT_NOW"] = nil
    env["NO_COLOR"] = nil
    env["COLUMNS"] = nil
    env["TERM"] = "xterm"
    env.merge(environment) { $1 }
    process.environment = env
    process.standardInput = handle
    process.standardOutput = handle
    process.standardError = handle
    try process.run()
    // Only the child holds the terminal now, so reads end when it exits.
    try handle.close()
  }

  deinit {
    if process.isRunning { process.terminate() }
    close(master)
  }

  /// Types `text` (control characters included: "\r" is Return, "\u{04}" Ctrl-D).
  func type(_ text: String) {
    var bytes = Array(text.utf8)
    while !bytes.isEmpty {
      let written = write(master, bytes, bytes.count)
      if written < 0 { if errno == EINTR { continue } else { return } }
      bytes.removeFirst(written)
    }
  }

  /// Sends SIGINT, as Ctrl-C does at a terminal that controls the process.
  func interrupt() { process.interrupt() }

  /// Where `expect` looks from: a UTF-8 offset into `screen`, just after the last expected text.
  private var mark = 0

  /// Waits until `text` appears on the screen after the mark (or the deadline passes), then moves
  /// the mark past it; false when it never came.
  @discardableResult
  func expect(_ text: String, deadline seconds: Double = 60) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while true {
      let view = screen.utf8
      let start = view.index(view.startIndex, offsetBy: min(mark, view.count))
      if let range = screen.range(of: text, range: start..<screen.endIndex) {
        mark = view.distance(from: view.startIndex, to: range.upperBound)
        return true
      }
      guard Date() < end, readSome() != .end else { return false }
    }
  }

  /// Waits for the prompt and for the line editor to read keys, then types `line` and Return.
  @discardableResult
  func enter(_ line: String, prompt: String = "searchlight> ") -> Bool {
    guard expect(prompt), waitForLineEditor() else { return false }
    type(line + "\r")
    return true
  }

  /// Waits until the line editor has put the terminal in raw mode (no ICANON). libedit prints
  /// the prompt before it switches, and keys typed in between meet the cooked terminal, which
  /// swallows a Ctrl-D as end-of-file. A pty's master shares the terminal's settings.
  @discardableResult
  func waitForLineEditor(deadline seconds: Double = 60) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    var settings = termios()
    while Date() < end {
      if tcgetattr(master, &settings) == 0, settings.c_lflag & tcflag_t(ICANON) == 0 { return true }
      _ = readSome(timeout: 10)
    }
    return false
  }

  /// Waits for the program to exit and returns its status (nil when it did not exit in time).
  func waitForExit(deadline seconds: Double = 60) -> Int32? {
    let end = Date().addingTimeInterval(seconds)
    while process.isRunning, Date() < end { _ = readSome(timeout: 100) }
    while readSome(timeout: 10) == .data {}
    if process.isRunning { return nil }
    return process.terminationStatus
  }

  private enum ReadResult { case data, timeout, end }

  /// Reads what is available within `timeout` milliseconds.
  private func readSome(timeout: Int32 = 200) -> ReadResult {
    var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
    let ready = poll(&descriptor, 1, timeout)
    if ready < 0 { return errno == EINTR ? .timeout : .end }
    if ready == 0 { return .timeout }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let count = read(master, &buffer, buffer.count)
    if count < 0 && errno == EINTR { return .timeout }
    if count <= 0 { return .end }
    raw.append(contentsOf: buffer[0..<count])
    screen = Self.stripEscapes(String(decoding: raw, as: UTF8.self))
    return .data
  }

  /// The text without ANSI escape sequences, bells and carriage returns.
  static func stripEscapes(_ text: String) -> String {
    var out = ""
    var iterator = text.unicodeScalars.makeIterator()
    while let scalar = iterator.next() {
      switch scalar {
      case "\u{1B}":
        guard let next = iterator.next() else { break }
        if next == "[" {
          while let c = iterator.next(), !(c.value >= 0x40 && c.value <= 0x7E) {}
        }
      case "\r", "\u{07}": continue
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}

struct PseudoTerminalError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
