import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Stages
import Testing

/// A temporary folder of notes.
struct NoteFolder {
  let root: URL

  init() throws {
    root = try TemporaryFiles.folder("notes")
  }

  func write(_ name: String, _ text: String) throws {
    let url = root.appendingPathComponent(name)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
  }

  func remove(_ name: String) throws { try FileManager.default.removeItem(at: root.appendingPathComponent(name)) }

  static func note(_ n: Int, revision: Int = 0) -> String {
    "---\ntitle: Note \(n) r\(revision)\nkeywords: [k\(n % 7), shared]\nrating: \(n % 5)\ncontentModificationDate: 2026-0\(1 + n % 9)-1\(n % 9)T10:00:00Z\n---\nBody of note \(n), revision \(revision).\n"
  }
}

func temporaryIndex() throws -> SearchIndex {
  try SearchIndex(path: TemporaryFiles.database("sync"))
}

/// Items as comparable values: id and canonical JSON.
func snapshot(_ index: SearchIndex) throws -> [String: String] {
  Dictionary(uniqueKeysWithValues: try index.allItems().map { ($0.uniqueIdentifier, JSONValue.object($0.jsonObject).compactText) })
}

@Suite struct JournalTests {
  func item(_ id: String, _ title: String) -> SearchableItem {
    SearchableItem(uniqueIdentifier: id, domainIdentifier: "notes", attributeSet: AttributeSet([("title", .string(title))]))
  }

  @Test func stagedWorkIsPendingUntilApplied() throws {
    let index = try temporaryIndex()
    try index.stage([.upsert(item("a", "A")), .upsert(item("b", "B"))])
    #expect(try index.pendingCount() == 2)
    #expect(try index.allItems().isEmpty)
    let report = try index.applyPendingWork()
    #expect(Set(report.upserted) == ["a", "b"])
    #expect(try index.pendingCount() == 0)
    #expect(try index.allItems().map(\.uniqueIdentifier) == ["a", "b"])
  }

  @Test func aNewerRevisionReplacesAnOlderPendingOne() throws {
    let index = try temporaryIndex()
    let first = try index.stage([.upsert(item("a", "old"))])
    let second = try index.stage([.upsert(item("a", "new"))])
    #expect(second[0] > first[0])
    #expect(try index.pendingCount() == 1)
    try index.applyPendingWork()
    #expect(try index.item(withIdentifier: "a")?.attributeSet.title == "new")
  }

  @Test func aDeleteIsATombstoneThatWinsOverAnEarlierUpsert() throws {
    let index = try temporaryIndex()
    try index.indexSearchableItems([item("a", "A")])
    try index.stage([.upsert(item("a", "A2")), .delete("a")])
    try index.applyPendingWork()
    #expect(try index.item(withIdentifier: "a") == nil)
  }

  @Test func aRunOfDeletesAppliesTogetherBetweenUpserts() throws {
    let index = try temporaryIndex()
    try index.indexSearchableItems(["a", "b", "c", "d", "e", "f"].map { item($0, "Title \($0) sourdough") })
    // One batch: deletes before, between and after upserts, and one of an unknown item.
    try index.stage([.delete("b"), .delete("c"), .upsert(item("g", "Title g")), .delete("e"), .delete("missing"), .upsert(item("a", "Title a rye"))])
    let report = try index.applyPendingWork()
    #expect(Set(report.deleted) == ["b", "c", "e", "missing"])
    #expect(Set(report.upserted) == ["a", "g"])
    #expect(try index.allItems().map(\.uniqueIdentifier) == ["a", "d", "f", "g"])
    // The deleted items' texts left both text indexes.
    let health = try index.checkIntegrity()
    #expect(health.isHealthy, "\(health.lines)")
    let executor = QueryExecutor(index: index, registry: StandardLibrary.registry())
    var found: [String] = []
    try executor.run(#"search "sourdough""#, options: QueryOptions()) { if !$0.isPartial { found += $0.content.resultItems.map(\.id) } }
    #expect(found.sorted() == ["d", "f"])
  }

  @Test func aFailedApplyLeavesTheWorkPending() throws {
    let index = try temporaryIndex()
    let big = SearchableItem(uniqueIdentifier: "big", domainIdentifier: "notes",
                             attributeSet: AttributeSet([("textContent", .string(String(repeating: "lorem ipsum dolor ", count: 40_000)))]))
    try index.stage([.upsert(item("a", "A")), .upsert(big)])
    // A full disk: applying fails as a whole, the work stays, and applies once there is room.
    try index.limitFileSize(pages: try index.pageCount() + 4)
    #expect(throws: SearchIndexError.self) { try index.applyPendingWork() }
    #expect(try index.pendingCount() == 2)
    #expect(try index.allItems().isEmpty)
    try index.limitFileSize(pages: nil)
    try index.applyPendingWork()
    #expect(try index.pendingCount() == 0)
    #expect(try Set(index.allItems().map(\.uniqueIdentifier)) == ["a", "big"])
  }
}

@Suite struct SynchronizerTests {
  @Test func syncFollowsInsertsEditsAndDeletes() throws {
    let folder = try NoteFolder()
    for n in 0..<20 { try folder.write("n\(n).md", NoteFolder.note(n)) }
    let index = try temporaryIndex()
    let source = FolderSource(folder: folder.root.path)
    var report = try Synchronizer(index: index, source: source).sync()
    #expect(report.applied.upserted.count == 20)
    report = try Synchronizer(index: index, source: source).sync()
    #expect(report.staged == 0, "an unchanged folder stages nothing")
    try folder.write("n3.md", NoteFolder.note(3, revision: 1))
    try folder.remove("n4.md")
    try folder.write("sub/n20.md", NoteFolder.note(20))
    report = try Synchronizer(index: index, source: source).sync()
    #expect(Set(report.applied.upserted) == ["n3.md", "sub/n20.md"])
    #expect(report.applied.deleted == ["n4.md"])
    #expect(try index.item(withIdentifier: "n3.md")?.attributeSet.title == "Note 3 r1")
    #expect(try index.item(withIdentifier: "n4.md") == nil)
  }

