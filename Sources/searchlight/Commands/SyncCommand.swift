import Foundation
import SearchIndex

/// `searchlight sync`: brings the index in line with a source (a notes folder or a table of
/// another SQLite database) through the crash-safe journal.
enum SyncCommand: Command {
  static let name = "sync"
  static let abstract = "Sync the index with a notes folder or an app's SQLite table (crash-safe; prints what changed)."
  static let usage = "sync --db FILE (--folder DIR | --sqlite APP.db --table T --id COL --updated COL --map attr=col,...) [--domain D] [--full] [--watch [--interval SECONDS]]"
  static let discussion = """
    The source stays authoritative; the index is derived from it. Changes are staged in a
    journal inside the index file and applied in batches; if a sync is interrupted (even by
    SIGKILL), the next one finishes the work. --full reconciles everything: items in the
    source's domain that the source no longer has are deleted. --watch repeats every
    --interval SECONDS (default 5) until interrupted.

    EXAMPLES:
      searchlight sync --db items.db --folder ~/Notes
      searchlight sync --db items.db --sqlite app.db --table notes --id id --updated updated_at --map title=title,textContent=body
    """
  static let options: [OptionSpec] = [
    Common.db, Common.indexName,
    OptionSpec(name: "folder", kind: .value, valueName: "DIR", help: "A folder of .md/.txt notes."),
    OptionSpec(name: "sqlite", kind: .value, valueName: "APP.db", help: "Another SQLite database (opened read-only)."),
    OptionSpec(name: "table", kind: .value, valueName: "T", help: "The table of --sqlite."),
    OptionSpec(name: "id", kind: .value, valueName: "COL", help: "The identifier column."),
    OptionSpec(name: "updated", kind: .value, valueName: "COL", help: "The column that changes when a row changes."),
    OptionSpec(name: "map", kind: .value, valueName: "attr=col,...", help: "Columns to attributes (repeatable)."),
    OptionSpec(name: "domain", kind: .value, valueName: "D", help: "Domain of the items (notes for folders, the table name for tables)."),
    OptionSpec(name: "full", kind: .flag, help: "Reconcile everything; delete items of the domain the source lacks."),
    OptionSpec(name: "watch", kind: .flag, help: "Sync again every --interval seconds until interrupted."),
    OptionSpec(name: "interval", kind: .value, valueName: "SECONDS", help: "Seconds between syncs with --watch (default 5)."),
    OptionSpec(name: "batch", kind: .value, valueName: "N", help: "Items per applied batch (default 500)."),
    OptionSpec(name: "no-store-text", kind: .flag, help: "Index note text for search without storing it; `hydrate` reads it from the source."),
  ]

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    guard arguments.positionals.isEmpty else { throw UsageError(message: "unexpected argument '\(arguments.positionals[0])'", command: name) }
    let source = try makeSource(arguments)
    let index = try Common.openIndex(arguments, command: name, create: true)
    if arguments.has("no-store-text") {
      do { try index.setStoresText(false) } catch { throw CommandFailure(error) }
    }
    let batch = Int(arguments.value("batch") ?? "500") ?? 500
    let interval = Double(arguments.value("interval") ?? "5") ?? 5
    let domain = arguments.value("domain") ?? (source as? FolderSource)?.domain ?? (source as? SQLiteTableSource)?.domain
    repeat {
      let start = Date()
      let report: SyncReport
      do {
        report = try Synchronizer(index: index, source: source, domain: domain).sync(full: arguments.has("full"), batchSize: max(1, batch))
      } catch let error as SearchIndexError {
        throw CommandFailure(error)
      }
      let applied = report.applied
      var line = "synced \(source.name): \(applied.upserted.count) added or updated, \(applied.deleted.count) deleted"
      line += String(format: " (%.2f s)", Date().timeIntervalSince(start))
      Terminal.out(line + "\n")
      for id in applied.upserted.prefix(20) { Terminal.out("  + \(id)\n") }
      for id in applied.deleted.prefix(20) { Terminal.out("  - \(id)\n") }
      let more = max(0, applied.upserted.count - 20) + max(0, applied.deleted.count - 20)
      if more > 0 { Terminal.out("  … and \(more) more\n") }
      if !applied.upserted.isEmpty { EmbeddingsCommand.embedNewItems(index) }
      if arguments.has("watch") { Thread.sleep(forTimeInterval: max(0.2, interval)) }
    } while arguments.has("watch")
    return .success
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
