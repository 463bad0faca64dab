/// Exit statuses of `searchlight` (sysexits.h), a contract scripts rely on (DESIGN §6).
enum ExitCode: Int32 {
  case success = 0
  /// A command-line usage error (unknown option, missing argument).
  case usage = 64
  /// A bad query or bad data.
  case dataError = 65
  /// An input file that does not exist or cannot be read.
  case noInput = 66
  /// A database or I/O failure.
  case ioError = 74
  /// Stopped by Ctrl-C (128 + SIGINT, as shells report it).
  case interrupted = 130
}
