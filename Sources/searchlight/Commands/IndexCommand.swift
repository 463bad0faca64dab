import Foundation
import SearchIndex

/// `searchlight index`: adds items from files, folders or standard input in one transaction.
enum IndexCommand: Command {
  static let name = "index"
  static let abstract = "Add items to an index from JSON, JSON Lines, documents (Markdown, text, HTML, manual pages, e-mail, PDF), folders or standard input."
  static let usage = "index --db FILE [--index NAME] [--domain D] [--format items|corpus] [--update] [--strict] [--batch N] [--progress] PATH..."
  static let discussion = """
    PATH is a .json file (an array of items, or items pretty-printed one after another),
    a .jsonl file (one item per line), '-' for standard input (any of those three forms:
    `jq '.items' export.json | searchlight index --db F -`), a document, or a folder of
    any of these. Documents: Markdown and text notes, HTML pages (visible text, <title>),
    e-mail (.eml, and .mbox as one item per message), manual pages (troff, titled by their
    NAME section: /usr/share/man/man1) and PDF (through pdftotext from poppler-utils); a
    gzip-compressed document (changelog.Debian.gz, README.md.gz) is read
    decompressed. Files are chosen by extension, else by content: an extensionless text
    file (README, NEWS, README.Debian) is a plain-text note, and text that is not UTF-8 is
    read as Latin-1. Items replace stored items with the same id; with --update only the
    given attributes change (null removes one).

    A file that cannot be read or parsed (a malformed line, a value of the wrong type,
    binary content) is skipped whole, with one warning line on standard error:
      warning: FILE:LINE: why
    and the run goes on and exits 0. The summary on standard output counts both:
      indexed N items from M files; K skipped; into FILE (NAME) in S s, R items/s
    The invocation is one transaction, and a file is written whole or not at all. With
    --strict the first bad file stops the run (exit 65) and nothing is written.

    FOLDERS are incremental: a file whose modification time, size and content hash are as
    the last run of that folder recorded is not read again, and the items of files deleted
    from the folder are removed (only items that came from that folder; a protected or
    expired one is removed silently). The summary says so:
      indexed 1 item from 1 file; 0 skipped; 4 unchanged (4 files not read); 1 removed; into ...
    `sync --folder` shares these records.

    LONG JOBS: on a terminal a progress bar shows done/total, percent, rate and time left
    (the total is a quick count of files and lines); --progress prints the same as lines,
    at most one a second, for scripts and logs. With --batch N every N items are committed,
    so an interrupted run keeps what it committed and a rerun resumes: items stored exactly
    as given are skipped cheaply (counted as unchanged in the summary). Ctrl-C stops after
    the current item and exits 130:
      interrupted: kept 14,000 of 200,000 items; rerun to continue
    Without --batch the run is one transaction and Ctrl-C keeps nothing (it says so).

    EXAMPLES:
      searchlight index --db items.db trails.jsonl notes.jsonl
      searchlight index --db items.db --domain notes ~/Notes
      cat items.jsonl | searchlight index --db items.db -
      searchlight index --db big.db --batch 5000 --progress big.jsonl
    """
  static let options: [OptionSpec] = [
    Common.db, Common.indexName,
    OptionSpec(name: "domain", kind: .value, valueName: "D", help: "Domain for items that name none (notes default to 'notes')."),
    OptionSpec(name: "format", kind: .value, valueName: "FORMAT", help: "items, corpus ({\"id\",\"title\",\"text\"} lines) or auto (default)."),
    OptionSpec(name: "strict", kind: .flag, help: "Stop at the first file that cannot be read or parsed (exit 65) and write nothing."),
    OptionSpec(name: "update", kind: .flag, help: "Merge into stored items instead of replacing them."),
    OptionSpec(name: "batch", kind: .value, valueName: "N", help: "Commit every N items: an interrupted run keeps them and a rerun resumes."),
    OptionSpec(name: "progress", kind: .flag, help: "Print progress lines (done/total, percent, rate, ETA) at most once a second."),
    OptionSpec(name: "declare", kind: .value, valueName: "NAME=TYPE,...", help: "Declare custom attribute types (string, number, date, bool, url, [string], ...); repeatable."),
  ]

