internal import CSQLite

/// Term bytes -> term id (and the id of the term's stem, once known), for the ingest hot
/// path: looked up straight from token bytes (no String per token, no SipHash).
///
/// Lookups are bound by memory latency (one per token of every ingested document), so
/// the layout minimises cache misses: a slot is 32 bytes, half a cache line, holding the
/// key's first 16 bytes, its length, a 16-bit hash tag, its id and its stem's id, so a term
/// of up to 16 bytes (nearly every word) and its stem are found with one memory access; a
/// longer one reads the rest of its bytes from an arena. Linear probing over a 64-bit hash
/// that reads 8 bytes at a time, at most half full.
///
/// Callers that know several keys in advance can `prefetch` their slots first, so the
/// cache misses of a whole text overlap instead of being paid one after the other.
struct TermTable {
  /// Longest key: token texts are at most `TextAnalyzer.maxTokenBytes`, stems one more.
  static let maxKeyBytes = 255

  /// A key's hash and its first 16 bytes (little-endian, zero-padded), computed once per
  /// lookup.
  struct Key {
    let hash: UInt64
    let head: UInt64
    let next: UInt64
  }

  /// Where a key sits; valid until the next `insert`.
  struct Slot {
    fileprivate let index: Int
  }

  /// What the table knows of a term's stem.
  enum Stem: Equatable {
    /// Not recorded yet.
    case unknown
    /// The term is its own stem.
    case itself
    case term(TermID)
  }

  /// The slots: 4 words each, 64-byte aligned so a slot never straddles a cache line.
  /// Words: the key's bytes 0..<8 and 8..<16; `meta` = tag << 48 | length << 32 | id
  /// (0 when empty: lengths are >= 1); `extra` = stem << 32 | arena offset, where stem is
  /// 0 (unknown), 1 (itself) or id + 2, and the arena holds bytes 16... of longer keys.
  private final class Storage {
    let words: UnsafeMutablePointer<UInt64>
    let slotCount: Int

    init(slotCount: Int) {
      self.slotCount = slotCount
      let raw = UnsafeMutableRawPointer.allocate(byteCount: slotCount * 32, alignment: 64)
      words = raw.initializeMemory(as: UInt64.self, repeating: 0, count: slotCount * 4)
    }

    deinit { words.deallocate() }
  }

  private var storage = Storage(slotCount: 1 << 14)
  private var arena: [UInt8] = []
  private(set) var count = 0

