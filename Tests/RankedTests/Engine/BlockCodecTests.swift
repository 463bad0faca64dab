import Testing
@testable import SearchIndex

/// Block payload encoding: doc gaps and per-field frequencies survive a round trip
/// at block-size and value-range boundaries.
@Suite struct BlockCodecTests {
  private func randomBuffer(count: Int, fieldCount: Int, random: inout SplitMix64, start: DocID, maxGap: UInt64)
    -> PostingBuffer
  {
    var buffer = PostingBuffer(fieldCount: fieldCount)
    var doc = start
    for _ in 0..<count {
      var frequencies = (0..<fieldCount).map { _ -> UInt32 in
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return UInt32.random(in: 1...UInt32.max, using: &random)
        case 1, 2: return UInt32.random(in: 1...40, using: &random)
        default: return 0
        }
      }
      if frequencies.allSatisfy({ $0 == 0 }) { frequencies[Int.random(in: 0..<fieldCount, using: &random)] = 1 }
      buffer.append(doc: doc, frequencies: frequencies)
      doc += DocID(UInt64.random(in: 1...maxGap, using: &random))
    }
    return buffer
  }

  @Test func roundTripsAtBlockSizeBoundaries() {
    var random = SplitMix64(seed: 7)
    for fieldCount in [1, 2, 4, 16] {
      for count in [1, 2, 127, 128] {
        for maxGap: UInt64 in [1, 300, 1 << 40] {
          let buffer = randomBuffer(
            count: count, fieldCount: fieldCount, random: &random, start: -1_000_000, maxGap: maxGap)
          let block = BlockCodec.encode(buffer, range: 0..<count, maxPseudoTF: 3.5)
          #expect(block.postingCount == count)
          #expect(block.firstDoc == buffer.docs.first)
          #expect(block.lastDoc == buffer.docs.last)
          #expect(BlockCodec.decode(block, fieldCount: fieldCount) == buffer)
        }
      }
    }
  }

  @Test func roundTripsExtremeDocIDs() {
    var buffer = PostingBuffer(fieldCount: 2)
    buffer.append(doc: DocID.min, frequencies: [1, 0])
    buffer.append(doc: -1, frequencies: [0, 1])
    buffer.append(doc: 0, frequencies: [UInt32.max, UInt32.max])
    buffer.append(doc: DocID.max - 1, frequencies: [2, 3])
    let block = BlockCodec.encode(buffer, range: 0..<4, maxPseudoTF: 0)
    #expect(BlockCodec.decode(block, fieldCount: 2) == buffer)
  }

  @Test func encodesSubrangesIndependently() {
    var random = SplitMix64(seed: 11)
    let buffer = randomBuffer(count: 300, fieldCount: 3, random: &random, start: 5, maxGap: 1000)
    var decoded = PostingBuffer(fieldCount: 3)
    for range in [0..<128, 128..<256, 256..<300] {
      BlockCodec.decode(
        BlockCodec.encode(buffer, range: range, maxPseudoTF: 1), fieldCount: 3, appendingTo: &decoded)
    }
    #expect(decoded == buffer)
  }

  @Test func singleFieldUnitFrequencyCostsOneBytePerPosting() {
    var buffer = PostingBuffer(fieldCount: 2)
    for doc in 0..<128 { buffer.append(doc: DocID(doc * 3), frequencies: [0, 1]) }
    let block = BlockCodec.encode(buffer, range: 0..<128, maxPseudoTF: 1)
    // 127 one-byte gaps + 128 one-byte frequency headers.
    #expect(block.payload.count == 127 + 128)
  }
}