  @Test func fullReconciliationDeletesOrphansOfTheDomain() throws {
    let folder = try NoteFolder()
    try folder.write("a.md", NoteFolder.note(1))
    let index = try temporaryIndex()
    try index.indexSearchableItems([
      SearchableItem(uniqueIdentifier: "stray", domainIdentifier: "notes"),
      SearchableItem(uniqueIdentifier: "mail-1", domainIdentifier: "mail"),
    ])
    let report = try Synchronizer(index: index, source: FolderSource(folder: folder.root.path), domain: "notes").sync(full: true)
    #expect(report.applied.deleted == ["stray"])
    #expect(try Set(index.allItems().map(\.uniqueIdentifier)) == ["a.md", "mail-1"])
  }

  @Test func aFolderSourceReadsEveryFormatAndKeysTheMessagesOfAMailbox() throws {
    let folder = try NoteFolder()
    let documents = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Fixtures/documents")
    for name in ["tmux.html", "meeting.eml", "list.mbox"] {
      try FileManager.default.copyItem(at: documents.appendingPathComponent(name), to: folder.root.appendingPathComponent(name))
    }
    try folder.write("a.md", NoteFolder.note(1))
    let index = try temporaryIndex()
    let source = FolderSource(folder: folder.root.path)
    var report = try Synchronizer(index: index, source: source).sync()
    #expect(Set(report.applied.upserted) == ["a.md", "tmux.html", "meeting.eml", "list.mbox#1", "list.mbox#2", "list.mbox#3"])
    let keys = Set(try index.sourceState(source.name).keys)
    #expect(keys == ["a.md", "tmux.html", "meeting.eml", "list.mbox", "list.mbox\n2", "list.mbox\n3"])
    report = try Synchronizer(index: index, source: source).sync()
    #expect(report.staged == 0, "an unchanged folder stages nothing, a mailbox included")
    // A rebuild from the source reads the unchanged files again.
    report = try Synchronizer(index: index, source: source).sync(full: true)
    #expect(report.applied.upserted.count == 6)
    try folder.remove("list.mbox")
    report = try Synchronizer(index: index, source: source).sync()
    #expect(Set(report.applied.deleted) == ["list.mbox#1", "list.mbox#2", "list.mbox#3"])
    #expect(try Set(index.allItems().map(\.uniqueIdentifier)) == ["a.md", "tmux.html", "meeting.eml"])
  }

  @Test func twoFilesWithTheSameIDAreAnError() throws {
    let folder = try NoteFolder()
    try folder.write("a.md", "---\nid: same\n---\nA\n")
    try folder.write("b.md", "---\nid: same\n---\nB\n")
    let index = try temporaryIndex()
    #expect(throws: IngestError.self) { try Synchronizer(index: index, source: FolderSource(folder: folder.root.path)).sync() }
    #expect(try index.allItems().isEmpty, "nothing is staged or applied")
  }

  /// Runs `statements` on the app's store at `path` with Python's sqlite3, as another program would.
  func appWrites(_ path: String, _ statements: String) throws {
    let setup = Process()
    setup.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    setup.arguments = ["python3", "-c", "import sqlite3; c = sqlite3.connect('\(path)')\n" + statements + "\nc.commit()"]
    try setup.run()
    setup.waitUntilExit()
    try #require(setup.terminationStatus == 0)
  }