  @inline(__always)
  private static func chunk(_ base: UnsafePointer<UInt8>, at offset: Int, count: Int) -> UInt64 {
    let available = count &- offset
    if available >= 8 { return UInt64(littleEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self)) }
    var value: UInt64 = 0
    var index = 0
    while index < available {
      value |= UInt64(base[offset &+ index]) << UInt64(index &* 8)
      index &+= 1
    }
    return value
  }

  /// The key of `bytes` (non-empty).
  @inline(__always)
  static func key(_ bytes: UnsafeBufferPointer<UInt8>) -> Key {
    let base = bytes.baseAddress!
    let count = bytes.count
    let head = chunk(base, at: 0, count: count)
    let next = count > 8 ? chunk(base, at: 8, count: count) : 0
    var hash = (head ^ UInt64(truncatingIfNeeded: count)) &* 0x9E37_79B9_7F4A_7C15
    if count > 8 { hash = (hash ^ (hash >> 29) ^ next) &* 0xBF58_476D_1CE4_E5B9 }
    var offset = 16
    while offset < count {
      hash = (hash ^ (hash >> 29) ^ chunk(base, at: offset, count: count)) &* 0xBF58_476D_1CE4_E5B9
      offset &+= 8
    }
    // MurmurHash3's finalizer spreads every bit over the low ones (the slot).
    hash ^= hash >> 33
    hash = hash &* 0xFF51_AFD7_ED55_8CCD
    hash ^= hash >> 33
    hash = hash &* 0xC4CE_B9FE_1A85_EC53
    return Key(hash: hash ^ (hash >> 33), head: head, next: next)
  }

  /// The bits of a slot's `meta` that identify a key (all but the id).
  @inline(__always)
  private static func signature(_ key: Key, length: Int) -> UInt64 {
    (key.hash >> 48) << 48 | UInt64(truncatingIfNeeded: length) << 32
  }

  /// Starts loading the slot where a lookup of `key` starts, without waiting for it, so
  /// that a later `find` finds it in the cache.
  @inline(__always)
  func prefetch(_ key: Key) {
    let storage = self.storage
    searchlight_prefetch(storage.words + 4 &* (Int(truncatingIfNeeded: key.hash) & (storage.slotCount &- 1)))
  }

  /// The slot of `bytes` (whose key is `key`), nil when absent.
  @inline(__always)
  func find(_ bytes: UnsafeBufferPointer<UInt8>, key: Key) -> Slot? {
    let signature = Self.signature(key, length: bytes.count)
    let storage = self.storage
    let words = storage.words
    let mask = storage.slotCount &- 1
    var slot = Int(truncatingIfNeeded: key.hash) & mask
    while true {
      let word = words + 4 &* slot
      let meta = word[2]
      if meta == 0 { return nil }
      if meta & ~0xFFFF_FFFF == signature && word[0] == key.head && word[1] == key.next
        && (bytes.count <= 16 || tailMatches(offset: Int(truncatingIfNeeded: word[3] & 0xFFFF_FFFF), bytes))
      {
        return Slot(index: slot)
      }
      slot = (slot &+ 1) & mask
    }
  }

  private func tailMatches(offset: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    arena.withUnsafeBufferPointer { stored in
      for index in 16..<bytes.count where stored[offset &+ index &- 16] != bytes[index] { return false }
      return true
    }
  }

  /// The id stored for `bytes`, nil when absent.
  func id(for bytes: UnsafeBufferPointer<UInt8>) -> TermID? {
    find(bytes, key: Self.key(bytes)).map(id(at:))
  }

  @inline(__always)
  func id(at slot: Slot) -> TermID {
    TermID(truncatingIfNeeded: storage.words[4 &* slot.index &+ 2])
  }

  @inline(__always)
  func stem(at slot: Slot) -> Stem {
    let stored = storage.words[4 &* slot.index &+ 3] >> 32
    switch stored {
    case 0: return .unknown
    case 1: return .itself
    default: return .term(TermID(truncatingIfNeeded: stored &- 2))
    }
  }

  /// Records the stem of the term at `slot` (an id too large to encode is not recorded).
  func setStem(_ stem: Stem, at slot: Slot) {
    let stored: UInt64
    switch stem {
    case .unknown: stored = 0
    case .itself: stored = 1
    case .term(let id):
      guard UInt64(id) + 2 <= UInt64(UInt32.max) else { return }
      stored = UInt64(id) + 2
    }
    let word = storage.words + 4 * slot.index + 3
    word.pointee = stored << 32 | word.pointee & 0xFFFF_FFFF
  }

  /// Stores `id` for `bytes` (whose key is `key`), which must be absent; returns its slot.
  @discardableResult
  mutating func insert(_ bytes: UnsafeBufferPointer<UInt8>, key: Key, id: TermID) -> Slot {
    precondition((1...Self.maxKeyBytes).contains(bytes.count), "term of \(bytes.count) bytes")
    precondition(arena.count < Int(UInt32.max) - Self.maxKeyBytes, "term table arena full")
    if (count + 1) * 2 > storage.slotCount { grow() }
    let offset = UInt64(arena.count)
    if bytes.count > 16 { arena.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[16...])) }
    count += 1
    return place(
      key.head, key.next, meta: Self.signature(key, length: bytes.count) | UInt64(id), extra: offset, hash: key.hash,
      in: storage)
  }

  /// Stores `id` for `bytes`, which must be absent.
  mutating func insert(_ bytes: UnsafeBufferPointer<UInt8>, id: TermID) {
    insert(bytes, key: Self.key(bytes), id: id)
  }

  private func place(_ head: UInt64, _ next: UInt64, meta: UInt64, extra: UInt64, hash: UInt64, in storage: Storage) -> Slot {
    let mask = storage.slotCount - 1
    var slot = Int(truncatingIfNeeded: hash) & mask
    while storage.words[4 * slot + 2] != 0 { slot = (slot + 1) & mask }
    let word = storage.words + 4 * slot
    word[0] = head
    word[1] = next
    word[2] = meta
    word[3] = extra
    return Slot(index: slot)
  }

  /// Moves every key into twice as many slots.
  private mutating func grow() {
    let old = storage
    let new = Storage(slotCount: old.slotCount * 2)
    var key = [UInt8]()
    for slot in 0..<old.slotCount where old.words[4 * slot + 2] != 0 {
      let word = old.words + 4 * slot
      let length = Int(word[2] >> 32 & 0xFFFF)
      key.removeAll(keepingCapacity: true)
      for byte in 0..<min(16, length) {
        key.append(UInt8(truncatingIfNeeded: word[byte / 8] >> UInt64(byte % 8 * 8)))
      }
      if length > 16 {
        let start = Int(word[3] & 0xFFFF_FFFF)
        key.append(contentsOf: arena[start..<(start + length - 16)])
      }
      let hash = key.withUnsafeBufferPointer { Self.key($0).hash }
      _ = place(word[0], word[1], meta: word[2], extra: word[3], hash: hash, in: new)
    }
    storage = new
  }

  mutating func removeAll() { self = TermTable() }
}
