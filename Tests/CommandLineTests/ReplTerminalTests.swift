import Foundation
import Testing

/// `searchlight repl` at a terminal (a pseudo-terminal the test types into): the prompt, line
/// editing, completion, history across runs, Ctrl-C and Ctrl-D.
@Suite struct ReplTerminalTests {
  /// Starts the REPL on a terminal over `index.db`, with its history in the workspace.
  func terminal(_ workspace: Workspace, color: Bool = false, columns: UInt16 = 100) throws -> PseudoTerminal {
    var environment = ["SEARCHLIGHT_HISTORY": workspace.path("history"), "TZ": "UTC"]
    if !color { environment["NO_COLOR"] = "1" }
    return try PseudoTerminal(["repl", "--db", "index.db"], in: workspace.directory, environment: environment, columns: columns)
  }

  /// Ctrl-D at the prompt leaves with status 0.
  func leave(_ terminal: PseudoTerminal) {
    #expect(terminal.expect("searchlight> ") && terminal.waitForLineEditor(), "\(terminal.screen)")
    terminal.type("\u{04}")
    #expect(terminal.waitForExit() == 0, "\(terminal.screen)")
  }

  @Test func historyIsKeptAcrossRuns() throws {
    try Workspace.withReplIndex { workspace in
      let first = try terminal(workspace)
      #expect(first.expect("(3 items). '.help' lists the commands, Ctrl-D leaves.\n"))
      first.enter("search keywords == \"lake\" |")
      first.enter("count", prompt: "        ...> ")
      #expect(first.expect("Count [count"), "\(first.screen)")
      first.enter(".quit")
      #expect(first.waitForExit() == 0)
      let attributes = try FileManager.default.attributesOfItem(atPath: workspace.path("history"))
      #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

      // Ctrl-P twice recalls the input before '.quit': the query, joined on one line.
      let second = try terminal(workspace)
      second.enter("\u{10}\u{10}")
      #expect(second.expect("search keywords == \"lake\" | count\nCount [count"), "\(second.screen)")
      #expect(second.expect("  2\n"))
      leave(second)
    }
  }

  @Test func tabCompletesCommandsStagesAndAttributes() throws {
    try Workspace.withReplIndex { workspace in
      let terminal = try terminal(workspace)
      terminal.enter(".he\t")
      #expect(terminal.expect(".help \nType a query"), "\(terminal.screen)")
      terminal.enter("search * | where rat\t> 4.5 | cou\t")
      #expect(terminal.expect("search * | where rating > 4.5 | count \nCount [count"), "\(terminal.screen)")
      #expect(terminal.expect("  2\n"))
      leave(terminal)
    }
  }