  @Test func aSQLiteTableSyncsRowsAndDeletes() throws {
    let directory = try TemporaryFiles.folder("app")
    let app = directory.appendingPathComponent("app.db").path
    try appWrites(app, """
      c.execute('create table notes(id integer primary key, title text, body text, updated text, stars real)')
      c.executemany('insert into notes values (?,?,?,?,?)', [(1,'Alpha','a body','2026-01-01',4.5),(2,'Beta','b body','2026-01-02',None)])
      """)
    let source = try SQLiteTableSource(path: app, table: "notes", idColumn: "id", updatedColumn: "updated",
                                       mapping: [("title", "title"), ("textContent", "body"), ("rating", "stars")])
    let index = try temporaryIndex()
    let report = try Synchronizer(index: index, source: source).sync()
    #expect(Set(report.applied.upserted) == ["1", "2"])
    #expect(try index.item(withIdentifier: "1")?.attributeSet["rating"] == .number(4.5))
    #expect(try index.item(withIdentifier: "2")?.attributeSet["rating"] == nil)
    #expect(throws: IngestError.self) {
      try SQLiteTableSource(path: app, table: "notes", idColumn: "id", updatedColumn: "updatd", mapping: [("title", "title")])
    }
  }
}

extension SynchronizerTests {
  @Test(arguments: ["", " without rowid"])
  func aTablesRowsAreReadOnlyWhenLoadedAndARowGoneMeanwhileIsAnError(_ kind: String) throws {
    let directory = try TemporaryFiles.folder("app")
    let app = directory.appendingPathComponent("app.db").path
    try appWrites(app, """
      c.execute('create table notes(id text primary key, title text, updated integer)\(kind)')
      c.executemany('insert into notes values (?,?,?)', [('n1','One',1),('n2','Two',1),('n3','Three',1)])
      """)
    let source = try SQLiteTableSource(path: app, table: "notes", idColumn: "id", updatedColumn: "updated", mapping: [("title", "title")])
    let records = try source.scan()
    #expect(records.map(\.key).sorted() == ["n1", "n2", "n3"] && records.allSatisfy { $0.version == "1" })
    try appWrites(app, "c.execute(\"update notes set title = 'Two, edited' where id = 'n2'\")\nc.execute(\"delete from notes where id = 'n3'\")")
    let two = try #require(records.first { $0.key == "n2" })
    let three = try #require(records.first { $0.key == "n3" })
    if kind.isEmpty {
      // Loaded by rowid when asked for: the row as it is now; one deleted since is an error
      // that the next sync resolves.
      #expect(try two.load().attributeSet["title"] == .string("Two, edited"))
      #expect(throws: IngestError.self) { try three.load() }
    } else {
      // A table without rowids is read whole when scanned.
      #expect(try two.load().attributeSet["title"] == .string("Two"))
      #expect(try three.load().attributeSet["title"] == .string("Three"))
    }
    let index = try temporaryIndex()
    try Synchronizer(index: index, source: source).sync()
    #expect(try index.allItems().map(\.uniqueIdentifier) == ["n1", "n2"])
    #expect(try index.item(withIdentifier: "n2")?.attributeSet["title"] == .string("Two, edited"))
  }
}

@Suite struct HydrationTests {
  @Test func hydrationSuppliesTextThatWasIndexedButNotStoredAndDropsWhatTheSourceLost() throws {
    let folder = try NoteFolder()
    try folder.write("a.md", "---\ntitle: Alpha\n---\nThe sourdough starter needs feeding.\n")
    try folder.write("b.md", "---\ntitle: Beta\n---\nAnother sourdough note.\n")
    let index = try temporaryIndex()
    try index.setStoresText(false)
    let source = FolderSource(folder: folder.root.path)
    try Synchronizer(index: index, source: source).sync()
    #expect(try index.item(withIdentifier: "a.md")?.attributeSet["textContent"] == nil, "text is not stored")
    let executor = QueryExecutor(index: index, registry: StandardLibrary.registry())
    var options = QueryOptions(scope: AccessScope(now: Date()))
    options.delegate = CompositeDelegate([source])
    func run(_ query: String) throws -> [ResultItem] {
      var items: [ResultItem] = []
      try executor.run(query, options: options) { if !$0.isPartial { items += $0.content.resultItems } }
      return items
    }
    #expect(try run(#"search "feeding""#).map(\.id) == ["a.md"], "text is still searchable")
    let hydrated = try run(#"search "sourdough" | hydrate"#)
    #expect(hydrated.count == 2)
    #expect(hydrated.allSatisfy { $0.item.attributeSet["textContent"]?.stringValue?.contains("sourdough") == true })
    // The source loses b.md before the index hears of it: hydration drops it.
    try folder.remove("b.md")
    #expect(try run(#"search "sourdough" | hydrate"#).map(\.id) == ["a.md"])
    options.delegate = nil
    let error = #expect(throws: QueryError.self) { try run(#"search "sourdough" | hydrate"#) }
    #expect(error?.underlying is QueryRuntimeError)
  }
}
