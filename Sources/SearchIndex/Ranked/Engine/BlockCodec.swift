/// Encoding of one posting block's payload.
///
/// Columnar, so a cursor can decode doc ids alone and touch frequencies only when
/// it actually scores a posting in the block:
///
///     gaps:        for i in 1..<count: varint(doc[i] - doc[i-1] - 1)
///     frequencies: for each posting:
///                    varint(mask | (tf[first field in mask] - 1) << fieldCount)
///                    varint(tf[f] - 1) for every further field f in mask
///
/// `mask` has bit f set when tf_f > 0 (never 0: a posting exists only if the term
/// occurs in some field). With two fields and tf <= 32 in a single field, a
/// posting's frequencies take one byte. `firstDoc`, `lastDoc`, `count` and the
/// bound live in the block header, not in the payload.
package enum BlockCodec {
  /// Postings per block (the last block of a list, and blocks split by inserts,
  /// may hold fewer).
  package static let capacity = 128

  /// Encodes `postings[range]` (ascending doc ids, 1...capacity postings).
  package static func encode(_ postings: PostingBuffer, range: Range<Int>, maxPseudoTF: Float) -> PostingBlock {
    precondition((1...capacity).contains(range.count), "block must hold 1...\(capacity) postings")
    let fieldCount = postings.fieldCount
    return postings.docs.withUnsafeBufferPointer { docs in
      postings.frequencies.withUnsafeBufferPointer { frequencies in
        encode(
          docs: UnsafeBufferPointer(rebasing: docs[range]),
          frequencies: UnsafeBufferPointer(rebasing: frequencies[(range.lowerBound * fieldCount)..<(range.upperBound * fieldCount)]),
          fieldCount: fieldCount, maxPseudoTF: maxPseudoTF)
      }
    }
  }

  /// Encodes the postings `docs` (ascending, 1...capacity) with `fieldCount` frequencies
  /// each in `frequencies`.
  package static func encode(
    docs: UnsafeBufferPointer<DocID>, frequencies: UnsafeBufferPointer<UInt32>, fieldCount: Int, maxPseudoTF: Float
  ) -> PostingBlock {
    let count = docs.count
    precondition((1...capacity).contains(count), "block must hold 1...\(capacity) postings")
    precondition(frequencies.count == count * fieldCount, "one frequency per field")
    var payload: [UInt8] = []
    payload.reserveCapacity(count * 3)
    for index in 1..<count { appendGap(from: docs[index - 1], to: docs[index], to: &payload) }
    for index in 0..<count {
      appendFrequencies(UnsafeBufferPointer(rebasing: frequencies[(index * fieldCount)..<((index + 1) * fieldCount)]), to: &payload)
    }
    return PostingBlock(
      firstDoc: docs[0],
      lastDoc: docs[count - 1],
      count: Int32(count),
      maxPseudoTF: maxPseudoTF,
      payload: payload
    )
  }

  /// Appends the gap entry of `doc` after `previous` (the gaps section).
  @inline(__always)
  package static func appendGap(from previous: DocID, to doc: DocID, to bytes: inout [UInt8]) {
    precondition(doc > previous, "doc ids must be strictly ascending")
    // Wrapping subtraction: the gap of any ascending Int64 pair fits UInt64.
    Varint.append(UInt64(bitPattern: doc &- previous) &- 1, to: &bytes)
  }

  /// Appends one posting's entry of the frequencies section (`row`: one frequency per field).
  @inline(__always)
  package static func appendFrequencies(_ row: UnsafeBufferPointer<UInt32>, to bytes: inout [UInt8]) {
    let fieldCount = row.count
    var mask: UInt64 = 0
    var firstFrequency: UInt32 = 0
    for field in 0..<fieldCount where row[field] > 0 {
      if mask == 0 { firstFrequency = row[field] }
      mask |= 1 << UInt64(field)
    }
    precondition(mask != 0, "a posting needs tf > 0 in some field")
    Varint.append(mask | (UInt64(firstFrequency - 1) << UInt64(fieldCount)), to: &bytes)
    var seenFirst = false
    for field in 0..<fieldCount where row[field] > 0 {
      if seenFirst { Varint.append(UInt64(row[field] - 1), to: &bytes) }
      seenFirst = true
    }
  }

  /// Decodes the block's doc ids into `docs` (capacity >= block count) without
  /// allocating; returns the payload offset where frequencies start.
  @inline(__always)
  package static func decodeDocIDs(of block: PostingBlock, into docs: UnsafeMutablePointer<DocID>) -> Int {
    let count = block.postingCount
    precondition(count >= 1 && count <= capacity, "corrupt block count")
    return block.payload.withUnsafeBufferPointer { buffer -> Int in
      var offset = 0
      var doc = block.firstDoc
      docs[0] = doc
      if count > 1 {
        let base = buffer.baseAddress!
        let end = buffer.count
        for index in 1..<count {
          doc = doc &+ DocID(bitPattern: Varint.read(base, &offset, end: end) &+ 1)
          docs[index] = doc
        }
      }
      return offset
    }
  }

  /// Decodes the frequencies (row-major, `fieldCount` per posting) starting at
  /// `offset` (as returned by `decodeDocIDs`) into `frequencies`, without allocating.
  @inline(__always)
  package static func decodeFrequencies(
    of block: PostingBlock, from offset: Int, fieldCount: Int, into frequencies: UnsafeMutablePointer<UInt32>
  ) {
    let count = block.postingCount
    frequencies.update(repeating: 0, count: count * fieldCount)
    let fieldMask: UInt64 = (1 << UInt64(fieldCount)) - 1
    block.payload.withUnsafeBufferPointer { buffer in
      let base = buffer.baseAddress!
      let end = buffer.count
      var position = offset
      var row = frequencies
      for _ in 0..<count {
        let header = Varint.read(base, &position, end: end)
        var mask = header & fieldMask
        precondition(mask != 0, "corrupt frequency header")
        row[mask.trailingZeroBitCount] = UInt32(truncatingIfNeeded: header >> UInt64(fieldCount)) &+ 1
        mask &= mask - 1
        while mask != 0 {
          row[mask.trailingZeroBitCount] = UInt32(truncatingIfNeeded: Varint.read(base, &position, end: end)) &+ 1
          mask &= mask - 1
        }
        row += fieldCount
      }
    }
  }

  /// Allocating full decode, for edits, compaction and tests.
  package static func decode(_ block: PostingBlock, fieldCount: Int) -> PostingBuffer {
    var result = PostingBuffer(fieldCount: fieldCount)
    decode(block, fieldCount: fieldCount, appendingTo: &result)
    return result
  }

  /// Appends the block's postings to `buffer` (whose last doc must precede them).
  package static func decode(_ block: PostingBlock, fieldCount: Int, appendingTo buffer: inout PostingBuffer) {
    let count = block.postingCount
    let docs = UnsafeMutablePointer<DocID>.allocate(capacity: capacity)
    let frequencies = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity * fieldCount)
    defer {
      docs.deallocate()
      frequencies.deallocate()
    }
    let offset = decodeDocIDs(of: block, into: docs)
    decodeFrequencies(of: block, from: offset, fieldCount: fieldCount, into: frequencies)
    buffer.reserveCapacity(buffer.count + count)
    for index in 0..<count {
      buffer.append(
        doc: docs[index],
        frequencies: UnsafeBufferPointer(start: frequencies + index * fieldCount, count: fieldCount)
      )
    }
  }
}
