import Foundation
import Testing

/// Items the REPL tests explore: three trails and one protected item with an attribute of its own.
let replItems = """
  {"id":"t1","domain":"trails","attributes":{"title":"Mist Trail","keywords":["waterfall"],"rating":4.8,"distance":5.4,"contentModificationDate":"2026-11-20T10:00:00Z"}}
  {"id":"t2","domain":"trails","attributes":{"title":"Sky Pond","keywords":["lake"],"rating":4.9,"distance":9.1,"contentModificationDate":"2026-06-01T10:00:00Z"}}
  {"id":"t3","domain":"trails","attributes":{"title":"Lake Trail","keywords":["lake","waterfall"],"rating":4.1,"distance":3.0,"contentModificationDate":"2025-06-01T10:00:00Z"}}
  {"id":"s1","domain":"vault","protectionClass":"private","attributes":{"title":"Locker","secretCode":"x"}}

  """

extension Workspace {
  /// A workspace with `replItems` indexed into `index.db`.
  static func withReplIndex<T>(_ body: (Workspace) throws -> T) throws -> T {
    try Workspace.with { workspace in
      try workspace.write("items.jsonl", replItems)
      let indexed = try workspace.run("index", "--db", "index.db", "items.jsonl")
      #expect(indexed.status == 0, "\(indexed)")
      return try body(workspace)
    }
  }

  /// Runs `searchlight repl --db index.db` with `script` on standard input (not a terminal).
  func repl(_ script: String, _ arguments: [String] = []) throws -> CLIResult {
    try CLI.run(["repl", "--db", "index.db"] + arguments, stdin: script, in: directory, environment: ["TZ": "UTC"])
  }
}
