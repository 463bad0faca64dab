import SearchIndex

/// One `searchlight index` run over its files: each file is read and checked before any of
/// its items is written, so a bad file is skipped whole (one warning line) and never half
/// written; with `strict` the first bad file stops the run instead.
struct IndexRun {
  /// Items written.
  private(set) var items = 0
  /// Files whose items were written (standard input counts as one).
  private(set) var files = 0
  /// Files skipped with a warning.
  private(set) var skipped = 0

  /// Files up to this size keep their checked items in memory until they are written;
  /// larger ones are read twice (checked, then written) so a million-line file is never held
  /// in memory. Standard input, which cannot be read twice, is always kept.
  static let bufferedFileBytes = 16 << 20

  /// Asked after each item: true once the run should stop (Ctrl-C). The run then ends with
  /// `IndexInterrupted` after the item that was being written, never in the middle of one.
  var shouldStop: () -> Bool = { false }

  /// Reads `file` (nil for standard input) and hands its items to `write`, or skips it with a
  /// warning when it cannot be read or parsed.
  mutating func ingest(
    _ file: DocumentFile?, reader: inout ItemReader, checker: inout ItemChecker, strict: Bool,
    progress: ProgressMeter, write: ItemReader.Body
  ) throws {
    var items = self.items
    let shouldStop = self.shouldStop
    func counted(_ item: SearchableItem, _ line: Int?, _ removed: Set<String>) throws {
      try write(item, line, removed)
      items += 1
      progress.update(count: items)
      if shouldStop() { throw IndexInterrupted() }
    }
    defer { self.items = items }
    if strict {
      // Today's all-or-nothing run: items stream straight into the transaction, and the first
      // error ends it.
      try Self.read(file, with: &reader, counted)
      report(&reader, progress: progress)
      files += 1
      return
    }
    let name = file?.path ?? "<stdin>"
    let buffered = file.map { ($0.size ?? 0) <= Self.bufferedFileBytes } ?? true
    var attempt = reader
    var checked = checker
    var pending: [(SearchableItem, Int?, Set<String>)] = []
    do {
      try Self.read(file, with: &attempt) { item, line, removed in
        if shouldStop() { throw IndexInterrupted() }
        do { try checked.check(item) } catch {
          throw IngestError(file: name, line: line, message: "\(error)")
        }
        if buffered { pending.append((item, line, removed)) }
      }
    } catch let error as IngestError {
      // The reader and checker stay as they were: types inferred from the skipped file's
      // values are forgotten with it.
      progress.warn(error.description)
      skipped += 1
      return
    }
    checker = checked
    if buffered {
      reader = attempt
      for (item, line, removed) in pending { try counted(item, line, removed) }
    } else {
      // The second reading sees the same bytes unless the file changed meanwhile; then its
      // error ends the whole run, and nothing of it is written.
      try Self.read(file, with: &reader, counted)
    }
    report(&reader, progress: progress)
    files += 1
  }

  private static func read(_ file: DocumentFile?, with reader: inout ItemReader, _ body: ItemReader.Body) throws {
    if let file { try reader.read(file, body) } else { try reader.readStandardInput(body) }
  }

  /// Prints the warnings a file left (front-matter keys dropped) and clears them.
  private func report(_ reader: inout ItemReader, progress: ProgressMeter) {
    for warning in reader.warnings { progress.warn(warning.description) }
    reader.warnings = []
  }
}

/// Ends an `index` run that was interrupted (Ctrl-C) between two items.
struct IndexInterrupted: Error {}
