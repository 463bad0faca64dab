import Foundation
import Testing
@testable import SearchIndex

/// Snippets in `query` output: the default column of text searches in tables, and the
/// `snippet` column of `table` in every format.
@Suite struct SnippetCommandTests {
  func withTerminalNotes<T>(_ body: (Workspace) throws -> T) throws -> T {
    try Workspace.with { workspace in
      let lines = [
        #"{"id":"tmux","attributes":{"title":"Terminal tools","textContent":"Use tmux, a terminal multiplexer.\u001b[2J It keeps sessions."}}"#,
        #"{"id":"secret","protectionClass":"hr","attributes":{"title":"tmux secret","textContent":"tmux password swordfish"}}"#,
        #"{"id":"other","attributes":{"title":"Gardening","textContent":"Roses and tulips."}}"#,
      ]
      try workspace.write("notes.jsonl", lines.joined(separator: "\n") + "\n")
      let indexed = try workspace.run("index", "--db", "index.db", "notes.jsonl")
      #expect(indexed.status == 0, "\(indexed)")
      return try body(workspace)
    }
  }

  @Test func textSearchTablesShowASnippetByDefault() throws {
    try withTerminalNotes { workspace in
      for query in [#"search "tmux""#, "tmux"] {
        let result = try workspace.run(["query", "--db", "index.db", "--", query], environment: ["COLUMNS": "200"])
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(result)")
        #expect(lines[1].hasSuffix("snippet"), "\(lines)")
        #expect(lines[3].contains("Use [tmux], a terminal multiplexer. [2J It keeps sessions."), "\(lines)")
        #expect(!result.stdout.contains("swordfish"))
        #expect(!result.stdout.unicodeScalars.contains { $0.value == 0x1B })
      }
      // A query that searches no text keeps its columns.
      let filter = try workspace.run("query", "--db", "index.db", "--", #"title == "Gardening""#)
      #expect(!filter.stdout.contains("snippet"), "\(filter)")
      // --fetch chooses the columns.
      let fetched = try workspace.run("query", "--db", "index.db", "--fetch", "title", "--", #"search "tmux""#)
      #expect(!fetched.stdout.contains("snippet"), "\(fetched)")
    }
  }

  @Test func snippetColumnInTableCSVAndJSON() throws {
    try withTerminalNotes { workspace in
      let query = #"search "multiplexer" | table title, snippet"#
      let csv = try workspace.run("query", "--db", "index.db", "--format", "csv", "--", query)
      #expect(csv.stdout == "title,snippet\nTerminal tools,\"Use tmux, a terminal [multiplexer]. [2J It keeps sessions.\"\n", "\(csv)")
      let json = try workspace.run("query", "--db", "index.db", "--format", "json", "--", query)
      let reply = try JSONParser.parse(json.stdout.trimmingCharacters(in: .newlines))
      #expect(reply["content"]?["columns"] == ["title", "snippet"])
      #expect(reply["content"]?["rows"] == [["Terminal tools", "Use tmux, a terminal [multiplexer]. [2J It keeps sessions."]])
      let granted = try workspace.run("query", "--db", "index.db", "--protection", "hr", "--format", "csv", "--", #"search "swordfish" | table snippet"#)
      #expect(granted.stdout == "snippet\ntmux password [swordfish]\n", "\(granted)")
      let hidden = try workspace.run("query", "--db", "index.db", "--format", "csv", "--", #"search "swordfish" | table snippet"#)
      #expect(hidden.stdout == "snippet\n", "\(hidden)")
    }
  }
}
