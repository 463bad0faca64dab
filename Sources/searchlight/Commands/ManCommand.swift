import Foundation

/// `searchlight man`: the manual page in roff, generated from the same text as `--help`, so
/// the page and the help never disagree. `make man` writes it to docs/searchlight.1.
enum ManCommand: Command {
  static let name = "man"
  static let abstract = "Print the manual page (roff), generated from the help of every command."
  static let usage = "man"
  static let discussion = """
    EXAMPLES:
      searchlight man | man -l -
      searchlight man > ~/.local/share/man/man1/searchlight.1
    """
  static let options: [OptionSpec] = []

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    guard arguments.positionals.isEmpty else { throw UsageError(message: "unexpected argument '\(arguments.positionals[0])'", command: name) }
    Terminal.out(page())
    return .success
  }

  /// The page: NAME, SYNOPSIS, DESCRIPTION, one subsection per command (its help text),
  /// ENVIRONMENT, FILES and EXIT STATUS.
  static func page() -> String {
    var page = """
      .TH SEARCHLIGHT 1 "" "searchlight \(CommandList.version)" "User Commands"
      .SH NAME
      searchlight \\- a private local search index with a pipeline query language
      .SH SYNOPSIS
      .B searchlight
      .I subcommand
      [\\fIoptions\\fR]
      .SH DESCRIPTION

      """
    page += preformatted(mainHelp())
    page += ".SH COMMANDS\n"
    for command in CommandList.all {
      page += ".SS \(escape(command.name))\n"
      page += preformatted(command.helpText)
    }
    page += """
      .SS version
      Print the version (also \\-\\-version).
      .SH ENVIRONMENT
      .TP
      .B SEARCHLIGHT_DB
      The index file when \\-\\-db is left out (before the configuration file).
      .TP
      .B SEARCHLIGHT_NOW
      Fixes the clock of $time, like \\-\\-now.
      .TP
      .B SEARCHLIGHT_HISTORY
      The REPL's history file (default $HOME/.searchlight_history; empty for none).
      .TP
      .B XDG_CONFIG_HOME
      Where the configuration file is looked for (default $HOME/.config).
      .TP
      .B NO_COLOR
      No colours when set.
      .SH FILES
      .TP
      .I $XDG_CONFIG_HOME/searchlight/config
      Optional \\fIkey = value\\fR lines for options left out: \(Config.keys.joined(separator: ", ")).
      A flag wins over the environment, which wins over the file.
      .SH EXIT STATUS
      0 success, 64 usage error, 65 bad query or bad data, 66 missing input,
      74 database or I/O failure, 130 interrupted (Ctrl\\-C).

      """
    return page
  }

  /// `text` as a no-fill block, so the help's own layout (columns, examples) is kept.
  private static func preformatted(_ text: String) -> String {
    var out = ".nf\n"
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      out += escape(String(line)) + "\n"
    }
    return out + ".fi\n"
  }

  /// Escapes roff's specials: backslashes, and a `.` or `'` that would start a request.
  static func escape(_ line: String) -> String {
    var escaped = line.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
    if escaped.hasPrefix(".") || escaped.hasPrefix("'") { escaped = "\\&" + escaped }
    return escaped
  }
}
