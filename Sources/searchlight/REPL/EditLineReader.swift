#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import CEditLine
import Foundation
import SearchIndex
import Synchronization

/// The thin libedit layer of the interactive REPL: `readline` with line editing, history kept
/// in a file, and tab completion answered by `ReplCompleter`.
///
/// Keys are read by `readKey`, which waits on the terminal and on `InterruptMonitor` together:
/// a Ctrl-C at the prompt ends `readline` (with nil) whenever it arrives, without relying on a
/// `read` being interrupted at the right moment.
///
/// libedit's readline interface is global state, so there is one reader per process, used from
/// the main thread. See editline(3) and `<editline/readline.h>`.
final class EditLineReader {
  /// What the C callbacks (function pointers, so they capture nothing) read.
  private struct CallbackContext: Sendable {
    var completer: ReplCompleter?
    /// Earlier lines of the input being continued, so completion knows where it is.
    var pendingText = ""
    /// The SIGINT count when the current `readline` began.
    var interruptBaseline = 0
  }

  private static let context = Mutex(CallbackContext())
  private let historyPath: String?
  /// The last input added, so repeating it does not fill the history.
  private var lastEntry: String?

  /// Sets libedit up; reads the history from `historyPath` when given.
  init(historyPath: String?, completer: ReplCompleter) {
    self.historyPath = historyPath
    // libedit edits characters, not bytes: it needs a UTF-8 character type (LC_CTYPE only, so
    // number formatting is unchanged). Fall back to C.UTF-8 when the environment names none.
    let ctype = setlocale(LC_CTYPE, "").map { String(cString: $0) } ?? "C"
    if !ctype.uppercased().contains("UTF-8") && !ctype.uppercased().contains("UTF8") { _ = setlocale(LC_CTYPE, "C.UTF-8") }
    Self.context.withLock { $0.completer = completer }
    // The REPL handles SIGINT itself (InterruptMonitor): libedit's own handler would re-raise
    // it to the whole process group. Completion breaks words where ReplCompleter does, so the
    // word libedit replaces is the word completed. Both strings live as long as the process.
    searchlight_rl_configure(
      strdup("searchlight"), strdup(ReplCompleter.wordBreakCharacters), attemptCompletion, readKeyCallback,
      Terminal.stdoutIsTTY ? 0 : 1)
    rl_initialize()
    using_history()
    stifle_history(1000)
    if let historyPath { _ = read_history(historyPath) }
  }

  /// Replaces the completer (after the index changed).
  func update(_ completer: ReplCompleter) {
    Self.context.withLock { $0.completer = completer }
  }

  /// Reads one line after showing `prompt`; nil at end of input or when a SIGINT interrupted
  /// the read (the caller tells them apart with `InterruptMonitor`). `pendingText` is the
  /// earlier lines of a continued input, for completion.
  func readLine(prompt: String, pendingText: String) -> String? {
    let baseline = InterruptMonitor.shared.count
    Self.context.withLock {
      $0.pendingText = pendingText.isEmpty ? "" : pendingText + "\n"
      $0.interruptBaseline = baseline
    }
    guard let line = readline(prompt) else { return nil }
    defer { free(line) }
    return String(cString: line)
  }

  /// Adds an input to the history and saves the history file (owner-only: queries can be
  /// private).
  func addHistory(_ entry: String) {
    guard entry != lastEntry else { return }
    lastEntry = entry
    _ = add_history(entry)
    guard let historyPath else { return }
    if write_history(historyPath) == 0 { chmod(historyPath, 0o600) }
  }

  /// The completion callback: the candidates for the word before the cursor, in readline's
  /// shape (the replacement first, then each candidate, then NULL, all malloc'd and freed by
  /// libedit); NULL with `rl_attempted_completion_over = 0` falls back to file names.
  /// See `fn_complete` in libedit's filecomplete.c.
  fileprivate static func complete() -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
    searchlight_rl_set_completion_over(1)
    guard let buffer = searchlight_rl_line_buffer() else { return nil }
    // The cursor is a byte offset into the UTF-8 line buffer.
    let bytes = UnsafeRawBufferPointer(start: buffer, count: Int(max(0, searchlight_rl_point())))
    let line = String(decoding: bytes, as: UTF8.self)
    let (completer, pending) = context.withLock { ($0.completer, $0.pendingText) }
    guard let completer else { return nil }
    let result = completer.complete(pending + line)
    if result.wantsFileNames {
      searchlight_rl_set_completion_over(0)
      return nil
    }
    guard let replacement = ReplCompleter.replacement(for: result) else { return nil }
    // libedit reads matches[2] even for a single match, so one match is sent as [m, m, NULL],
    // which it also recognises as "complete: append a space".
    let entries = [replacement] + (result.candidates.count > 1 ? result.candidates : [replacement])
    guard let array = malloc(MemoryLayout<UnsafeMutablePointer<CChar>?>.stride * (entries.count + 1))?
      .bindMemory(to: UnsafeMutablePointer<CChar>?.self, capacity: entries.count + 1)
    else { return nil }
    for (index, entry) in entries.enumerated() { array[index] = strdup(entry) }
    array[entries.count] = nil
    return array
  }
}

extension EditLineReader {
  /// `rl_getc_function`: the next character typed, whole (libedit stores what this returns as
  /// one `wchar_t`, so UTF-8 sequences are decoded here), or -1 for end of input and for a
  /// SIGINT since `readline` began.
  fileprivate static func readKey() -> Int32 {
    let baseline = context.withLock { $0.interruptBaseline }
    guard InterruptMonitor.shared.waitForKey(on: 0, since: baseline) else { return -1 }
    guard let lead = readByte() else { return -1 }
    let length = UTF8Validation.sequenceLength(lead: lead)
    guard length > 1 else { return Int32(lead) }
    var bytes = [lead]
    for _ in 1..<length {
      guard let next = readByte() else { break }
      bytes.append(next)
    }
    return Int32(String(decoding: bytes, as: UTF8.self).unicodeScalars.first?.value ?? 0xFFFD)
  }

  /// One byte from the terminal; nil at end of input.
  private static func readByte() -> UInt8? {
    var byte: UInt8 = 0
    while true {
      let n = read(0, &byte, 1)
      if n == 1 { return byte }
      if n < 0 && errno == EINTR { continue }
      return nil
    }
  }
}

/// `rl_getc_function`; the stream is always standard input.
private func readKeyCallback(_ stream: UnsafeMutablePointer<FILE>?) -> Int32 {
  EditLineReader.readKey()
}

/// `rl_attempted_completion_function`: the word, its start and end (ignored: the completer
/// reads the whole line up to the cursor).
private func attemptCompletion(
  _ text: UnsafePointer<CChar>?, _ start: Int32, _ end: Int32
) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
  EditLineReader.complete()
}