  @Test func linesAreEditedByCharacterIncludingNonASCII() throws {
    try Workspace.with { workspace in
      try workspace.write("items.jsonl", #"{"id":"n1","attributes":{"title":"Café Müller"}}"# + "\n")
      #expect(try workspace.run("index", "--db", "index.db", "items.jsonl").status == 0)
      let terminal = try terminal(workspace)
      // Backspace (DEL) removes one character; é arrives as two bytes and is one character.
      terminal.enter("search title == \"Cafx\u{7F}é M*\" | table title")
      #expect(terminal.expect("Table [table"), "\(terminal.screen)")
      #expect(terminal.expect("  Café Müller\n"))
      leave(terminal)
    }
  }

  @Test func errorsPutTheCaretUnderThePromptLine() throws {
    try Workspace.withReplIndex { workspace in
      let terminal = try terminal(workspace)
      terminal.enter("titel == \"x\"")
      #expect(terminal.expect("did you mean 'title'?\n"), "\(terminal.screen)")
      #expect(terminal.screen.contains("""
        searchlight> titel == "x"
                     ^~~~~
        error: unknown attribute 'titel'
        help: did you mean 'title'?

        """), "\(terminal.screen)")
      terminal.enter("search * |")
      terminal.enter("  sort title | tabel title", prompt: "        ...> ")
      #expect(terminal.expect("did you mean 'table'?\n"), "\(terminal.screen)")
      #expect(terminal.screen.contains("""
        searchlight> search * |
                ...>   sort title | tabel title
                                    ^~~~~
        error: unknown stage 'tabel'

        """), "\(terminal.screen)")
      leave(terminal)
    }
  }

  @Test func ctrlCCancelsTheRunningQueryAndTheShellCarriesOn() throws {
    try Workspace.with { workspace in
      // Titles that make a wildcard pattern backtrack up to PCRE2's match limit on every item:
      // a query that runs for many seconds unless it is cancelled.
      var items = ""
      for n in 0..<3000 {
        items += #"{"id":"i\#(n)","attributes":{"title":"c\#(String(repeating: "a", count: 200))c\#(n)"}}"# + "\n"
      }
      try workspace.write("items.jsonl", items)
      #expect(try workspace.run("index", "--db", "index.db", "items.jsonl").status == 0)
      let terminal = try terminal(workspace)
      // (`?` keeps it one regex: literals between `*` alone are found one after the other.)
      terminal.enter("title == \"*a*a*a*a*a*a*a?c\"")
      #expect(terminal.expect("\"*a*a*a*a*a*a*a?c\"\n"), "\(terminal.screen)")
      // Ctrl-C until the query reports it was cancelled: a SIGINT before the query starts does
      // nothing, and SQLite notices a cancellation at its next progress check.
      var cancelled = false
      for _ in 0..<20 where !cancelled {
        terminal.interrupt()
        cancelled = terminal.expect("error: query cancelled\n", deadline: 3)
      }
      #expect(cancelled, "\(terminal.screen)")
      terminal.enter("search * | count")
      #expect(terminal.expect("  3000\n"), "\(terminal.screen)")
      leave(terminal)
    }
  }

  @Test func ctrlCAtThePromptDropsTheLineAndCtrlDLeaves() throws {
    try Workspace.withReplIndex { workspace in
      let terminal = try terminal(workspace)
      terminal.enter("search * |")
      #expect(terminal.expect("        ...> "))
      #expect(terminal.waitForLineEditor())
      terminal.type("titel == \"unfinished")
      #expect(terminal.expect("unfinished"))
      terminal.interrupt()
      terminal.enter("search * | count")
      #expect(terminal.expect("Count [count"), "\(terminal.screen)")
      #expect(terminal.expect("  3\n"))
      #expect(!terminal.screen.contains("error"))
      leave(terminal)
    }
  }

  @Test func coloursOnlyOnATerminalWithoutNoColor() throws {
    try Workspace.withReplIndex { workspace in
      let colored = try terminal(workspace, color: true)
      colored.enter("search * | count")
      #expect(colored.expect("Count [count"))
      #expect(colored.rawText.contains("\u{1B}[1mCount\u{1B}[0m"))
      leave(colored)

      let plain = try terminal(workspace, color: false)
      plain.enter("search * | count")
      #expect(plain.expect("Count [count"))
      #expect(!plain.rawText.contains("\u{1B}[1m"))
      leave(plain)
    }
  }

  @Test func tablesFitTheTerminalWidth() throws {
    try Workspace.with { workspace in
      try workspace.write("items.jsonl", (1...3).map { n in
        #"{"id":"long-\#(n)","attributes":{"title":"\#(String(repeating: "A very long title ", count: 6))\#(n)","authorNames":["Someone With A Long Name"],"contentModificationDate":"2026-01-0\#(n)T00:00:00Z"}}"#
      }.joined(separator: "\n") + "\n")
      #expect(try workspace.run("index", "--db", "index.db", "items.jsonl").status == 0)
      let terminal = try terminal(workspace, columns: 60)
      terminal.enter("search *")
      #expect(terminal.expect("Search results [items"))
      #expect(terminal.expect("long-3"))
      let reply = terminal.screen[terminal.screen.range(of: "Search results [items")!.lowerBound...]
      let table = reply.split(separator: "\n").dropFirst().prefix(5)
      #expect(table.count == 5)
      for line in table { #expect(line.count <= 60, "\(line)") }
      #expect(table.last?.contains("…") == true)
      leave(terminal)
    }
  }
}
