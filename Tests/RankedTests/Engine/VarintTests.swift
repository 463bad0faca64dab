import Testing
@testable import SearchIndex

/// Varint and term-list encoding round trips at the edges of each byte length.
@Suite struct VarintTests {
  static let edgeValues: [UInt64] = {
    var values: [UInt64] = [0, 1, UInt64.max, UInt64.max - 1, 1 << 63]
    for bits in stride(from: 7, through: 63, by: 7) {
      let boundary = UInt64(1) << UInt64(bits)
      values += [boundary - 1, boundary, boundary + 1]
    }
    return values
  }()

  @Test func roundTripsEdgeValues() {
    var bytes: [UInt8] = []
    for value in Self.edgeValues { Varint.append(value, to: &bytes) }
    #expect(Varint.decodeAll(bytes) == Self.edgeValues)
  }

  @Test func encodedLengthMatchesBytesWritten() {
    for value in Self.edgeValues {
      var bytes: [UInt8] = []
      Varint.append(value, to: &bytes)
      #expect(bytes.count == Varint.encodedLength(of: value))
    }
    #expect(Varint.encodedLength(of: 127) == 1)
    #expect(Varint.encodedLength(of: 128) == 2)
    #expect(Varint.encodedLength(of: UInt64.max) == Varint.maxLength)
  }

  @Test func termListsRoundTrip() {
    let lists: [[TermID]] = [[], [0], [5], [0, 1, 2], [3, 130, 131, 20_000, TermID.max]]
    for list in lists { #expect(TermListCodec.decode(TermListCodec.encode(list)) == list) }
  }
}

extension VarintTests {
  @Test func readIfValidStopsAtTheEndInsteadOfTrapping() {
    for value in Self.edgeValues {
      var bytes: [UInt8] = []
      Varint.append(value, to: &bytes)
      bytes.withUnsafeBufferPointer { buffer in
        var position = 0
        #expect(Varint.readIfValid(buffer.baseAddress!, &position, end: buffer.count) == value)
        #expect(position == buffer.count)
        // Cut short by a byte: no value.
        var cut = 0
        #expect(Varint.readIfValid(buffer.baseAddress!, &cut, end: buffer.count - 1) == nil)
      }
    }
    let endless: [UInt8] = Array(repeating: 0xFF, count: 12)
    endless.withUnsafeBufferPointer { buffer in
      var position = 0
      #expect(Varint.readIfValid(buffer.baseAddress!, &position, end: buffer.count) == nil)
    }
  }
}
