import Foundation
import Testing

/// Usage errors, `--help` and `--version`: what every command shares.
@Suite struct ArgumentsTests {
  func usage(_ command: String, _ message: String) -> String {
    "error: \(message)\nUsage: searchlight \(command) ...\n  See 'searchlight \(command) --help'.\n"
  }

  @Test(arguments: [
    (["stats", "--db", "index.db", "--fromat", "json"], "stats", "unknown option '--fromat'; did you mean '--format'?"),
    (["index", "--db", "index.db", "--updte", "items.jsonl"], "index", "unknown option '--updte'; did you mean '--update'?"),
    (["index", "--db", "index.db", "--zzzzzz", "items.jsonl"], "index", "unknown option '--zzzzzz'"),
    (["index", "--db", "index.db", "-x", "items.jsonl"], "index", "unknown option '-x'"),
    (["stats"], "stats", "missing '--db <FILE>'"),
    (["index", "items.jsonl"], "index", "missing '--db <FILE>'"),
    (["delete", "--all"], "delete", "missing '--db <FILE>'"),
    (["stats", "--db"], "stats", "missing value for '--db <FILE>'"),
    (["index", "--db", "index.db"], "index", "missing PATH: give item files, folders or '-' for standard input"),
    (["stats", "--db", "index.db", "--format", "xml"], "stats", "unknown format 'xml'; use one of table, json"),
    (["index", "--db", "index.db", "--format", "csv", "items.jsonl"], "index", "unknown format 'csv'; use one of auto, items, corpus"),
    (["stats", "--db", "index.db", "--now", "noon"], "stats", "'noon' is not an ISO-8601 date (e.g. 2026-11-29T12:00:00Z)"),
    (["index", "--db", "index.db", "--update=yes", "items.jsonl"], "index", "option '--update' takes no value"),
    (["index", "--db", "index.db", "--domain", "a..b", "items.jsonl"], "index",
     "invalid domain \"a..b\": use dot-separated names such as mail.inbox"),
  ])
  func usageErrorsExit64WithTheArgumentParserShape(_ arguments: [String], _ command: String, _ message: String) throws {
    try Workspace.with { workspace in
      try workspace.write("items.jsonl", #"{"id":"a"}"# + "\n")
      let result = try workspace.run(arguments)
      #expect(result.status == 64)
      #expect(result.stdout == "")
      #expect(result.stderr == usage(command, message))
      #expect(!workspace.exists("index.db"), "a usage error must not create the index")
    }
  }

  @Test func theDatabaseMayComeFromTheEnvironment() throws {
    try Workspace.with { workspace in
      try workspace.write("items.jsonl", #"{"id":"a"}"# + "\n")
      let result = try CLI.run(["index", "items.jsonl"], in: workspace.directory, environment: ["SEARCHLIGHT_DB": "env.db"])
      #expect(result.status == 0, "\(result)")
      #expect(workspace.exists("env.db"))
    }
  }

  @Test func anUnknownSubcommandSuggestsTheClosestOne() throws {
    try Workspace.with { workspace in
      let result = try workspace.run("indx", "--db", "index.db")
      #expect(result.status == 64)
      #expect(result.stderr == "error: unknown subcommand 'indx'; did you mean 'index'?\n  See 'searchlight --help'.\n")
    }
  }

  @Test func noArgumentsPrintsTheOverviewToStandardErrorAndExits64() throws {
    try Workspace.with { workspace in
      let result = try workspace.run([String]())
      #expect(result.status == 64)
      #expect(result.stdout == "")
      #expect(result.stderr.hasPrefix("OVERVIEW: "))
    }
  }

  @Test(arguments: [["--help"], ["-h"], ["help"]])
  func mainHelpListsEverySubcommand(_ arguments: [String]) throws {
    try Workspace.with { workspace in
      let result = try workspace.run(arguments)
      #expect(result.status == 0)
      #expect(result.stderr == "")
      #expect(result.stdout.hasPrefix("OVERVIEW: "))
      #expect(result.stdout.contains("\nUSAGE: searchlight <subcommand> [options]\n"))
      #expect(result.stdout.contains("\nSUBCOMMANDS:\n"))
      for command in ["index", "delete", "stats"] {
        #expect(result.stdout.contains("\n  \(command.padding(toLength: 14, withPad: " ", startingAt: 0))"), "\(command) is listed")
      }
    }
  }

  static let commandOptions: [(String, [String])] = [
    ("index", ["--db <FILE>", "--index <NAME>", "--domain <D>", "--format <FORMAT>", "--strict", "--update", "--batch <N>", "--progress", "--declare <NAME=TYPE,...>"]),
    ("delete", ["--db <FILE>", "--index <NAME>", "--id <ID> ...", "--domain <D> ...", "--all", "--expired", "--progress"]),
    ("stats", ["--db <FILE>", "--index <NAME>", "--protection <CLASS,...>", "--now <ISO8601>", "--format <FORMAT>"]),
  ]

  @Test(arguments: commandOptions)
  func commandHelpHasTheArgumentParserShape(_ command: String, _ options: [String]) throws {
    try Workspace.with { workspace in
      for arguments in [[command, "--help"], [command, "--db", "x.db", "-h"], ["help", command]] {
        let result = try workspace.run(arguments)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let text = result.stdout
        #expect(text.hasPrefix("OVERVIEW: "))
        #expect(text.contains("\n\nUSAGE: searchlight \(command) --db FILE"))
        #expect(text.contains("\n\nOPTIONS:\n"))
        let optionLines = text.components(separatedBy: "\nOPTIONS:\n").last?.split(separator: "\n").map(String.init) ?? []
        #expect(optionLines.map { String($0.dropFirst(2).prefix(28)).trimmingCharacters(in: .whitespaces) } == options + ["--help"])
        #expect(optionLines.allSatisfy { $0.hasPrefix("  --") })
        #expect(text.hasSuffix("  --help                      Show help for this command.\n"))
      }
      #expect(!workspace.exists("x.db"))
    }
  }

  @Test func versionPrintsTheVersion() throws {
    try Workspace.with { workspace in
      let result = try workspace.run("--version")
      #expect(result.status == 0)
      #expect(result.stdout.hasPrefix("searchlight "))
      #expect(result.stdout.hasSuffix("\n"))
      let command = try workspace.run("version")
      #expect(command.status == 0)
      #expect(command.stdout == result.stdout)
      #expect(try workspace.run("--help").stdout.contains("  version       Print the version"))
    }
  }
}
