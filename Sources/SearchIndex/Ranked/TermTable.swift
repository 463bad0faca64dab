/// Term bytes -> term id, for the ingest hot path: looked up straight from the
/// tokenizer's scratch bytes (no String per token, no SipHash).
///
/// Lookups are bound by memory latency (one per token of every ingested document), so
/// the layout minimises cache misses: slots hold a 32-bit hash tag next to the entry
/// number, and an entry keeps its id, length and first 8 bytes together, so a term of
/// up to 8 bytes (most words) is found with two memory accesses; longer keys are
/// compared in a byte arena. Linear probing over a mixed FNV-1a hash, at most half full.
/// In front of it, a small direct-mapped cache of recently found short terms (16 KB,
/// so it stays in the fastest caches) answers the frequent words of a Zipf vocabulary
/// without touching the table.
struct TermTable {
  private struct Entry {
    /// The first 8 bytes of the key, little-endian, zero-padded.
    var prefix: UInt64
    var offset: UInt32
    var length: UInt32
    var id: TermID
  }

  private var entries: [Entry] = []
  /// Keys longer than 8 bytes.
  private var arena: [UInt8] = []
  /// Slot -> tag << 32 | (entry + 1), 0 when empty.
  private var slots: [UInt64] = Array(repeating: 0, count: 1 << 14)
  /// Recent short terms by hash: pairs of (prefix, length << 32 | id); length 0 = empty.
  private var recent: [UInt64] = Array(repeating: 0, count: 2 * Self.recentCount)
  private static let recentCount = 1 << 10

  var count: Int { entries.count }

  @inline(__always)
  private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in bytes {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01B3
    }
    // FNV's multiplications only carry upwards, so its low bits (the slot) are poorly
    // mixed; MurmurHash3's finalizer spreads every bit over all of them.
    hash ^= hash >> 33
    hash = hash &* 0xFF51_AFD7_ED55_8CCD
    hash ^= hash >> 33
    hash = hash &* 0xC4CE_B9FE_1A85_EC53
    return hash ^ (hash >> 33)
  }

  @inline(__always)
  private static func prefix(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var value: UInt64 = 0
    for index in 0..<min(8, bytes.count) { value |= UInt64(bytes[index]) << UInt64(index * 8) }
    return value
  }

  /// The id stored for `bytes`, nil when absent.
  @inline(__always)
  mutating func id(for bytes: UnsafeBufferPointer<UInt8>) -> TermID? {
    let hash = Self.hash(bytes)
    let prefix = Self.prefix(bytes)
    let cacheSlot = 2 * Int(truncatingIfNeeded: hash >> 20) & (2 * Self.recentCount - 1)
    if bytes.count <= 8 {
      let cached = recent.withUnsafeBufferPointer { recent -> TermID? in
        recent[cacheSlot] == prefix && recent[cacheSlot + 1] >> 32 == UInt64(bytes.count)
          ? TermID(truncatingIfNeeded: recent[cacheSlot + 1]) : nil
      }
      if let cached { return cached }
    }
    let found = find(bytes, hash: hash, prefix: prefix)
    if let found, bytes.count <= 8 {
      recent.withUnsafeMutableBufferPointer { recent in
        recent[cacheSlot] = prefix
        recent[cacheSlot + 1] = UInt64(bytes.count) << 32 | UInt64(found)
      }
    }
    return found
  }

  @inline(__always)
  private func find(_ bytes: UnsafeBufferPointer<UInt8>, hash: UInt64, prefix: UInt64) -> TermID? {
    let tag = hash >> 32
    return slots.withUnsafeBufferPointer { slots -> TermID? in
      entries.withUnsafeBufferPointer { entries -> TermID? in
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
          let stored = slots[slot]
          if stored == 0 { return nil }
          if stored >> 32 == tag {
            let entry = entries[Int(truncatingIfNeeded: stored & 0xFFFF_FFFF) - 1]
            if entry.prefix == prefix && Int(entry.length) == bytes.count
              && (bytes.count <= 8 || suffixMatches(entry, bytes))
            {
              return entry.id
            }
          }
          slot = (slot + 1) & mask
        }
      }
    }
  }

  private func suffixMatches(_ entry: Entry, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    arena.withUnsafeBufferPointer { stored in
      let offset = Int(entry.offset)
      for index in 8..<bytes.count where stored[offset + index - 8] != bytes[index] { return false }
      return true
    }
  }

  /// Stores `id` for `bytes`, which must be absent.
  mutating func insert(_ bytes: UnsafeBufferPointer<UInt8>, id: TermID) {
    if (entries.count + 1) * 2 > slots.count { grow() }
    let offset = UInt32(arena.count)
    if bytes.count > 8 { arena.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[8...])) }
    entries.append(Entry(prefix: Self.prefix(bytes), offset: offset, length: UInt32(bytes.count), id: id))
    place(entries.count - 1, hash: Self.hash(bytes))
  }

  private mutating func place(_ entry: Int, hash: UInt64) {
    let mask = slots.count - 1
    var slot = Int(truncatingIfNeeded: hash) & mask
    while slots[slot] != 0 { slot = (slot + 1) & mask }
    slots[slot] = (hash >> 32) << 32 | UInt64(entry + 1)
  }

  /// Rebuilds the slots at twice the size from the entries' keys.
  private mutating func grow() {
    slots = Array(repeating: 0, count: slots.count * 2)
    var key = [UInt8](repeating: 0, count: 0)
    for index in entries.indices {
      let entry = entries[index]
      key.removeAll(keepingCapacity: true)
      for byte in 0..<min(8, Int(entry.length)) { key.append(UInt8(truncatingIfNeeded: entry.prefix >> UInt64(byte * 8))) }
      if entry.length > 8 {
        key.append(contentsOf: arena[Int(entry.offset)..<(Int(entry.offset) + Int(entry.length) - 8)])
      }
      let hash = key.withUnsafeBufferPointer { Self.hash($0) }
      place(index, hash: hash)
    }
  }

  mutating func removeAll() { self = TermTable() }
}
