/// Per-document data needed for exact scoring and for deletes: field lengths,
/// liveness and the forward term list.
///
/// Lengths are looked up for every scored candidate, so they live in pages of
/// 1,024 documents addressed by `doc >> 10` (SQLite rowids are dense-ish), two
/// bytes per field per document (one in a page read from storage whose lengths all
/// fit one); the rare length >= 65,535 escapes to a side table. Pages far outside the dense directory (negative or huge rowids) fall
/// back to a dictionary. A "location" is `slot << 10 | doc & 1023`, valid until
/// the next mutation.
///
/// Each page is its own copy-on-write object (`DocumentPage`), so copying a table
/// copies only the directory, and the persistent index can load pages one at a
/// time (`install`) and write back only the pages a transaction changed.
package struct DocumentTable: Sendable {
  package static let pageShift = 10
  package static let pageSize = 1 << pageShift
  /// Dense directory limit: pages below this use direct indexing.
  private static let nearPageLimit: Int64 = 1 << 20

  package let fieldCount: Int
  /// Live documents in the pages held.
  package private(set) var count = 0
  /// page number -> slot + 1 (0 = page not held), for 0 <= page < nearPageLimit.
  private var nearDirectory: [Int32] = []
  private var farDirectory: [Int64: Int32] = [:]
  private var pages: [DocumentPage] = []
  private var termLists: [DocID: [UInt8]] = [:]

  package init(fieldCount: Int) {
    self.fieldCount = fieldCount
  }

  /// The page number holding `doc`.
  @inline(__always)
  package static func page(of doc: DocID) -> Int64 { doc >> Int64(pageShift) }

  @inline(__always)
  private func slot(ofPage page: Int64) -> Int? {
    if page >= 0 && page < Int64(nearDirectory.count) {
      let stored = nearDirectory[Int(page)]
      return stored == 0 ? nil : Int(stored) - 1
    }
    if page >= 0 && page < Self.nearPageLimit { return nil }
    return farDirectory[page].map { Int($0) - 1 }
  }

  /// Location of `doc` if it is live.
  @inline(__always)
  package func location(of doc: DocID) -> Int? {
    guard let slot = slot(ofPage: doc >> Int64(Self.pageShift)) else { return nil }
    let offset = Int(doc & Int64(Self.pageSize - 1))
    return pages[slot].isLive(offset) ? slot << Self.pageShift | offset : nil
  }

  package func contains(_ doc: DocID) -> Bool { location(of: doc) != nil }

  @inline(__always)
  package func length(at location: Int, field: Int) -> Int {
    pages[location >> Self.pageShift].length(offset: location & (Self.pageSize - 1), field: field)
  }

  package func fieldLengths(of doc: DocID) -> [Int]? {
    location(of: doc).map { location in (0..<fieldCount).map { length(at: location, field: $0) } }
  }

  /// Sorted distinct term ids of a live document (forward index), when this table
  /// keeps forward lists (the in-memory index does; the persistent one keeps them
  /// in SQLite).
  package func terms(of doc: DocID) -> [TermID]? {
    termLists[doc].map(TermListCodec.decode)
  }

  // MARK: - Pages

  /// Whether the page is held (loaded or created).
  package func holdsPage(_ page: Int64) -> Bool { slot(ofPage: page) != nil }

  /// The held page, for persisting it.
  package func page(_ page: Int64) -> DocumentPage? { slot(ofPage: page).map { pages[$0] } }

  /// Numbers of the held pages.
  package var pageNumbers: [Int64] { pages.map(\.number) }

  /// Adds a page loaded from storage; the page must not be held yet.
  package mutating func install(_ page: DocumentPage) {
    precondition(page.fieldCount == fieldCount, "page of another schema")
    precondition(slot(ofPage: page.number) == nil, "page already held")
    let slot = pages.count
    pages.append(page)
    setSlot(slot, ofPage: page.number)
    count += page.liveCount
  }

  private mutating func setSlot(_ slot: Int, ofPage page: Int64) {
    if page >= 0 && page < Self.nearPageLimit {
      if Int(page) >= nearDirectory.count {
        nearDirectory.append(contentsOf: repeatElement(0, count: Int(page) + 1 - nearDirectory.count))
      }
      nearDirectory[Int(page)] = Int32(slot + 1)
    } else {
      farDirectory[page] = Int32(slot + 1)
    }
  }

  /// The slot of `page`, creating an empty page when it is not held, and made unique
  /// so it can be mutated without affecting copies of this table.
  private mutating func uniqueSlot(ofPage page: Int64) -> Int {
    if let existing = slot(ofPage: page) {
      // A page read narrow (`DocumentPage.isNarrow`) is never written: its copy is wide.
      if pages[existing].isNarrow || !isKnownUniquelyReferenced(&pages[existing]) { pages[existing] = pages[existing].copy() }
      return existing
    }
    let slot = pages.count
    pages.append(DocumentPage(number: page, fieldCount: fieldCount))
    setSlot(slot, ofPage: page)
    return slot
  }

  // MARK: - Mutations

  package mutating func insert(_ doc: DocID, fieldLengths: [Int], encodedTerms: [UInt8]?) {
    precondition(fieldLengths.count == fieldCount)
    let slot = uniqueSlot(ofPage: doc >> Int64(Self.pageShift))
    pages[slot].insert(offset: Int(doc & Int64(Self.pageSize - 1)), fieldLengths: fieldLengths)
    if let encodedTerms { termLists[doc] = encodedTerms }
    count += 1
  }

  /// Marks `doc` dead and returns what deletion bookkeeping needs (the encoded
  /// terms are empty when this table keeps no forward lists).
  @discardableResult
  package mutating func remove(_ doc: DocID) -> (fieldLengths: [Int], encodedTerms: [UInt8])? {
    guard contains(doc) else { return nil }
    let slot = uniqueSlot(ofPage: doc >> Int64(Self.pageShift))
    let fieldLengths = pages[slot].remove(offset: Int(doc & Int64(Self.pageSize - 1)))
    count -= 1
    return (fieldLengths, termLists.removeValue(forKey: doc) ?? [])
  }

  /// Bytes of the length pages (the part a query touches).
  package var lengthTableByteCount: Int { pages.reduce(0) { $0 + $1.byteCount } }

  /// Bytes of the encoded forward term lists.
  package var termListByteCount: Int { termLists.values.reduce(0) { $0 + $1.count } }
}

