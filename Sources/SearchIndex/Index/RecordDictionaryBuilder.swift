/// Gives a file its record dictionary (`RecordCodec`) once it holds enough records to train
/// one, inside the write that gets it there, and compresses the records stored before.
///
/// A write samples the records it writes; at `trainingRecords` of them it trains the
/// dictionary, stores it, compresses the records already in the file, and every later
/// record is compressed as it is written. A file that grows by small writes gets it at the
/// end of the write that takes it past `trainingRecords` items, from its latest records; so
/// does a file written before records were compressed (schema version 6), at its next write.
///
/// Protected and expiring items are never sampled: the dictionary holds fragments of the
/// records it was trained on and, unlike them, stays in the file.
struct RecordDictionaryBuilder {
  /// Records sampled before the dictionary is trained. 2,000 trained within 1% of 5,000 on
  /// the Zipf collection and the package catalogue (BENCHMARKS.md). A task-local so tests
  /// reach it with a few items.
  @TaskLocal package static var trainingRecords = 2_000
  private let trainingRecords = RecordDictionaryBuilder.trainingRecords
  /// The bytes of a record a sample keeps: what repeats across records (member names, the
  /// values and words they share) shows in their first kilobytes, and a folder of documents
  /// has records of megabytes (2,000 of them whole held hundreds of megabytes).
  static let sampleBytes = 4_096
  /// This write's sampled records; nil once the file has its dictionary.
  private var samples: [[UInt8]]?

  init(_ db: Connection) throws {
    samples = try db.records.reload(db) ? nil : []
  }

  /// What a sample keeps of a record's bytes.
  static func sample(_ record: some Collection<UInt8>) -> [UInt8] { Array(record.prefix(sampleBytes)) }

  /// Offers the record `json` of `item`, about to be written.
  mutating func offer(_ json: String, of item: SearchableItem, _ db: Connection) throws {
    guard samples != nil, item.protectionClass == nil, item.expirationDate == nil else { return }
    samples?.append(Self.sample(json.utf8))
    if let samples, samples.count >= trainingRecords { try build(from: samples, db) }
  }

  /// At the end of a write whose file, largest rowid `lastRowid`, has no dictionary yet:
  /// trains one from its latest records when it holds enough.
  mutating func finish(_ db: Connection, lastRowid: Int64) throws {
    guard samples != nil, lastRowid >= trainingRecords else { return }
    let stored = try db.rows(
      "SELECT attributes FROM items WHERE protection IS NULL AND expiration IS NULL ORDER BY rowid DESC LIMIT ?",
      [.integer(Int64(trainingRecords))]
    ) { Self.sample(try $0.record(0)) }
    guard stored.count >= trainingRecords else { return }
    try build(from: stored, db)
  }

  private mutating func build(from samples: [[UInt8]], _ db: Connection) throws {
    try db.records.store(RecordCodec.train(samples), db)
    self.samples = nil
    try Self.compressStoredRecords(db)
  }

  /// Compresses every record the file keeps as JSON (those that shrink), in rowid order, a
  /// chunk at a time so no statement steps while the table changes under it.
  static func compressStoredRecords(_ db: Connection) throws {
    var last = Int64.min
    while true {
      let rows = try db.rows(
        "SELECT rowid, attributes FROM items WHERE rowid > ? AND typeof(attributes) = 'text' ORDER BY rowid LIMIT 2000",
        [.integer(last)]
      ) { ($0.int64(0), $0.string(1) ?? "") }
      guard let final = rows.last else { return }
      last = final.0
      let update = try db.cachedStatement("UPDATE items SET attributes = ? WHERE rowid = ?")
      for (rowid, json) in rows {
        let value = try db.recordValue(json)
        guard case .blob = value else { continue }
        try update.execute([value, .integer(rowid)])
      }
    }
  }
}
