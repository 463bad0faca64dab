import Foundation
import SearchIndex

/// Reads files, folders or standard input into an index: the one code path of `index` and of
/// `sync --folder`. Every file is read by the importer its extension or content chooses
/// (`DocumentImporters`); a bad file is skipped with a warning (or stops the run with
/// `strict`). A folder is incremental (`FolderFiles`): unchanged files are not read, and items
/// of files deleted from it are removed.
struct IngestJob {
  var paths: [String]
  var format: ItemReader.Format = .auto
  var domain: String?
  var update = false
  var strict = false
  /// Commit every this many items (nil: one transaction).
  var batchSize: Int?
  var declarations: [(String, AttributeType)] = []
  /// Read every file of the folders, changed or not, and delete items of `fullDomain` that
  /// the folders did not deliver (`sync --full`).
  var rereadAll = false
  var fullDomain: String?
  /// Collect the identifiers written (`Outcome.written`, which `sync` lists); `index` only
  /// counts, and a million identifiers are not kept for nothing.
  var listsWritten = false
  /// The command, for usage errors.
  var command: String

  /// What a run did.
  struct Outcome {
    /// Items read and handed to the index.
    var items = 0
    /// Files read (standard input counts as one).
    var files = 0
    /// Files skipped with a warning.
    var skipped = 0
    /// Items stored exactly as they were, counting those of unchanged files.
    var unchanged = 0
    /// Files of folders left unread because they are as recorded.
    var unchangedFiles = 0
    /// Items written (added or changed) that a caller without grants may see (with
    /// `listsWritten`).
    var written: [String] = []
    /// Items removed because their files left their folder (or, with `fullDomain`, the
    /// domain), that a caller without grants may see.
    var removed: [String] = []
    /// Items in committed batches when the run failed or was interrupted.
    var committed = 0
    var interrupted = false
    /// The files the run reads (nil: standard input), for the count of what it would have
    /// read (`countExpectedItems`).
    var inputs: [DocumentFile?] = []

    /// Counts the items the run would read (`IndexPreCount`, which reads the files again):
    /// what the note of an interrupted run counts against when no progress meter counted them.
    func countExpectedItems() -> Int? { IndexPreCount.items(in: inputs) }
  }

  /// Runs the job; `IndexInterrupted` without `batchSize` means nothing was written.
  /// `result` holds what was done so far even when the run throws (the committed count of a
  /// failed run with batches).
  func run(index: SearchIndex, progress: ProgressMeter, shouldStop: @escaping () -> Bool, outcome result: inout Outcome) throws {
    var run = IndexRun()
    run.shouldStop = shouldStop
    let now = Date()
    var outcome = Outcome()
    defer { result = outcome }
    try index.write { writer in
      for (attribute, type) in declarations {
        do { try writer.declare(attribute, as: type) } catch let error as SearchIndexError {
          throw UsageError(message: error.description, command: command)
        }
      }
      var reader = ItemReader(decoder: ItemDecoder(catalog: writer.catalog, defaultDomain: domain), format: format)
      reader.isUpdate = update
      var checker = ItemChecker(catalog: writer.catalog)
      defer {
        outcome.items = run.items
        outcome.files = run.files
        outcome.skipped = run.skipped
      }
      var work: [(file: DocumentFile?, folder: Int?)] = []
      var folders: [FolderFiles] = []
      for path in paths {
        var isDirectory: ObjCBool = false
        if path != "-", FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
          let folder = try FolderFiles(root: path, files: try reader.files(at: path), writer: writer, rereadAll: rereadAll)
          work += folder.changed.map { ($0, folders.count) }
          outcome.unchangedFiles += folder.unchangedFiles
          outcome.unchanged += folder.unchangedItems
          folders.append(folder)
        } else {
          work += path == "-" ? [(nil, nil)] : try reader.files(at: path).map { ($0, nil) }
        }
      }
      outcome.inputs = work.map(\.file)
      // Counted only for a meter that shows it: the count reads every file once more (5% of
      // a run whose lines are mostly unchanged).
      if progress.mode != .off { progress.total = IndexPreCount.items(in: outcome.inputs) }
      let unchangedBefore = writer.unchanged
      var written = 0
      do {
        for (file, folder) in work {
          var identifiers: [String] = []
          let skippedBefore = run.skipped
          try run.ingest(file, reader: &reader, checker: &checker, strict: strict, progress: progress) { item, line, removed in
            let changed: Bool
            do {
              changed = update ? try writer.merge(item, removing: removed) : try writer.upsert(item)
            } catch let error as SearchIndexError {
              if case .invalidItem(_, let message) = error {
                throw IngestError(file: file?.path ?? "<stdin>", line: line, message: message)
              }
              throw error
            }
            // A folder's bookkeeping needs the identifiers each file delivered; a file given
            // by itself does not, and a million lines would hold a million strings.
            if folder != nil { identifiers.append(item.uniqueIdentifier) }
            if listsWritten, changed, item.protectionClass == nil, item.expirationDate.map({ $0 > now }) ?? true {
              outcome.written.append(item.uniqueIdentifier)
            }
            written += 1
            if let batchSize, written % batchSize == 0 {
              try writer.commitBatch()
              outcome.committed = written
            }
          }
          if let file, let folder, run.skipped == skippedBefore {
            outcome.removed += try folders[folder].recordRead(file, identifiers: identifiers, writer: &writer, now: now)
          }
        }
        for number in folders.indices {
          outcome.removed += try folders[number].finish(writer: &writer, now: now)
        }
        if let fullDomain {
          // Full reconciliation: items of the domain that no folder delivered are orphans.
          let delivered = folders.reduce(into: Set<String>()) { $0.formUnion($1.deliveredIdentifiers) }
          let orphans = try writer.identifiers(inDomain: fullDomain).subtracting(delivered)
          outcome.removed += try writer.deleteUndelivered(orphans.sorted(), now: now)
        }
      } catch is IndexInterrupted where batchSize != nil {
        // Stopped between two items: what was written commits with this transaction.
        outcome.interrupted = true
      }
      outcome.unchanged += writer.unchanged - unchangedBefore
    }
  }
}