/// Lengths and liveness of the 1,024 documents of one `DocumentTable` page.
///
/// `@unchecked Sendable`: a page is mutated only through `DocumentTable`'s
/// mutating methods, and only after `isKnownUniquelyReferenced` showed that no
/// other table (and so no other thread) can see it; a page reachable from two
/// places is never written, and neither is a narrow one (its copy is wide).
package final class DocumentPage: @unchecked Sendable {
  private static let escapedLength = UInt16.max
  package static var liveWordCount: Int { DocumentTable.pageSize / 64 }

  /// The page number (`doc >> 10`).
  package let number: Int64
  package let fieldCount: Int
  /// Whether the lengths are one byte each (a page read from storage where few lengths
  /// reach 255: half the memory of two bytes, so a query that reads every page of a million
  /// documents faults in half as much). Narrow pages are read, never written.
  package let isNarrow: Bool
  /// `pageSize * fieldCount` lengths, row-major by document: `UInt8` when narrow, else
  /// `UInt16`; the largest value of either escapes to `longLengths`.
  private let lengths: UnsafeMutableRawPointer
  private let live: UnsafeMutablePointer<UInt64>
  /// Lengths of 255 and more (narrow) or 65,535 and more (wide) by index into `lengths`.
  private var longLengths: [Int: UInt32] = [:]
  /// A page read with more lengths than this of 255 or more is read wide (their lookups in
  /// `longLengths` would cost more than the memory saved).
  private static let narrowEscapeLimit = 64
  package private(set) var liveCount = 0

  /// An empty page, for writing.
  package init(number: Int64, fieldCount: Int) {
    self.number = number
    self.fieldCount = fieldCount
    isNarrow = false
    let slots = DocumentTable.pageSize * fieldCount
    lengths = UnsafeMutableRawPointer(UnsafeMutablePointer<UInt16>.allocate(capacity: slots))
    lengths.initializeMemory(as: UInt16.self, repeating: 0, count: slots)
    live = .allocate(capacity: Self.liveWordCount)
    live.initialize(repeating: 0, count: Self.liveWordCount)
  }

  /// A page over storage filled by `decode` (which it now owns).
  private init(
    number: Int64, fieldCount: Int, isNarrow: Bool, lengths: UnsafeMutableRawPointer, live: UnsafeMutablePointer<UInt64>,
    liveCount: Int, longLengths: [Int: UInt32]
  ) {
    self.number = number
    self.fieldCount = fieldCount
    self.isNarrow = isNarrow
    self.lengths = lengths
    self.live = live
    self.liveCount = liveCount
    self.longLengths = longLengths
  }

  deinit {
    lengths.deallocate()
    live.deallocate()
  }

  /// Bytes of its lengths and live bitmap.
  package var byteCount: Int { DocumentTable.pageSize * fieldCount * (isNarrow ? 1 : 2) + Self.liveWordCount * 8 }

  /// A wide copy, for writing.
  package func copy() -> DocumentPage {
    let result = DocumentPage(number: number, fieldCount: fieldCount)
    if isNarrow {
      let wide = result.lengths.assumingMemoryBound(to: UInt16.self)
      let narrow = lengths.assumingMemoryBound(to: UInt8.self)
      for index in 0..<DocumentTable.pageSize * fieldCount { wide[index] = UInt16(narrow[index]) }
      for (index, length) in longLengths {
        if length >= UInt32(Self.escapedLength) {
          result.longLengths[index] = length
        } else {
          wide[index] = UInt16(length)
        }
      }
    } else {
      result.lengths.copyMemory(from: lengths, byteCount: DocumentTable.pageSize * fieldCount * 2)
      result.longLengths = longLengths
    }
    result.live.update(from: live, count: Self.liveWordCount)
    result.liveCount = liveCount
    return result
  }

  @inline(__always)
  package func isLive(_ offset: Int) -> Bool {
    live[offset >> 6] & (1 << UInt64(offset & 63)) != 0
  }

  @inline(__always)
  package func length(offset: Int, field: Int) -> Int {
    let index = offset * fieldCount + field
    if isNarrow {
      let stored = lengths.load(fromByteOffset: index, as: UInt8.self)
      if stored != UInt8.max { return Int(stored) }
    } else {
      let stored = lengths.load(fromByteOffset: index &* 2, as: UInt16.self)
      if stored != Self.escapedLength { return Int(stored) }
    }
    return Int(longLengths[index]!)
  }

  private var wideLengths: UnsafeMutablePointer<UInt16> {
    precondition(!isNarrow, "a narrow page is read, never written")
    return lengths.assumingMemoryBound(to: UInt16.self)
  }

  fileprivate func insert(offset: Int, fieldLengths: [Int]) {
    precondition(!isLive(offset), "document already live")
    let lengths = wideLengths
    live[offset >> 6] |= 1 << UInt64(offset & 63)
    for field in 0..<fieldCount {
      let index = offset * fieldCount + field
      let length = fieldLengths[field]
      if length >= Int(Self.escapedLength) {
        lengths[index] = Self.escapedLength
        longLengths[index] = UInt32(clamping: length)
      } else {
        lengths[index] = UInt16(length)
        longLengths[index] = nil
      }
    }
    liveCount += 1
  }

  fileprivate func remove(offset: Int) -> [Int] {
    let fieldLengths = (0..<fieldCount).map { length(offset: offset, field: $0) }
    let lengths = wideLengths
    for field in 0..<fieldCount {
      let index = offset * fieldCount + field
      lengths[index] = 0
      longLengths[index] = nil
    }
    live[offset >> 6] &= ~(1 << UInt64(offset & 63))
    liveCount -= 1
    return fieldLengths
  }

  // MARK: - Persistence

  /// The last byte of a page stored fixed-width: one byte per length (`narrowTrailer`) or
  /// two (`wideTrailer`). A page stored as varints ends with a varint's last byte, whose high
  /// bit is clear, so the last byte tells the two forms apart.
  private static let narrowTrailer: UInt8 = 0x81
  private static let wideTrailer: UInt8 = 0x82

  /// The page as bytes. A page at least half live is stored fixed-width: the live bitmap
  /// (16 little-endian UInt64), every slot's length in one byte (two, little-endian, when more
  /// than `narrowEscapeLimit` lengths reach 255), the lengths that reach the width's largest
  /// value as varint pairs (slot, length), and a trailer byte. Reading it is a copy: a query of
  /// common words at a million items reads all 977 pages, and decoding their varints took
  /// 11 ms of a fresh process's 50. A sparser page is stored as varints: the bitmap, then each
  /// live document's lengths (dead documents take no bytes).
  package func encoded() -> [UInt8] {
    liveCount * 2 >= DocumentTable.pageSize ? fixedWidthEncoded() : varintEncoded()
  }

  private func appendLiveBitmap(to bytes: inout [UInt8]) {
    for word in 0..<Self.liveWordCount {
      withUnsafeBytes(of: live[word].littleEndian) { bytes.append(contentsOf: $0) }
    }
  }

  /// The varint form, which versions before the fixed-width one wrote for every page.
  package func varintEncoded() -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(Self.liveWordCount * 8 + liveCount * fieldCount)
    appendLiveBitmap(to: &bytes)
    for offset in 0..<DocumentTable.pageSize where isLive(offset) {
      for field in 0..<fieldCount { Varint.append(UInt64(length(offset: offset, field: field)), to: &bytes) }
    }
    return bytes
  }

  private func fixedWidthEncoded() -> [UInt8] {
    let slotCount = DocumentTable.pageSize * fieldCount
    // Dead documents' slots are zero.
    let slotLength = { (index: Int) -> Int in self.isLive(index / self.fieldCount) ? self.length(offset: index / self.fieldCount, field: index % self.fieldCount) : 0 }
    var longCount = 0
    for index in 0..<slotCount where slotLength(index) >= Int(UInt8.max) { longCount += 1 }
    let narrow = longCount <= Self.narrowEscapeLimit
    let marker = narrow ? Int(UInt8.max) : Int(Self.escapedLength)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(Self.liveWordCount * 8 + slotCount * (narrow ? 1 : 2) + 1)
    appendLiveBitmap(to: &bytes)
    var escapes: [(index: Int, length: Int)] = []
    for index in 0..<slotCount {
      let length = slotLength(index)
      if length >= marker { escapes.append((index, length)) }
      let stored = min(length, marker)
      bytes.append(UInt8(truncatingIfNeeded: stored))
      if !narrow { bytes.append(UInt8(truncatingIfNeeded: stored >> 8)) }
    }
    for escape in escapes {
      Varint.append(UInt64(escape.index), to: &bytes)
      Varint.append(UInt64(escape.length), to: &bytes)
    }
    bytes.append(narrow ? Self.narrowTrailer : Self.wideTrailer)
    return bytes
  }

  /// Decodes `encoded()`; nil when the bytes are malformed.
  package static func decode(number: Int64, fieldCount: Int, bytes: [UInt8]) -> DocumentPage? {
    bytes.withUnsafeBytes { decode(number: number, fieldCount: fieldCount, bytes: $0) }
  }

  /// Decodes `encoded()` from `bytes` (for instance SQLite's buffer of a blob column, read
  /// without a copy); nil when they are malformed. A page stored as varints is read narrow
  /// unless many lengths reach 255.
  package static func decode(number: Int64, fieldCount: Int, bytes: UnsafeRawBufferPointer) -> DocumentPage? {
    guard bytes.count >= liveWordCount * 8, let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
    if base[bytes.count - 1] >= 0x80 {
      return decodeFixedWidth(number: number, fieldCount: fieldCount, base: base, count: bytes.count)
    }
    switch decode(UInt8.self, number: number, fieldCount: fieldCount, base: base, count: bytes.count) {
    case .page(let page): return page
    case .malformed: return nil
    case .tooLong:
      guard case .page(let page) = decode(UInt16.self, number: number, fieldCount: fieldCount, base: base, count: bytes.count)
      else { return nil }
      return page
    }
  }

  /// Reads a fixed-width page (`fixedWidthEncoded`): the lengths are copied as they are, and
  /// every slot holding the width's largest value must have its escape (a lookup of a
  /// length reads the escape unconditionally).
  private static func decodeFixedWidth(number: Int64, fieldCount: Int, base: UnsafePointer<UInt8>, count: Int) -> DocumentPage? {
    let trailer = base[count - 1]
    guard trailer == narrowTrailer || trailer == wideTrailer else { return nil }
    let narrow = trailer == narrowTrailer
    let slotCount = DocumentTable.pageSize * fieldCount
    let lengthBytes = slotCount * (narrow ? 1 : 2)
    let escapesStart = liveWordCount * 8 + lengthBytes
    guard count >= escapesStart + 1 else { return nil }
    let marker = narrow ? UInt64(UInt8.max) : UInt64(escapedLength)
    var longLengths: [Int: UInt32] = [:]
    var position = escapesStart
    while position < count - 1 {
      guard let index = Varint.readIfValid(base, &position, end: count - 1), index < UInt64(slotCount),
        let length = Varint.readIfValid(base, &position, end: count - 1), length >= marker, length <= UInt64(UInt32.max)
      else { return nil }
      longLengths[Int(index)] = UInt32(length)
    }
    let live = UnsafeMutablePointer<UInt64>.allocate(capacity: liveWordCount)
    var liveCount = 0
    for word in 0..<liveWordCount {
      let value = UInt64(littleEndian: UnsafeRawPointer(base + word * 8).loadUnaligned(as: UInt64.self))
      live[word] = value
      liveCount += value.nonzeroBitCount
    }
    let lengths: UnsafeMutableRawPointer
    var markers = 0
    if narrow {
      let narrowLengths = UnsafeMutablePointer<UInt8>.allocate(capacity: slotCount)
      narrowLengths.update(from: base + liveWordCount * 8, count: slotCount)
      // Eight slots at a time: most words hold no 0xFF byte (`~word` then has no zero byte).
      var start = 0
      while start < slotCount, markers >= 0 {
        let end = min(start + 8, slotCount)
        if end - start == 8 {
          let inverted = ~UnsafeRawPointer(narrowLengths + start).loadUnaligned(as: UInt64.self)
          if (inverted &- 0x0101_0101_0101_0101) & ~inverted & 0x8080_8080_8080_8080 == 0 {
            start = end
            continue
          }
        }
        for index in start..<end where narrowLengths[index] == UInt8.max {
          markers = longLengths[index] == nil ? -1 : markers + 1
          if markers < 0 { break }
        }
        start = end
      }
      lengths = UnsafeMutableRawPointer(narrowLengths)
    } else {
      let wideLengths = UnsafeMutablePointer<UInt16>.allocate(capacity: slotCount)
      let stored = UnsafeRawPointer(base + liveWordCount * 8)
      for index in 0..<slotCount {
        wideLengths[index] = UInt16(littleEndian: stored.loadUnaligned(fromByteOffset: index * 2, as: UInt16.self))
        if wideLengths[index] == escapedLength, markers >= 0 {
          markers = longLengths[index] == nil ? -1 : markers + 1
        }
      }
      lengths = UnsafeMutableRawPointer(wideLengths)
    }
    // Each marker has its escape (else `markers` is -1), and each escape its marker.
    guard markers == longLengths.count else {
      lengths.deallocate()
      live.deallocate()
      return nil
    }
    return DocumentPage(
      number: number, fieldCount: fieldCount, isNarrow: narrow, lengths: lengths, live: live, liveCount: liveCount,
      longLengths: longLengths)
  }

  private enum Decoded {
    case page(DocumentPage)
    case malformed
    /// Too many lengths escape the width tried.
    case tooLong
  }

  /// Decodes the lengths as `Length`s (`UInt8`: narrow, `.tooLong` past
  /// `narrowEscapeLimit` lengths of 255 or more; `UInt16`: wide), `Length.max` and more
  /// escaped to `longLengths`.
  ///
  /// A query of common words at a million items decodes every page (a million documents'
  /// lengths), so the loop visits only the live bits and keeps its counts in locals.
  private static func decode<Length: FixedWidthInteger & UnsignedInteger>(
    _: Length.Type, number: Int64, fieldCount: Int, base: UnsafePointer<UInt8>, count: Int
  ) -> Decoded {
    let narrow = MemoryLayout<Length>.size == 1
    let slotCount = DocumentTable.pageSize * fieldCount
    let lengths = UnsafeMutablePointer<Length>.allocate(capacity: slotCount)
    let live = UnsafeMutablePointer<UInt64>.allocate(capacity: liveWordCount)
    var liveCount = 0
    var longLengths: [Int: UInt32] = [:]
    var position = liveWordCount * 8
    /// Stores a decoded length; false when a narrow page has too many that escape.
    @inline(__always) func store(_ length: UInt64, at index: Int) -> Bool {
      guard length >= UInt64(Length.max) else {
        lengths[index] = Length(truncatingIfNeeded: length)
        return true
      }
      lengths[index] = Length.max
      longLengths[index] = UInt32(clamping: length)
      return !narrow || longLengths.count <= narrowEscapeLimit
    }
    func failed(_ result: Decoded) -> Decoded {
      lengths.deallocate()
      live.deallocate()
      return result
    }
    for word in 0..<liveWordCount {
      var value: UInt64 = 0
      for byte in 0..<8 { value |= UInt64(base[word * 8 + byte]) << UInt64(byte * 8) }
      live[word] = value
      liveCount += value.nonzeroBitCount
      // Dead documents take no bytes and read as zero lengths.
      var dead = ~value
      while dead != 0 {
        let offset = word << 6 | dead.trailingZeroBitCount
        dead &= dead - 1
        (lengths + offset * fieldCount).initialize(repeating: 0, count: fieldCount)
      }
      if value == UInt64.max {
        // 64 live documents: their lengths are one run of the page's rows.
        var index = word * 64 * fieldCount
        let end = index + 64 * fieldCount
        while index < end {
          // Most lengths are one byte (below 128): the bytes before the next one with its
          // high bit set are as many lengths. Eight bytes are stored at once (widened on a
          // wide page); the slots past those lengths are written again in order (every slot
          // of the page is, dead documents' with zero), so only the page's end bounds the store.
          if position + 8 <= count, index + 8 <= slotCount {
            let bytes = UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
            let continued = bytes & 0x8080_8080_8080_8080
            let plain = min(continued == 0 ? 8 : continued.trailingZeroBitCount >> 3, end - index)
            if plain > 0 {
              if narrow {
                UnsafeMutableRawPointer(lengths + index).storeBytes(of: bytes.littleEndian, as: UInt64.self)
              } else {
                let eight = UnsafeRawPointer(base + position).loadUnaligned(as: SIMD8<UInt8>.self)
                UnsafeMutableRawPointer(lengths + index).storeBytes(of: SIMD8<UInt16>(truncatingIfNeeded: eight), as: SIMD8<UInt16>.self)
              }
              index += plain
              position += plain
              continue
            }
          }
          guard let length = Varint.readIfValid(base, &position, end: count) else { return failed(.malformed) }
          guard store(length, at: index) else { return failed(.tooLong) }
          index += 1
        }
        continue
      }
      var pending = value
      while pending != 0 {
        let offset = word << 6 | pending.trailingZeroBitCount
        pending &= pending - 1
        for field in 0..<fieldCount {
          guard let length = Varint.readIfValid(base, &position, end: count) else { return failed(.malformed) }
          guard store(length, at: offset * fieldCount + field) else { return failed(.tooLong) }
        }
      }
    }
    guard position == count else { return failed(.malformed) }
    return .page(
      DocumentPage(
        number: number, fieldCount: fieldCount, isNarrow: narrow, lengths: UnsafeMutableRawPointer(lengths), live: live,
        liveCount: liveCount, longLengths: longLengths))
  }
}
