internal import CZstd

/// Stored records (`items.attributes`) compressed with zstd and a dictionary trained once per
/// file from its own records.
///
/// A record is the item's canonical JSON. Records of a few hundred bytes barely compress on
/// their own (zstd without a dictionary: 608 → 402 bytes a record on the Zipf collection); with
/// a 64 KB dictionary trained on 2,000 of them they shrink 2.4x (Zipf) to 4x (a package
/// catalogue, whose records repeat the same attribute names and values), and decompress in
/// about a microsecond each.
///
/// The column says which form a record is in: a zstd frame starts with the bytes `28 B5 2F FD`
/// (stored as a BLOB), the JSON with `{` (stored as TEXT). Files written before the dictionary
/// existed, and records that do not shrink (`{}`), keep their JSON; both forms read alike.
///
/// The dictionary lives in `meta` under `dictionaryKey` and never changes once written, so a
/// connection keeps it once loaded. It is trained from items that are neither protected nor
/// expiring (an empty dictionary, when training finds nothing to learn, compresses without
/// one). `IndexWriter` decides when a file gets it (`RecordDictionaryBuilder`).
///
/// One codec per `Connection`, used by one thread at a time like the connection itself.
package final class RecordCodec {
  /// The `meta` key of the dictionary (a BLOB).
  static let dictionaryKey = "recordDictionary"
  /// The most bytes a dictionary takes. 64 KB measured best of 16, 64 and 128 KB on the Zipf
  /// collection and the package catalogue (BENCHMARKS.md); 128 KB gained 1-4% more.
  static let dictionaryCapacity = 64 << 10
  /// zstd's level for records: 3 (its default) is within 2% of level 9's size on records and
  /// several times faster to write.
  static let level: Int32 = 3
  /// The first bytes of a zstd frame (the little-endian magic number 0xFD2FB528).
  static let frameMagic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]
  /// The largest decompressed record accepted: a record holds at most 32 MiB of text as JSON.
  static let maximumRecordBytes: UInt64 = 1 << 30

  /// The file's dictionary once loaded; nil until then (and while the file has none).
  private var dictionary: Dictionary? {
    didSet {
      // The compressor refers to the dictionary it was made with.
      guard dictionary !== oldValue, let compressor else { return }
      ZSTD_freeCCtx(compressor)
      self.compressor = nil
    }
  }
  private var compressor: OpaquePointer?
  private var decompressor: OpaquePointer?

  init() {}

  deinit {
    if let compressor { ZSTD_freeCCtx(compressor) }
    if let decompressor { ZSTD_freeDCtx(decompressor) }
  }

  /// A dictionary's bytes with zstd's digested forms of them.
  final class Dictionary {
    let bytes: [UInt8]
    let compression: OpaquePointer?
    let decompression: OpaquePointer?

    init(_ bytes: [UInt8]) {
      self.bytes = bytes
      if bytes.isEmpty {
        (compression, decompression) = (nil, nil)
      } else {
        compression = bytes.withUnsafeBytes { ZSTD_createCDict($0.baseAddress, $0.count, RecordCodec.level) }
        decompression = bytes.withUnsafeBytes { ZSTD_createDDict($0.baseAddress, $0.count) }
      }
    }

    deinit {
      if let compression { ZSTD_freeCDict(compression) }
      if let decompression { ZSTD_freeDDict(decompression) }
    }
  }

  /// True when `bytes` (a record column) is a compressed record.
  static func isCompressed(_ bytes: UnsafeRawBufferPointer) -> Bool {
    bytes.starts(with: frameMagic)
  }

  private func loadedDictionary(_ db: Connection) throws(DatabaseError) -> Dictionary? {
    if let dictionary { return dictionary }
    try reload(db)
    return dictionary
  }

  /// Reads the dictionary the file holds now, keeping the loaded one when it is the same;
  /// returns whether the file has one. A write starts with this: a dictionary stored by a
  /// transaction that rolled back must not compress the next one's records.
  @discardableResult
  func reload(_ db: Connection) throws(DatabaseError) -> Bool {
    switch try db.scalar("SELECT value FROM meta WHERE key = ?", [.text(Self.dictionaryKey)]) {
    case nil: dictionary = nil
    case .blob(let bytes)?: if dictionary?.bytes != bytes { dictionary = Dictionary(bytes) }
    // An empty dictionary (zstd found nothing to learn) binds as NULL.
    case .null?: if dictionary?.bytes.isEmpty != true { dictionary = Dictionary([]) }
    default: throw DatabaseError(code: .corrupt, message: "the record dictionary in meta is not a BLOB")
    }
    return dictionary != nil
  }

  /// Trains a dictionary from `samples` (records as JSON). Empty when zstd finds too little to
  /// learn from them: records then compress without a dictionary.
  static func train(_ samples: [[UInt8]]) -> [UInt8] {
    var buffer: [UInt8] = []
    buffer.reserveCapacity(samples.reduce(0) { $0 + $1.count })
    var sizes: [Int] = []
    sizes.reserveCapacity(samples.count)
    for sample in samples where !sample.isEmpty {
      buffer.append(contentsOf: sample)
      sizes.append(sample.count)
    }
    // zstd wants about a hundred times the dictionary's size in samples; a smaller sample
    // trains a smaller dictionary rather than failing.
    let capacity = min(dictionaryCapacity, max(1 << 10, buffer.count / 16))
    guard sizes.count >= 8 else { return [] }
    var dictionary = [UInt8](repeating: 0, count: capacity)
    let written = dictionary.withUnsafeMutableBytes { out in
      buffer.withUnsafeBytes { samples in
        ZDICT_trainFromBuffer(out.baseAddress, out.count, samples.baseAddress, sizes, UInt32(sizes.count))
      }
    }
    guard ZDICT_isError(written) == 0 else { return [] }
    return Array(dictionary.prefix(written))
  }

  /// Stores `bytes` as the file's dictionary (inside the caller's transaction) and uses it.
  func store(_ bytes: [UInt8], _ db: Connection) throws(DatabaseError) {
    try db.run("INSERT INTO meta(key, value) VALUES (?, ?)", [.text(Self.dictionaryKey), .blob(bytes)])
    dictionary = Dictionary(bytes)
  }

  /// The column value that stores the record `json`: compressed once the file has a
  /// dictionary and when that makes it smaller, else the JSON itself.
  func value(_ json: String, _ db: Connection) throws(DatabaseError) -> SQLValue {
    guard let dictionary = try loadedDictionary(db) else { return .text(json) }
    var json = json
    let compressed = try json.withUTF8 { source in Result { () throws(DatabaseError) in try compress(UnsafeRawBufferPointer(source), dictionary) } }.get()
    return compressed.count < json.utf8.count ? .blob(compressed) : .text(json)
  }

  private func compress(_ source: UnsafeRawBufferPointer, _ dictionary: Dictionary) throws(DatabaseError) -> [UInt8] {
    if compressor == nil {
      guard let context = ZSTD_createCCtx() else { throw DatabaseError(code: .noMemory, message: "zstd could not allocate a compressor") }
      // The frame keeps its content size (readers allocate exactly) and leaves out the
      // dictionary's id (4 bytes a record; the file has one dictionary).
      ZSTD_CCtx_setParameter(context, ZSTD_c_dictIDFlag, 0)
      ZSTD_CCtx_setParameter(context, ZSTD_c_contentSizeFlag, 1)
      ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, Self.level)
      if let digested = dictionary.compression { ZSTD_CCtx_refCDict(context, digested) }
      compressor = context
    }
    let capacity = ZSTD_compressBound(source.count)
    var failure: Int?
    let output = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
      let written = ZSTD_compress2(compressor, buffer.baseAddress, capacity, source.baseAddress, source.count)
      if ZSTD_isError(written) != 0 { failure = written; count = 0 } else { count = written }
    }
    if let failure { throw DatabaseError(code: .error, message: "zstd could not compress a record: \(Self.errorName(failure))") }
    return output
  }

  /// The JSON of a record column's bytes (`{}` for an empty column).
  func json(_ column: UnsafeRawBufferPointer, _ db: Connection) throws(DatabaseError) -> [UInt8] {
    guard Self.isCompressed(column) else { return column.isEmpty ? Array("{}".utf8) : Array(column) }
    guard let dictionary = try loadedDictionary(db) else {
      throw DatabaseError(code: .corrupt, message: "a compressed record in a file without a record dictionary")
    }
    let size = ZSTD_getFrameContentSize(column.baseAddress, column.count)
    guard size <= Self.maximumRecordBytes else {
      throw DatabaseError(code: .corrupt, message: "a compressed record without a valid content size")
    }
    if decompressor == nil {
      guard let context = ZSTD_createDCtx() else { throw DatabaseError(code: .noMemory, message: "zstd could not allocate a decompressor") }
      decompressor = context
    }
    var failure: Int?
    let output = [UInt8](unsafeUninitializedCapacity: Int(size)) { buffer, count in
      let written =
        if let digested = dictionary.decompression {
          ZSTD_decompress_usingDDict(decompressor, buffer.baseAddress, Int(size), column.baseAddress, column.count, digested)
        } else {
          ZSTD_decompressDCtx(decompressor, buffer.baseAddress, Int(size), column.baseAddress, column.count)
        }
      if ZSTD_isError(written) != 0 || written != Int(size) { failure = written; count = 0 } else { count = written }
    }
    if let failure {
      let reason = ZSTD_isError(failure) != 0 ? Self.errorName(failure) : "\(failure) of \(size) bytes"
      throw DatabaseError(code: .corrupt, message: "a compressed record does not decompress: \(reason)")
    }
    return output
  }

  private static func errorName(_ code: Int) -> String { String(cString: ZSTD_getErrorName(code)) }
}

extension Statement {
  /// The JSON of the record in column `index` (compressed or not; see `RecordCodec`).
  package func record(_ index: Int) throws(DatabaseError) -> [UInt8] {
    try connection.records.json(columnBytes(index), connection)
  }

  /// The JSON of the record in column `index`, as text.
  package func recordText(_ index: Int) throws(DatabaseError) -> String {
    String(decoding: try record(index), as: UTF8.self)
  }
}

extension Connection {
  /// The JSON of a record column's bytes (`RecordCodec`).
  package func recordJSON(_ column: [UInt8]) throws(DatabaseError) -> [UInt8] {
    try column.withUnsafeBytes { bytes in Result { () throws(DatabaseError) in try records.json(bytes, self) } }.get()
  }

  /// The column value that stores the record `json` (`RecordCodec`).
  package func recordValue(_ json: String) throws(DatabaseError) -> SQLValue { try records.value(json, self) }
}
