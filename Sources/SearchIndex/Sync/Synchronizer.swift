import Foundation

/// What one sync did.
public struct SyncReport: Sendable, Hashable {
  /// Entries staged in the journal by this sync.
  public var staged = 0
  /// What was applied (including work left pending by an earlier, interrupted sync).
  public var applied = ApplyReport()
  public init() {}
}

/// Brings an index in line with a source: compares the source's records with what the index
/// holds (`source_state`), stages the differences in the journal in one transaction, then
/// applies pending work in batches. Interrupted at any point, the next sync finishes the job:
/// staged work stays in the journal, applied work is recorded with its version.
public struct Synchronizer {
  public let index: SearchIndex
  public var source: any ItemSource
  /// The domain the source is authoritative for: a full sync deletes items in it that the
  /// source does not have.
  public var domain: String?

  public init(index: SearchIndex, source: any ItemSource, domain: String? = nil) {
    self.index = index
    self.source = source
    self.domain = domain
  }

  /// Stages the source's changes (everything with `full`, plus deletes for orphans in
  /// `domain`) and applies all pending work.
  @discardableResult
  public func sync(full: Bool = false, batchSize: Int = 500, afterBatch: (ApplyReport) -> Void = { _ in }) throws -> SyncReport {
    var report = SyncReport()
    let previous = try index.sourceState(source.name)
    var source = self.source
    if var folder = source as? FolderSource {
      folder.previousVersions = previous.mapValues(\.version)
      source = folder
    }
    let records = try source.scan()
    var entries: [JournalEntry] = []
    var seenKeys = Set<String>()
    var seenIDs: [String: String] = [:]
    for record in records {
      seenKeys.insert(record.key)
      let known = previous[record.key]
      if !full, let known, known.version == record.version {
        seenIDs[known.id] = record.key
        continue
      }
      let item = try record.load()
      if let other = seenIDs[item.uniqueIdentifier] {
        throw IngestError(.badData, file: record.key, line: nil, message: "'\(other)' and '\(record.key)' both declare the id '\(item.uniqueIdentifier)'")
      }
      seenIDs[item.uniqueIdentifier] = record.key
      if let known, known.id != item.uniqueIdentifier {
        entries.append(.delete(known.id))  // the record changed its id
      }
      entries.append(.upsert(item, source: source.name, sourceKey: record.key, version: record.version))
    }
    for (key, known) in previous where !seenKeys.contains(key) {
      entries.append(.delete(known.id, source: source.name, sourceKey: key))
    }
    if full, let domain {
      // Full reconciliation: the union of source ids and indexed ids; orphans become deletes.
      let sourceIDs = Set(seenIDs.keys)
      let deleted = Set(entries.filter { $0.operation == .delete }.map(\.identifier))
      for orphan in try index.identifiers(inDomain: domain) where !sourceIDs.contains(orphan) && !deleted.contains(orphan) {
        entries.append(.delete(orphan))
      }
    }
    if !entries.isEmpty {
      try index.stage(entries)
      report.staged = entries.count
    }
    try index.recordSource(name: source.name, configuration: source.configuration)
    report.applied = try index.applyPendingWork(batchSize: batchSize, afterBatch: afterBatch)
    return report
  }
}
