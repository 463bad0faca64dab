import Foundation
import SearchIndex

/// `searchlight check`: verifies an index file.
enum CheckCommand: Command {
  static let name = "check"
  static let abstract = "Check an index: SQLite's integrity check, FTS5's integrity-check, and pending journal work."
  static let usage = "check --db FILE [--progress]"
  static let options: [OptionSpec] = [Common.db, Common.indexName, MaintenanceDisplay.stepsOption]

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    let index = try Common.openIndex(arguments, command: name, create: false)
    let report: IntegrityReport
    let display = MaintenanceDisplay(arguments)
    defer { display.finish() }
    // Each line as its check ends (a large index takes minutes), the bar cleared for it.
    do {
      report = try index.checkIntegrity(onLine: { line in
        display.clear()
        Terminal.out(line + "\n")
      }, progress: display.report)
    } catch { throw CommandFailure(error) }
    display.finish()
    if report.isHealthy {
      Terminal.out("ok\n")
      return .success
    }
    throw CommandFailure(.ioError, "the index has problems; run `searchlight rebuild --db \(index.path)`")
  }
}

/// `searchlight rebuild`: rebuilds derived structures from stored data, or from the sources.
enum RebuildCommand: Command {
  static let name = "rebuild"
  static let abstract =
    "Rebuild the full-text index from stored items, re-read every item from the synced sources, or give the file's free space back."
  static let usage = "rebuild --db FILE [--progress] [--from-sources | --compact]"
  static let options: [OptionSpec] = [
    Common.db, Common.indexName,
    OptionSpec(name: "from-sources", kind: .flag, help: "Ask every synced source to re-donate all its items."),
    OptionSpec(
      name: "compact", kind: .flag,
      help: "Only rewrite the file without its free space (SQLite's VACUUM), after large deletes or an upgrade; rebuilds nothing. Needs free disk space up to twice the file's size while it runs."),
    MaintenanceDisplay.stepsOption,
  ]

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    if arguments.has("compact") && arguments.has("from-sources") {
      throw UsageError(message: "--compact rebuilds nothing: give it alone, or run it after --from-sources", command: name)
    }
    let index = try Common.openIndex(arguments, command: name, create: false)
    if arguments.has("compact") {
      Terminal.err("compacting \(index.path) (\(Common.formatBytes(SearchIndex.fileBytes(index.path))))…\n")
      let compaction: SearchIndex.Compaction
      do { compaction = try index.compact() } catch { throw CommandFailure(error) }
      Terminal.out("compacted \(index.path): \(Common.formatBytes(compaction.bytesBefore)) → \(Common.formatBytes(compaction.bytesAfter))\n")
      if compaction.waitsForReaders {
        Terminal.err("note: other processes are reading the file; it shrinks once they finish (at the next write, or when the last one closes it)\n")
      }
      return .success
    }
    do {
      if arguments.has("from-sources") {
        let sources = try index.recordedSources()
        guard !sources.isEmpty else { throw CommandFailure(.dataError, "no synced sources are recorded in this index") }
        for (name, configuration) in sources {
          guard let source = try SourceFactory.source(configuration) else {
            Terminal.err("warning: cannot recreate source \(name)\n")
            continue
          }
          try source.reindexAll(into: index)
          Terminal.out("re-read \(name)\n")
        }
      }
      let display = MaintenanceDisplay(arguments)
      defer { display.finish() }
      let count = try index.rebuildFullTextIndex(progress: display.report)
      display.finish()
      Terminal.out("rebuilt the full-text index of \(count) items\n")
    } catch let error as SearchIndexError {
      throw CommandFailure(error)
    }
    return .success
  }
}
