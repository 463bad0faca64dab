#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Where output goes, and what the terminal can do.
enum Terminal {
  /// True when standard error is a terminal (progress lines are shown only then).
  static var stderrIsTTY: Bool { isatty(2) == 1 }
  /// True when standard output is a terminal.
  static var stdoutIsTTY: Bool { isatty(1) == 1 }
  /// Colours only on a terminal and never with NO_COLOR (https://no-color.org).
  static var useColor: Bool { stdoutIsTTY && colorAllowed }
  /// False when NO_COLOR is set to anything.
  private static var colorAllowed: Bool { ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) ?? true }

  /// Columns of the terminal, 100 when unknown.
  static var width: Int {
    var size = winsize()
    if ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
    if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
    return 100
  }

  /// Columns of the terminal on standard error (where progress goes), 100 when unknown.
  static var errWidth: Int {
    var size = winsize()
    if ioctl(2, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
    return 100
  }

  /// Writes to standard output.
  static func out(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
  }

  /// Writes to standard error.
  static func err(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
  }

  /// One dim line on standard error (plain when it is not a terminal or with NO_COLOR): what
  /// the program did on the user's behalf.
  static func note(_ text: String) {
    let dim = stderrIsTTY && colorAllowed
    err(dim ? "\u{1B}[2m\(text)\u{1B}[0m\n" : text + "\n")
  }

  /// The note for a query that ran as a text search by the bare-word rule (`BareWords`).
  static func noteBareWords(_ search: String) {
    note("note: no query here, so searched the text: \(search)")
  }
}
