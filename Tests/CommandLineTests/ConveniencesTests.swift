import Foundation
import Testing

/// The configuration file, shell completions, the man page and the REPL history's home.
@Suite struct ConveniencesTests {
  /// Every command name and its options as the binary's help lists them.
  func commandsAndOptions(_ workspace: Workspace) throws -> [(String, [String])] {
    let overview = try workspace.run("--help").stdout
    let section = overview.components(separatedBy: "SUBCOMMANDS:\n").last ?? ""
    let names = section.split(separator: "\n").compactMap { line -> String? in
      guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
      return line.split(separator: " ").first.map(String.init)
    }.filter { $0 != "See" }
    #expect(names.count > 20)
    return try names.map { name in
      let help = try workspace.run(name, "--help").stdout
      let options = (help.components(separatedBy: "\nOPTIONS:\n").dropFirst().first ?? "").split(separator: "\n").compactMap { line in
        line.split(separator: " ").first.map(String.init)
      }.filter { $0.hasPrefix("--") }
      return (name, options)
    }
  }

  @Test(arguments: ["bash", "zsh", "fish"])
  func completionsMentionEveryCommandAndItsOptions(_ shell: String) throws {
    try Workspace.with { workspace in
      let result = try workspace.run("completions", shell)
      #expect(result.status == 0, "\(result)")
      #expect(result.stderr == "")
      let script = result.stdout
      for (command, options) in try commandsAndOptions(workspace) {
        #expect(script.contains(command), "\(shell): \(command)")
        // The options of this command appear on its own line(s) of the script.
        let lines = script.split(separator: "\n").filter {
          $0.contains("\(command))") || $0.contains("from \(command)'") || $0.contains(" \(command) ")
        }
        for option in options {
          let bare = String(option.dropFirst(2))
          let found: Bool
          switch shell {
          case "fish": found = lines.contains { $0.contains(" -l \(bare) ") || $0.hasSuffix(" -l \(bare)") }
          case "bash": found = lines.contains { $0.contains(option) }
          default:
            // zsh: the option lines follow the command's `name)` line.
            let block = script.components(separatedBy: "\n    \(command))\n").dropFirst().first?.components(separatedBy: ";;").first ?? ""
            found = block.contains("'\(option)[")
          }
          #expect(found, "\(shell): \(command) \(option)")
        }
      }
    }
  }

  /// The bash script loads in bash and completes commands and the options of one.
  @Test func bashCompletionCompletes() throws {
    try Workspace.with { workspace in
      try workspace.write("searchlight.bash", try workspace.run("completions", "bash").stdout)
      func complete(_ words: String) throws -> String {
        let script = """
          source ./searchlight.bash
          COMP_WORDS=(\(words)); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
          _searchlight
          echo "${COMPREPLY[*]}"
          """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = workspace.directory
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
      }
      #expect(try complete("searchlight ind") == "index")
      #expect(try complete("searchlight index --ba") == "--batch")
      #expect(try complete("searchlight query --pro") == "--protection")
    }
  }

  @Test func unknownShellIsAUsageError() throws {
    try Workspace.with { workspace in
      let result = try workspace.run("completions", "tcsh")
      #expect(result.status == 64)
      #expect(result.stderr.contains("unknown shell 'tcsh'; use bash, zsh or fish"))
    }
  }

  @Test func manPageHasEveryCommand() throws {
    try Workspace.with { workspace in
      let result = try workspace.run("man")
      #expect(result.status == 0, "\(result)")
      let page = result.stdout
      #expect(page.hasPrefix(".TH SEARCHLIGHT 1 "))
      for section in [".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH COMMANDS", ".SH ENVIRONMENT", ".SH FILES", ".SH EXIT STATUS"] {
        #expect(page.contains("\n\(section)\n"), "\(section)")
      }
      for (command, _) in try commandsAndOptions(workspace) {
        #expect(page.contains("\n.SS \(command.replacingOccurrences(of: "-", with: "\\-"))\n"), "\(command)")
      }
      // No line starts a roff request by accident: every line starting with '.' is a known one.
      let requests = Set([".TH", ".SH", ".SS", ".nf", ".fi", ".TP", ".B", ".I"])
      for line in page.split(separator: "\n") where line.hasPrefix(".") {
        #expect(requests.contains(String(line.split(separator: " ").first ?? "")), "\(line)")
      }
    }
  }

