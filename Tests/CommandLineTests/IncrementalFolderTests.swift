import Foundation
import Testing
@testable import SearchIndex

/// Incremental folders, end to end: `index` and `sync` of a folder leave unchanged files
/// unread, remove the items of deleted files (and only those), read every document format,
/// and `sync --watch` follows a folder as it changes.
@Suite struct IncrementalFolderTests {
  static let documents = fixtures.appendingPathComponent("documents")

  /// Identifiers of the stored items, sorted.
  func identifiers(_ path: String) throws -> [String] {
    try SearchIndex(path: path, create: false).allItems().map(\.uniqueIdentifier).sorted()
  }

  func copyFixture(_ name: String, to destination: String, in workspace: Workspace) throws {
    let target = URL(fileURLWithPath: workspace.path(destination))
    try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: Self.documents.appendingPathComponent(name), to: target)
  }

  /// Runs `index --db i.db notes` in `workspace` and expects its summary to begin with `summary`.
  func indexNotes(_ workspace: Workspace, expecting summary: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let result = try workspace.run("index", "--db", "i.db", "notes")
    #expect(result.status == 0 && result.stdout.hasPrefix(summary), "\(result)", sourceLocation: sourceLocation)
  }

  @Test func reindexingAFolderSkipsUnchangedFilesAndRemovesDeletedOnes() throws {
    try Workspace.with { workspace in
      try workspace.write("notes/a.md", "# Alpha\n\nfirst note\n")
      try workspace.write("notes/sub/b.md", "# Beta\n\nsecond note\n")
      try copyFixture("tmux.html", to: "notes/tmux.html", in: workspace)
      let first = try workspace.run("index", "--db", "i.db", "notes")
      #expect(first.status == 0, "\(first)")
      #expect(first.stdout.hasPrefix("indexed 3 items from 3 files; 0 skipped; into i.db"), "\(first)")

      let again = try workspace.run("index", "--db", "i.db", "notes")
      #expect(again.stdout.hasPrefix("indexed 0 items from 0 files; 0 skipped; 3 unchanged (3 files not read); into i.db"), "\(again)")

      // Rewritten with the same bytes (a new modification time): the hash says unchanged.
      try workspace.write("notes/a.md", "# Alpha\n\nfirst note\n")
      try FileManager.default.removeItem(atPath: workspace.path("notes/sub/b.md"))
      try workspace.write("notes/c.md", "# Gamma\n\nthird note\n")
      let third = try workspace.run("index", "--db", "i.db", "notes")
      #expect(third.status == 0, "\(third)")
      #expect(third.stdout.hasPrefix("indexed 1 item from 1 file; 0 skipped; 2 unchanged (2 files not read); 1 removed; into i.db"), "\(third)")
      #expect(try identifiers(workspace.path("i.db")) == ["a.md", "c.md", "tmux.html"])

      // An edited file is read again and replaces its item.
      try workspace.write("notes/a.md", "# Alpha two\n\nedited\n")
      let fourth = try workspace.run("index", "--db", "i.db", "notes")
      #expect(fourth.stdout.hasPrefix("indexed 1 item from 1 file; 0 skipped; 2 unchanged (2 files not read); into i.db"), "\(fourth)")
      let title = try SearchIndex(path: workspace.path("i.db"), create: false).item(withIdentifier: "a.md")?.attributeSet["title"]?.stringValue
      #expect(title == "Alpha two")
    }
  }

  @Test func removingAFileLeavesItemsFromElsewhereUntouched() throws {
    try Workspace.with { workspace in
      try workspace.write("one/x.md", "# X\n\nfrom one\n")
      try workspace.write("one/y.md", "# Y\n\nfrom one\n")
      try workspace.write("two/z.md", "# Z\n\nfrom two\n")
      try workspace.write("items.jsonl", #"{"id":"loose","attributes":{"title":"Loose item"}}"# + "\n")
      #expect(try workspace.run("index", "--db", "i.db", "one", "two", "items.jsonl").status == 0)
      // A folder synced on its own is another source with its own records.
      try workspace.write("three/w.md", "# W\n\nfrom three\n")
      #expect(try workspace.run("sync", "--db", "i.db", "--folder", "three").status == 0)
      #expect(try identifiers(workspace.path("i.db")) == ["loose", "w.md", "x.md", "y.md", "z.md"])

      try FileManager.default.removeItem(atPath: workspace.path("one/x.md"))
      try FileManager.default.removeItem(atPath: workspace.path("two/z.md"))
      let result = try workspace.run("index", "--db", "i.db", "one")
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout.hasPrefix("indexed 0 items from 0 files; 0 skipped; 1 unchanged (1 file not read); 1 removed; into "), "\(result)")
      // z.md's folder was not indexed this time: its item stays until `two` is.
      #expect(try identifiers(workspace.path("i.db")) == ["loose", "w.md", "y.md", "z.md"])
    }
  }

  @Test func aFileWhoseNameExtendsAnothersKeepsItsRecordWhenTheOtherChangesOrLeaves() throws {
    // A file's records are found by a key range that also spans "a.md\tb.md" (a tab sorts
    // before the "\n" of a second item's key): rewriting or removing "a.md" must leave the
    // other file's record, or its next run reads it again.
    try Workspace.with { workspace in
      try workspace.write("notes/a.md", "# A\n\nfirst\n")
      try workspace.write("notes/a.md\tb.md", "# Tabbed\n\nsecond\n")
      try workspace.write("notes/c.md", "# C\n\nthird\n")
      #expect(try workspace.run("index", "--db", "i.db", "notes").status == 0)
      try workspace.write("notes/a.md", "# A again\n\nedited\n")
      try indexNotes(workspace, expecting: "indexed 1 item from 1 file; 0 skipped; 2 unchanged (2 files not read); into ")
      try FileManager.default.removeItem(atPath: workspace.path("notes/a.md"))
      try FileManager.default.removeItem(atPath: workspace.path("notes/c.md"))
      try indexNotes(workspace, expecting: "indexed 0 items from 0 files; 0 skipped; 1 unchanged (1 file not read); 2 removed; into ")
      #expect(try identifiers(workspace.path("i.db")) == ["a.md\tb.md"])
      try indexNotes(workspace, expecting: "indexed 0 items from 0 files; 0 skipped; 1 unchanged (1 file not read); into ")
    }
  }

  @Test func aFileThatGaveNoItemIsNotReadAgainUntilItChanges() throws {
    try Workspace.with { workspace in
      // A manual page that only includes another is an alias: read without error, no item.
      try workspace.write("notes/gunzip.1", ".so man1/gzip.1\n")
      try workspace.write("notes/a.md", "# A\n\nfirst\n")
      try indexNotes(workspace, expecting: "indexed 1 item from 2 files; 0 skipped; into ")
      try indexNotes(workspace, expecting: "indexed 0 items from 0 files; 0 skipped; 1 unchanged (2 files not read); into ")
      // The library's synchronizer, even a full one, sees no item delivered by the alias.
      let index = try SearchIndex(path: workspace.path("i.db"), create: false)
      #expect(try index.sourceState(FolderFiles.sourceName(root: workspace.path("notes"))).keys.sorted() == ["a.md"])
      try Synchronizer(index: index, source: FolderSource(folder: workspace.path("notes"))).sync(full: true)
      #expect(try identifiers(workspace.path("i.db")) == ["a.md"])
      // Given text, it is read again and becomes an item; removed, it leaves nothing behind.
      try workspace.write("notes/gunzip.1", ".TH GUNZIP 1\n.SH NAME\ngunzip \\- expand files\n")
      try indexNotes(workspace, expecting: "indexed 1 item from 1 file; 0 skipped; 1 unchanged (1 file not read); into ")
      #expect(try identifiers(workspace.path("i.db")) == ["a.md", "gunzip.1"])
      try workspace.write("notes/gunzip.1", ".so man1/gzip.1\n")
      try indexNotes(workspace, expecting: "indexed 0 items from 1 file; 0 skipped; 1 unchanged (1 file not read); 1 removed; into ")
      try FileManager.default.removeItem(atPath: workspace.path("notes/gunzip.1"))
      try indexNotes(workspace, expecting: "indexed 0 items from 0 files; 0 skipped; 1 unchanged (1 file not read); into ")
      #expect(try identifiers(workspace.path("i.db")) == ["a.md"])
    }
  }

  @Test func aRenamedFileKeepsItsIdentifierAndAMailboxLosesOnlyTheMessageRemoved() throws {
    try Workspace.with { workspace in
      try workspace.write("notes/a.md", "---\nid: keeper\n---\n# Keeper\n\nkept\n")
      let mbox = "From a@example.com Mon Jan  5 10:00:00 2026\nFrom: a@example.com\nSubject: One\n\nfirst\n\n"
        + "From b@example.com Mon Jan  5 11:00:00 2026\nFrom: b@example.com\nSubject: Two\n\nsecond\n"
      try workspace.write("notes/list.mbox", mbox)
      #expect(try workspace.run("index", "--db", "i.db", "notes").status == 0)
      #expect(try identifiers(workspace.path("i.db")) == ["keeper", "list.mbox#1", "list.mbox#2"])

      try FileManager.default.moveItem(atPath: workspace.path("notes/a.md"), toPath: workspace.path("notes/b.md"))
      try workspace.write("notes/list.mbox", String(mbox.prefix(while: { $0 != "\n" })) + "\nFrom: a@example.com\nSubject: One\n\nfirst\n")
      let result = try workspace.run("index", "--db", "i.db", "notes")
      #expect(result.status == 0, "\(result)")
      // Both files are read again (the first message is unchanged unless the mailbox's
      // modification second, its date, moved); one message is gone.
      #expect(result.stdout.hasPrefix("indexed 2 items from 2 files; 0 skipped; "), "\(result)")
      #expect(result.stdout.contains("; 1 removed; into "), "\(result)")
      #expect(try identifiers(workspace.path("i.db")) == ["keeper", "list.mbox#1"])
      let again = try workspace.run("index", "--db", "i.db", "notes")
      #expect(again.stdout.hasPrefix("indexed 0 items from 0 files; 0 skipped; 2 unchanged (2 files not read); into "), "\(again)")
    }
  }

  @Test func aRemovedHiddenItemLeavesNoTraceInTheSummary() throws {
    try Workspace.with { workspace in
      try workspace.write("notes/open.md", "# Open\n\nvisible\n")
      try workspace.write("notes/secret.md", "---\nprotectionClass: vault\n---\n# Secret\n\nhidden\n")
      try workspace.write("notes/old.md", "---\nexpirationDate: 2001-01-01T00:00:00Z\n---\n# Old\n\nexpired\n")
      let first = try workspace.run("index", "--db", "i.db", "notes")
      #expect(first.status == 0, "\(first)")
      try FileManager.default.removeItem(atPath: workspace.path("notes/secret.md"))
      try FileManager.default.removeItem(atPath: workspace.path("notes/old.md"))
      let result = try workspace.run("index", "--db", "i.db", "notes")
      #expect(result.status == 0, "\(result)")
      #expect(!result.stdout.contains("removed"), "\(result)")
      #expect(try identifiers(workspace.path("i.db")) == ["open.md"], "the hidden items are gone all the same")

      try workspace.write("notes/secret.md", "---\nprotectionClass: vault\n---\n# Secret\n\nhidden\n")
      let sync = try workspace.run("sync", "--db", "s.db", "--folder", "notes")
      #expect(sync.status == 0, "\(sync)")
      #expect(!sync.stdout.contains("secret"), "\(sync)")
      try FileManager.default.removeItem(atPath: workspace.path("notes/secret.md"))
      let again = try workspace.run("sync", "--db", "s.db", "--folder", "notes")
      #expect(again.stdout.hasPrefix("synced folder:\(workspace.directory.standardizedFileURL.path)/notes: 0 added or updated, 0 deleted, 1 unchanged ("), "\(again)")
      #expect(!again.stdout.contains("secret"), "\(again)")
      #expect(try identifiers(workspace.path("s.db")) == ["open.md"])
    }
  }

  @Test func syncReadsEveryFormatSkipsUnchangedFilesAndRemovesDeletedOnes() throws {
    try Workspace.with { workspace in
      try copyFixture("tmux.html", to: "mail/tmux.html", in: workspace)
      try copyFixture("meeting.eml", to: "mail/meeting.eml", in: workspace)
      try copyFixture("list.mbox", to: "mail/list.mbox", in: workspace)
      try workspace.write("mail/note.md", "# Note\n\ntext\n")
      let folder = workspace.directory.standardizedFileURL.path + "/mail"
      let first = try workspace.run("sync", "--db", "s.db", "--folder", "mail", "--progress")
      #expect(first.status == 0, "\(first)")
      #expect(first.stdout.hasPrefix("synced folder:\(folder): 6 added or updated, 0 deleted ("), "\(first)")
      #expect(first.stderr.contains("syncing"), "progress lines: \(first)")
      let index = try SearchIndex(path: workspace.path("s.db"), create: false)
      #expect(try identifiers(workspace.path("s.db")) == [
        "list.mbox#1", "list.mbox#2", "list.mbox#3", "meeting.eml", "note.md", "tmux.html",
      ])
      #expect(try index.item(withIdentifier: "tmux.html")?.attributeSet["title"]?.stringValue == "tmux & screen – a comparison")
      #expect(try index.item(withIdentifier: "meeting.eml")?.attributeSet["title"]?.stringValue == "Réunion café ☕ à jeudi")

      let again = try workspace.run("sync", "--db", "s.db", "--folder", "mail")
      #expect(again.stdout.hasPrefix("synced folder:\(folder): 0 added or updated, 0 deleted, 6 unchanged ("), "\(again)")

      try FileManager.default.removeItem(atPath: workspace.path("mail/meeting.eml"))
      try FileManager.default.removeItem(atPath: workspace.path("mail/list.mbox"))
      let third = try workspace.run("sync", "--db", "s.db", "--folder", "mail")
      #expect(third.stdout.hasPrefix("synced folder:\(folder): 0 added or updated, 4 deleted, 2 unchanged ("), "\(third)")
      #expect(third.stdout.contains("  - meeting.eml\n"), "\(third)")
      #expect(try identifiers(workspace.path("s.db")) == ["note.md", "tmux.html"])
      let check = try workspace.run("check", "--db", "s.db")
      #expect(check.status == 0, "\(check)")

      // `index` of the same folder shares the records: nothing to read.
      let indexed = try workspace.run("index", "--db", "s.db", "mail")
      #expect(indexed.stdout.hasPrefix("indexed 0 items from 0 files; 0 skipped; 2 unchanged (2 files not read); into "), "\(indexed)")
    }
  }

  @Test func syncWatchAcceptsSecondsAfterTheFlag() throws {
    try Workspace.with { workspace in
      let result = try workspace.run("sync", "--db", "s.db", "--folder", "nowhere", "--watch", "x")
      #expect(result.status == 64, "\(result)")
      #expect(result.stderr.contains("unexpected argument 'x'"), "\(result)")
      let missing = try workspace.run("sync", "--db", "s.db", "--folder", "nowhere", "--watch", "2")
      #expect(missing.status == 66, "'--watch 2' is accepted; the folder is missing: \(missing)")
    }
  }

  /// Polls the index (at most `seconds`) until `condition` holds of its identifiers.
  func waitFor(_ path: String, seconds: Double = 10, _ condition: ([String]) -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if let ids = try? identifiers(path), condition(ids) { return true }
      usleep(50_000)
    }
    return false
  }

  /// With inotify (the default on Linux), and with the polling fallback forced.
  @Test(arguments: [[:], ["SEARCHLIGHT_WATCH": "poll"]])
  func syncWatchPicksUpNewAndDeletedFiles(environment: [String: String]) throws {
    try Workspace.with { workspace in
      try workspace.write("notes/first.md", "# First\n\none\n")
      let process = Process()
      process.executableURL = CLI.executable
      // The index lives inside the folder it watches: its own writes must not wake it.
      process.arguments = ["sync", "--db", "notes/w.db", "--folder", "notes", "--watch", "--interval", "0.3"]
      process.currentDirectoryURL = workspace.directory
      var env = ProcessInfo.processInfo.environment
      env["SEARCHLIGHT_DB"] = nil
      env["SEARCHLIGHT_WATCH"] = nil
      env.merge(environment) { $1 }
      process.environment = env
      process.standardOutput = FileHandle.nullDevice
      try workspace.write("stderr.txt", "")
      let errors = try FileHandle(forWritingTo: URL(fileURLWithPath: workspace.path("stderr.txt")))
      defer { try? errors.close() }
      process.standardError = errors
      try process.run()
      defer {
        // SIGKILL: the test runner's children inherit SIGTERM ignored.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
      }
      let db = workspace.path("notes/w.db")
      #expect(waitFor(db) { $0 == ["first.md"] }, "the first sync")
      try workspace.write("notes/sub/second.md", "# Second\n\ntwo\n")
      #expect(waitFor(db) { $0 == ["first.md", "sub/second.md"] }, "a new file in a new folder is synced")
      try FileManager.default.removeItem(atPath: workspace.path("notes/first.md"))
      #expect(waitFor(db) { $0 == ["sub/second.md"] }, "a deleted file's item is removed")
      #expect(process.isRunning, "the watcher keeps running")
      let stderr = String(decoding: workspace.contents("stderr.txt") ?? Data(), as: UTF8.self)
      #expect(stderr.isEmpty, "the index's own files are not read: \(stderr)")
    }
  }
}