  static func run(_ arguments: ParsedArguments) throws -> ExitCode {
    guard !arguments.positionals.isEmpty else {
      throw UsageError(message: "missing PATH: give item files, folders or '-' for standard input", command: name)
    }
    let format = try Common.format(arguments, allowed: ["auto", "items", "corpus"], default: "auto", command: name)
    if let domain = arguments.value("domain") {
      do { try ItemDecoder.validateDomain(domain) } catch { throw UsageError(message: error.message, command: name) }
    }
    var declarations: [(String, AttributeType)] = []
    for declaration in arguments.all("declare").flatMap({ $0.split(separator: ",") }) {
      let parts = declaration.split(separator: "=", maxSplits: 1)
      guard parts.count == 2, let type = AttributeType(parsing: String(parts[1])) else {
        throw UsageError(message: "'\(declaration)' is not NAME=TYPE (types: string, number, date, bool, url, [string], ...)", command: name)
      }
      declarations.append((String(parts[0]), type))
    }
    for path in arguments.positionals where path != "-" {
      if !FileManager.default.fileExists(atPath: path) {
        throw CommandFailure(.noInput, "\(path): no such file or directory", location: path)
      }
    }
    var batchSize: Int?
    if let text = arguments.value("batch") {
      guard let value = Int(text), value > 0 else {
        throw UsageError(message: "'--batch' needs a positive number of items, got '\(text)'", command: name)
      }
      batchSize = value
    }
    let dbPath = try Common.dbPath(arguments, command: name)
    let isNewFile = !FileManager.default.fileExists(atPath: dbPath)
    let index = try Common.openIndex(arguments, command: name, create: true)
    // A failed first invocation leaves no file behind: nothing from it is written.
    var succeeded = false
    defer {
      if isNewFile && !succeeded {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: dbPath + suffix) }
      }
    }
    let progress = ProgressMeter("indexing", mode: ProgressMeter.mode(lines: arguments.has("progress")))
    let start = Date()
    let job = IngestJob(
      paths: arguments.positionals, format: ItemReader.Format(rawValue: format) ?? .auto, domain: arguments.value("domain"),
      update: arguments.has("update"), strict: arguments.has("strict"), batchSize: batchSize, declarations: declarations,
      command: name)
    // Ctrl-C stops the run between two items (`IndexRun.shouldStop`).
    let interrupts = InterruptMonitor.shared
    interrupts.install()
    let baseline = interrupts.count
    var outcome = IngestJob.Outcome()
    do {
      try job.run(index: index, progress: progress, shouldStop: { interrupts.count != baseline }, outcome: &outcome)
    } catch is IndexInterrupted {
      progress.finish()
      Terminal.err("interrupted: kept 0 of \(DigitGrouping.grouped(progress.total ?? outcome.countExpectedItems() ?? outcome.items)) items (without --batch the run is one transaction); nothing written\n")
      return .interrupted
    } catch {
      progress.finish()
      // With --batch, committed batches stay (the file is not removed) and the error says so.
      if outcome.committed > 0 {
        succeeded = true
        Terminal.err("note: kept \(DigitGrouping.grouped(outcome.committed)) items committed in batches before the failure\n")
      }
      throw error
    }
    progress.finish()
    succeeded = true
    if outcome.interrupted {
      let kept = outcome.items
      let of = DigitGrouping.grouped(max(progress.total ?? outcome.countExpectedItems() ?? kept, kept))
      Terminal.err("interrupted: kept \(DigitGrouping.grouped(kept)) of \(of) items; rerun to continue\n")
      return .interrupted
    }
    let seconds = Date().timeIntervalSince(start)
    let count = outcome.items
    let rate = seconds > 0 ? Int(Double(count) / seconds) : count
    Terminal.out(
      "indexed \(count) item\(count == 1 ? "" : "s") from \(outcome.files) file\(outcome.files == 1 ? "" : "s"); \(outcome.skipped) skipped; "
        + Self.changeNotes(outcome) + "into \(index.path) (\(index.name)) in \(String(format: "%.2f", seconds)) s, \(rate) items/s\n")
    EmbeddingsCommand.embedNewItems(index)
    return .success
  }

  /// The summary's notes on unchanged and removed items, each ending in "; " (none when there
  /// is nothing to say): `U unchanged; `, `U unchanged (F files not read); `, `R removed; `.
  static func changeNotes(_ outcome: IngestJob.Outcome) -> String {
    var notes = ""
    if outcome.unchanged > 0 || outcome.unchangedFiles > 0 {
      notes += "\(outcome.unchanged) unchanged"
      if outcome.unchangedFiles > 0 { notes += " (\(outcome.unchangedFiles) file\(outcome.unchangedFiles == 1 ? "" : "s") not read)" }
      notes += "; "
    }
    if !outcome.removed.isEmpty { notes += "\(outcome.removed.count) removed; " }
    return notes
  }
}