  /// `query ARGUMENTS 'search * | count'` with the given environment.
  func query(_ workspace: Workspace, _ arguments: [String], environment: [String: String] = [:]) throws -> CLIResult {
    try workspace.run(["query"] + arguments + ["search * | count"], environment: environment)
  }

  @Test func dbComesFromFlagThenEnvironmentThenConfig() throws {
    try Workspace.with { workspace in
      let mini = fixtures.appendingPathComponent("mini.jsonl").path
      #expect(try workspace.run("index", "--db", "config.db", mini).status == 0)
      try workspace.write("two.jsonl", #"{"id":"a","attributes":{"title":"A"}}"# + "\n" + #"{"id":"b","attributes":{"title":"B"}}"# + "\n"
        + #"{"id":"c","attributes":{"title":"C"}}"# + "\n")
      #expect(try workspace.run("index", "--db", "env.db", "two.jsonl").status == 0)
      try workspace.write(".config/searchlight/config", "# defaults\ndb = config.db\nformat = json\n")

      // Only the config: its db, and its output format for query.
      let fromConfig = try query(workspace, [])
      #expect(fromConfig.status == 0, "\(fromConfig)")
      #expect(fromConfig.stdout.contains(#""count":1"#), "\(fromConfig)")
      // The environment wins over the config.
      let fromEnvironment = try query(workspace, [], environment: ["SEARCHLIGHT_DB": "env.db"])
      #expect(fromEnvironment.stdout.contains(#""count":3"#), "\(fromEnvironment)")
      // A flag wins over both; --format on the command line wins over the config's.
      let fromFlag = try query(workspace, ["--db", "env.db", "--format", "table"], environment: ["SEARCHLIGHT_DB": "config.db"])
      #expect(fromFlag.status == 0)
      #expect(fromFlag.stdout.contains("3"))
      #expect(!fromFlag.stdout.contains("{"))
      // The config's protection grants what it names.
      try workspace.write(".config/searchlight/config", "db = config.db\nformat = json\nprotection = private\n")
      #expect(try query(workspace, []).stdout.contains(#""count":2"#))
    }
  }

  @Test func aBadConfigLineIsAWarningNotAFailure() throws {
    try Workspace.with { workspace in
      #expect(try workspace.run("index", "--db", "x.db", fixtures.appendingPathComponent("mini.jsonl").path).status == 0)
      try workspace.write(".config/searchlight/config", "colour = blue\njust words\ndb = x.db\n")
      let result = try query(workspace, [])
      #expect(result.status == 0, "\(result)")
      #expect(result.stderr.contains("config:1: unknown key 'colour' (keys: db, index, protection, format, now, stages)"), "\(result)")
      #expect(result.stderr.contains("config:2: expected 'key = value'"))
    }
  }

  @Test func replHistoryLivesInHome() throws {
    try Workspace.with { workspace in
      try workspace.write("home/.keep", "")
      let mini = fixtures.appendingPathComponent("mini.jsonl").path
      #expect(try workspace.run("index", "--db", "index.db", mini).status == 0)
      let terminal = try PseudoTerminal(
        ["repl", "--db", "index.db"], in: workspace.directory,
        environment: ["HOME": workspace.path("home"), "XDG_CONFIG_HOME": workspace.path(".config")])
      #expect(terminal.enter("search * | count"))
      #expect(terminal.enter(".quit"))
      #expect(terminal.waitForExit() == 0)
      let history = String(decoding: workspace.contents("home/.searchlight_history") ?? Data(), as: UTF8.self)
      // libedit writes spaces as \040.
      #expect(history.replacingOccurrences(of: "\\040", with: " ").contains("search * | count"), "\(history)")
    }
  }
}
