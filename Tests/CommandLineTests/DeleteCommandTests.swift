import Foundation
import Testing
@testable import SearchIndex

@Suite struct DeleteCommandTests {
  static let domains = ["mail", "mail.inbox", "mail.sent.archive", "mailbox", "mail2", "notes"]

  /// A workspace whose `index.db` holds one item per domain of `domains`, named after it.
  func withDomainIndex<T>(_ body: (Workspace) throws -> T) throws -> T {
    try Workspace.with { workspace in
      try workspace.write("items.jsonl", Self.domains.map { #"{"id":"\#($0)","domain":"\#($0)"}"# }.joined(separator: "\n"))
      let result = try workspace.run("index", "--db", "index.db", "items.jsonl")
      #expect(result.status == 0, "\(result)")
      return try body(workspace)
    }
  }

  func storedIdentifiers(_ workspace: Workspace) throws -> [String] {
    try SearchIndex(path: workspace.path("index.db"), create: false).allItems().map(\.uniqueIdentifier)
  }

  @Test func deletingADomainDeletesItsSubDomainsOnly() throws {
    try withDomainIndex { workspace throws in
      let result = try workspace.run("delete", "--db", "index.db", "--domain", "mail")
      #expect(result.status == 0)
      #expect(result.stdout == "deleted 3 items\n")
      #expect(result.stderr == "")
      #expect(try storedIdentifiers(workspace) == ["mail2", "mailbox", "notes"])
    }
  }

  @Test func deletingSeveralDomainsAtOnce() throws {
    try withDomainIndex { workspace throws in
      let result = try workspace.run("delete", "--db", "index.db", "--domain", "mail.inbox", "notes")
      #expect(result.stdout == "deleted 2 items\n")
      #expect(try storedIdentifiers(workspace) == ["mail", "mail.sent.archive", "mail2", "mailbox"])
    }
  }

  @Test func deletingByIdentifierCountsOnlyItemsThatExisted() throws {
    try withDomainIndex { workspace throws in
      let result = try workspace.run("delete", "--db", "index.db", "--id", "mail", "notes", "missing")
      #expect(result.status == 0)
      #expect(result.stdout == "deleted 2 items\n")
      #expect(try storedIdentifiers(workspace) == ["mail.inbox", "mail.sent.archive", "mail2", "mailbox"])
      #expect(try workspace.run("delete", "--db", "index.db", "--id", "missing").stdout == "deleted 0 items\n")
      #expect(try workspace.run("delete", "--db", "index.db", "--id", "mail2").stdout == "deleted 1 item\n")
    }
  }

  @Test func deletingEverything() throws {
    try withDomainIndex { workspace throws in
      #expect(try workspace.run("delete", "--db", "index.db", "--all").stdout == "deleted 6 items\n")
      #expect(try storedIdentifiers(workspace).isEmpty)
    }
  }

  /// `--expired` deletes the items whose expiration date has passed, which `stats` counted as
  /// hidden, and no other; a second run finds none.
  @Test func deletingTheExpiredItems() throws {
    try Workspace.with { workspace in
      try workspace.write("items.jsonl", [
        #"{"id":"gone","domain":"notes","expirationDate":"2020-01-01T00:00:00Z","attributes":{"title":"old"}}"#,
        #"{"id":"also-gone","domain":"mail","expirationDate":"2024-06-30T12:00:00Z","attributes":{"title":"older"}}"#,
        #"{"id":"later","domain":"notes","expirationDate":"2999-01-01T00:00:00Z","attributes":{"title":"later"}}"#,
        #"{"id":"kept","domain":"notes","attributes":{"title":"kept"}}"#,
      ].joined(separator: "\n"))
      #expect(try workspace.run("index", "--db", "index.db", "items.jsonl").status == 0)
      #expect(try workspace.run("stats", "--db", "index.db").stdout.contains("items:       2 (not shown: 2 expired)\n"))
      let result = try workspace.run("delete", "--db", "index.db", "--expired")
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout == "deleted 2 items\n")
      #expect(try storedIdentifiers(workspace).sorted() == ["kept", "later"])
      #expect(try workspace.run("stats", "--db", "index.db").stdout.contains("items:       2\n"))
      #expect(try workspace.run("delete", "--db", "index.db", "--expired").stdout == "deleted 0 items\n")
    }
  }

  /// `--progress` prints each step of the delete as lines on standard error; the report on
  /// standard output is the same, and a delete of nothing prints no step.
  @Test func progressLinesShowEachStep() throws {
    try withDomainIndex { workspace throws in
      let result = try workspace.run("delete", "--db", "index.db", "--progress", "--domain", "mail")
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout == "deleted 3 items\n")
      let lines = result.stderr.split(separator: "\n").map(String.init)
      #expect(lines.count == 3, "\(lines)")
      #expect(lines.first == "deleting 0/3 items, 0%", "\(lines)")
      #expect(lines.dropFirst().first?.hasPrefix("deleting 3/3 items, 100%") == true, "\(lines)")
      #expect(lines.last == "committing", "\(lines)")
      let nothing = try workspace.run("delete", "--db", "index.db", "--progress", "--id", "missing")
      #expect(nothing.stdout == "deleted 0 items\n")
      #expect(nothing.stderr == "")
    }
  }

  @Test(arguments: [
    (["--domain", "mail", "--all"], "give exactly one of --id, --domain, --all or --expired"),
    ([], "give exactly one of --id, --domain, --all or --expired"),
    (["--expired", "--id", "notes"], "give exactly one of --id, --domain, --all or --expired"),
    (["--domain", "mail..inbox"], "invalid domain \"mail..inbox\": use dot-separated names such as mail.inbox"),
    (["--all", "extra"], "unexpected argument 'extra'"),
    (["--domain"], "missing value for '--domain <D>'"),
  ])
  func usageErrorsExit64AndDeleteNothing(_ arguments: [String], _ message: String) throws {
    try withDomainIndex { workspace throws in
      let before = workspace.contents("index.db")
      let result = try workspace.run(["delete", "--db", "index.db"] + arguments)
      #expect(result.status == 64)
      #expect(result.stderr == "error: \(message)\nUsage: searchlight delete ...\n  See 'searchlight delete --help'.\n")
      #expect(workspace.contents("index.db") == before)
      #expect(try storedIdentifiers(workspace).count == Self.domains.count)
    }
  }

  @Test func deletingFromAMissingIndexExits66AndCreatesNothing() throws {
    try Workspace.with { workspace in
      let result = try workspace.run("delete", "--db", "missing.db", "--all")
      #expect(result.status == 66)
      #expect(result.stderr.hasPrefix("error: no index at 'missing.db'"))
      #expect(!workspace.exists("missing.db"))
    }
  }
}
