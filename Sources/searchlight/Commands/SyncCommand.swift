import Foundation
import SearchIndex

/// `searchlight sync`: brings the index in line with a source, crash-safe: a folder of documents
/// (through `index`'s code path, `IngestJob`) or a table of another SQLite database (through the
/// journal).
enum SyncCommand: Command {
  static let name = "sync"
  static let abstract = "Sync the index with a folder of documents or an app's SQLite table (crash-safe; prints what changed)."
  static let usage = "sync --db FILE (--folder DIR | --sqlite APP.db --table T --id COL --updated COL --map attr=col,...) [--domain D] [--full] [--progress] [--watch [SECONDS] [--interval SECONDS]]"
  static let discussion = """
    The source stays authoritative; the index is derived from it. A folder is read as
    `index` reads one (Markdown, text, HTML, manual pages, e-mail, mbox, PDF, JSON; a bad file is skipped
    with a warning): files whose modification time, size and content hash are as recorded
    are not read again, and items of files deleted from the folder are removed (only items
    that came from that folder). Items commit in batches with the records of their files,
    and a table's changes go through a journal inside the index file; either way, if a sync
    is interrupted (even by SIGKILL), the next one finishes the work. --full reads every
    file or row again, and deletes items in the source's domain that the source no longer
    has. --watch keeps syncing until interrupted: on Linux a folder is watched with inotify
    and synced within a second of a change; otherwise (or when inotify is unavailable)
    every SECONDS (--watch SECONDS or --interval SECONDS, default 5).

    EXAMPLES:
      searchlight sync --db items.db --folder ~/Notes
      searchlight sync --db items.db --folder ~/Notes --watch
      searchlight sync --db items.db --sqlite app.db --table notes --id id --updated updated_at --map title=title,textContent=body
    """
  static let options: [OptionSpec] = [
    Common.db, Common.indexName,
    OptionSpec(name: "folder", kind: .value, valueName: "DIR", help: "A folder of documents, read as `index` reads them."),
    OptionSpec(name: "sqlite", kind: .value, valueName: "APP.db", help: "Another SQLite database (opened read-only)."),
    OptionSpec(name: "table", kind: .value, valueName: "T", help: "The table of --sqlite."),
    OptionSpec(name: "id", kind: .value, valueName: "COL", help: "The identifier column."),
    OptionSpec(name: "updated", kind: .value, valueName: "COL", help: "The column that changes when a row changes."),
    OptionSpec(name: "map", kind: .value, valueName: "attr=col,...", help: "Columns to attributes (repeatable)."),
    OptionSpec(name: "domain", kind: .value, valueName: "D", help: "Domain of the items (notes for folders, the table name for tables)."),
    OptionSpec(name: "full", kind: .flag, help: "Reconcile everything; delete items of the domain the source lacks."),
    OptionSpec(name: "watch", kind: .flag, help: "Keep syncing until interrupted: a folder on Linux as soon as it changes (inotify), else every --interval seconds."),
    OptionSpec(name: "interval", kind: .value, valueName: "SECONDS", help: "Seconds between syncs with --watch (default 5)."),
    OptionSpec(name: "batch", kind: .value, valueName: "N", help: "Items per applied batch (default 500)."),
    OptionSpec(name: "progress", kind: .flag, help: "Print progress lines for a folder (done/total, percent, rate, ETA) at most once a second."),
    OptionSpec(name: "no-store-text", kind: .flag, help: "Index note text for search without storing it; `hydrate` reads it from the source."),
  ]

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    var interval = Double(arguments.value("interval") ?? "5") ?? 5
    if let extra = arguments.positionals.first {
      // `--watch SECONDS`, the usage line's short form of `--watch --interval SECONDS`.
      guard arguments.has("watch"), arguments.positionals.count == 1, let seconds = Double(extra), seconds > 0 else {
        throw UsageError(message: "unexpected argument '\(extra)'", command: name)
      }
      interval = seconds
    }
    let source = try makeSource(arguments)
    let index = try Common.openIndex(arguments, command: name, create: true)
    if arguments.has("no-store-text") {
      do { try index.setStoresText(false) } catch { throw CommandFailure(error) }
    }
    let batch = Int(arguments.value("batch") ?? "500") ?? 500
    let domain = arguments.value("domain") ?? (source as? FolderSource)?.domain ?? (source as? SQLiteTableSource)?.domain
    let watching = arguments.has("watch")
    var watcher: FolderWatcher?
    // SEARCHLIGHT_WATCH=poll forces the polling fallback (tests of it on Linux).
    if watching, let folder = source as? FolderSource, ProcessInfo.processInfo.environment["SEARCHLIGHT_WATCH"] != "poll" {
      watcher = FolderWatcher(folder: folder.folder, interval: interval)
    }
    repeat {
      let start = Date()
      let changes: (written: [String], removed: [String], notes: String)
      if let folder = source as? FolderSource {
        changes = try syncFolder(folder, index: index, arguments: arguments, batch: max(1, batch))
      } else {
        let report: SyncReport
        do {
          report = try Synchronizer(index: index, source: source, domain: domain).sync(full: arguments.has("full"), batchSize: max(1, batch))
        } catch let error as SearchIndexError {
          throw CommandFailure(error)
        }
        changes = (report.applied.upserted, report.applied.deleted, "")
      }
      var line = "synced \(source.name): \(changes.written.count) added or updated, \(changes.removed.count) deleted" + changes.notes
      line += String(format: " (%.2f s)", Date().timeIntervalSince(start))
      Terminal.out(line + "\n")
      for id in changes.written.prefix(20) { Terminal.out("  + \(id)\n") }
      for id in changes.removed.prefix(20) { Terminal.out("  - \(id)\n") }
      let more = max(0, changes.written.count - 20) + max(0, changes.removed.count - 20)
      if more > 0 { Terminal.out("  … and \(more) more\n") }
      if !changes.written.isEmpty { EmbeddingsCommand.embedNewItems(index) }
      if watching {
        if let watcher, watcher.isActive {
          watcher.waitForChange()
        } else {
          Thread.sleep(forTimeInterval: max(0.2, interval))
        }
      }
    } while watching
    return .success
  }

  /// Syncs a folder through `index`'s code path (`IngestJob`): every importer, a skipped bad
  /// file, progress, unchanged files left unread and items of deleted files removed. Each
  /// batch of items commits with the records of the files it came from, so an interrupted
  /// sync keeps whole files and the next one finishes the work.
  static func syncFolder(
    _ folder: FolderSource, index: SearchIndex, arguments: ParsedArguments, batch: Int
  ) throws -> (written: [String], removed: [String], notes: String) {
    let full = arguments.has("full")
    let job = IngestJob(
      paths: [folder.folder], domain: folder.domain, batchSize: batch, rereadAll: full, fullDomain: full ? folder.domain : nil,
      listsWritten: true, command: name)
    let progress = ProgressMeter("syncing", mode: ProgressMeter.mode(lines: arguments.has("progress")))
    var outcome = IngestJob.Outcome()
    do {
      // Work an earlier version staged in the journal and did not apply goes first.
      try index.applyPendingWork(batchSize: batch)
      try job.run(index: index, progress: progress, shouldStop: { false }, outcome: &outcome)
      try index.recordSource(name: folder.name, configuration: folder.configuration)
    } catch let error as SearchIndexError {
      progress.finish()
      throw CommandFailure(error)
    } catch {
      progress.finish()
      throw error
    }
    progress.finish()
    var notes = ""
    if outcome.unchanged > 0 { notes += ", \(outcome.unchanged) unchanged" }
    if outcome.skipped > 0 { notes += ", \(outcome.skipped) skipped" }
    return (outcome.written, outcome.removed, notes)
  }

  static func makeSource(_ arguments: ParsedArguments) throws -> any ItemSource {
    if let folder = arguments.value("folder") {
      guard arguments.value("sqlite") == nil else { throw UsageError(message: "give --folder or --sqlite, not both", command: name) }
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
        throw CommandFailure(.noInput, "\(folder): no such folder", location: folder)
      }
      return FolderSource(folder: folder, domain: arguments.value("domain") ?? "notes")
    }
    guard let database = arguments.value("sqlite") else {
      throw UsageError(message: "give a source: --folder DIR or --sqlite APP.db --table T --id COL --updated COL --map attr=col,...", command: name)
    }
    guard let table = arguments.value("table"), let id = arguments.value("id"), let updated = arguments.value("updated") else {
      throw UsageError(message: "--sqlite needs --table, --id and --updated", command: name)
    }
    var mapping: [(String, String)] = []
    for pair in arguments.all("map").flatMap({ $0.split(separator: ",") }) {
      let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
      guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
        throw UsageError(message: "'\(pair)' is not attr=column", command: name)
      }
      mapping.append((parts[0], parts[1]))
    }
    guard !mapping.isEmpty else { throw UsageError(message: "--sqlite needs --map attr=column,...", command: name) }
    guard FileManager.default.fileExists(atPath: database) else {
      throw CommandFailure(.noInput, "\(database): no such database", location: database)
    }
    do {
      return try SQLiteTableSource(path: database, table: table, idColumn: id, updatedColumn: updated, mapping: mapping,
                                   domain: arguments.value("domain"))
    } catch let error as IngestError {
      throw CommandFailure(error)
    }
  }
}
