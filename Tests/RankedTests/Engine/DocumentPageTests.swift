import Testing
@testable import SearchIndex

/// A page of field lengths survives its stored form: full runs of 64 live documents, runs
/// with dead documents, lengths of one byte, of several and past `UInt16`; damaged bytes
/// read as no page rather than a wrong one (or a crash).
@Suite struct DocumentPageTests {
  static let fieldCount = 5

  /// Documents 0-63 all live (a full run), 64-127 every third, 200 and 1,023 alone; lengths
  /// of every size class.
  static func samplePage() -> DocumentTable {
    var table = DocumentTable(fieldCount: fieldCount)
    let docs = Array(0..<64) + stride(from: 64, to: 128, by: 3).map { $0 } + [200, 1_023]
    for doc in docs {
      let lengths = (0..<fieldCount).map { field in
        switch (doc + field) % 9 {
        case 0: 0
        case 1: 127
        case 2: 128
        case 3: 65_534
        case 4: 65_535
        case 5: 1_000_000
        case 6: 16_383
        case 7: 16_384
        default: doc * 3 + field
        }
      }
      table.insert(DocID(doc), fieldLengths: lengths, encodedTerms: nil)
    }
    return table
  }

  /// The first document of page 0 whose liveness or lengths `decoded` reads otherwise than
  /// `table` holds them; nil when it reads every one as written.
  static func firstDifference(_ decoded: DocumentPage, from table: DocumentTable) -> Int? {
    var copy = DocumentTable(fieldCount: fieldCount)
    copy.install(decoded)
    return (0..<DocumentTable.pageSize).first { copy.fieldLengths(of: DocID($0)) != table.fieldLengths(of: DocID($0)) }
  }

  @Test func aPageReadsBackAsWritten() throws {
    let table = Self.samplePage()
    let page = try #require(table.page(0))
    let decoded = try #require(DocumentPage.decode(number: 0, fieldCount: Self.fieldCount, bytes: page.encoded()))
    #expect(decoded.liveCount == page.liveCount)
    var copy = DocumentTable(fieldCount: Self.fieldCount)
    copy.install(decoded)
    for doc in 0..<DocumentTable.pageSize {
      #expect(copy.fieldLengths(of: DocID(doc)) == table.fieldLengths(of: DocID(doc)), "document \(doc)")
    }
    #expect(copy.fieldLengths(of: 64) != nil && copy.fieldLengths(of: 65) == nil)
    #expect(copy.fieldLengths(of: 5)?.contains(1_000_000) == true)
    #expect(copy.fieldLengths(of: 6)?.contains(16_383) == true && copy.fieldLengths(of: 6)?.contains(16_384) == true)
  }

  /// Seeded random pages (runs full, sparse and empty; lengths mostly of one byte, some of
  /// two or three, a few past `UInt16`) read back exactly: the eight-bytes-at-a-time path
  /// for one-byte lengths agrees with the varints it stands for wherever a longer one falls.
  @Test func randomPagesReadBackAsWritten() {
    var random = SplitMix64(seed: 20261203)
    for round in 0..<40 {
      var table = DocumentTable(fieldCount: Self.fieldCount)
      let density = [1.0, 0.97, 0.5, 0.05][round % 4]
      for doc in 0..<DocumentTable.pageSize where Double(random.next() % 1_000) / 1_000 < density {
        let lengths = (0..<Self.fieldCount).map { _ -> Int in
          switch random.next() % 20 {
          case 0: Int(random.next() % 16_384)
          case 1: 16_384 + Int(random.next() % 50_000)
          case 2 where round % 5 == 0: 65_535 + Int(random.next() % 1_000_000)
          default: Int(random.next() % 128)
          }
        }
        table.insert(DocID(doc), fieldLengths: lengths, encodedTerms: nil)
      }
      guard let page = table.page(0) else { continue }
      guard let decoded = DocumentPage.decode(number: 0, fieldCount: Self.fieldCount, bytes: page.encoded()) else {
        Issue.record("round \(round): the page did not decode")
        continue
      }
      if let doc = Self.firstDifference(decoded, from: table) { Issue.record("round \(round), document \(doc)") }
    }
  }

  /// A page whose lengths mostly fit one byte (two-byte varints among them) is read narrow,
  /// one byte per length, the few of 255 or more escaped; many of those make it wide. Either
  /// reads back exactly.
  @Test func pagesOfShortLengthsAreReadNarrow() throws {
    var random = SplitMix64(seed: 20261205)
    for round in 0..<24 {
      var table = DocumentTable(fieldCount: Self.fieldCount)
      let density = [1.0, 0.9, 0.3][round % 3]
      for doc in 0..<DocumentTable.pageSize where Double(random.next() % 1_000) / 1_000 < density {
        let lengths = (0..<Self.fieldCount).map { _ -> Int in
          switch random.next() % 10 {
          case 0: 128 + Int(random.next() % 127)  // two bytes as a varint, one in memory
          case 1: 254
          default: Int(random.next() % 128)
          }
        }
        table.insert(DocID(doc), fieldLengths: lengths, encodedTerms: nil)
      }
      // Up to 64 lengths of 255 or more are escaped (two rounds of three at the limit); one
      // more makes the page wide.
      let wide = round % 4 == 3
      let escaped = wide ? 65 : (round % 3 == 0 ? 64 : 10)
      for doc in (DocumentTable.pageSize - escaped)..<DocumentTable.pageSize {
        _ = table.remove(DocID(doc))
        table.insert(DocID(doc), fieldLengths: [1, 2, 255 + doc % 3 * 70_000, 4, 5], encodedTerms: nil)
      }
      let page = try #require(table.page(0))
      let decoded = try #require(DocumentPage.decode(number: 0, fieldCount: Self.fieldCount, bytes: page.encoded()))
      #expect(decoded.isNarrow == !wide, "round \(round)")
      #expect(decoded.byteCount == DocumentTable.pageSize * Self.fieldCount * (wide ? 2 : 1) + 128)
      if let doc = Self.firstDifference(decoded, from: table) { Issue.record("round \(round), document \(doc)") }
    }
  }

  /// A narrow page is never written: a table that changes it writes a wide copy, and a
  /// table sharing the page read sees no change.
  @Test func aNarrowPageIsCopiedWideBeforeAWrite() throws {
    var table = DocumentTable(fieldCount: Self.fieldCount)
    for doc in 0..<100 { table.insert(DocID(doc), fieldLengths: [doc, 1, 2, 3, 200], encodedTerms: nil) }
    let written = try #require(table.page(0))
    let decoded = try #require(DocumentPage.decode(number: 0, fieldCount: Self.fieldCount, bytes: written.encoded()))
    #expect(decoded.isNarrow)
    var reader = DocumentTable(fieldCount: Self.fieldCount)
    reader.install(decoded)
    var writer = reader
    writer.insert(100, fieldLengths: [70_000, 300, 0, 0, 1], encodedTerms: nil)
    #expect(writer.remove(5)?.fieldLengths == [5, 1, 2, 3, 200])
    #expect(writer.fieldLengths(of: 100) == [70_000, 300, 0, 0, 1])
    #expect(writer.fieldLengths(of: 6) == [6, 1, 2, 3, 200] && writer.fieldLengths(of: 5) == nil)
    #expect(writer.page(0)?.isNarrow == false)
    #expect(reader.fieldLengths(of: 5) == [5, 1, 2, 3, 200] && reader.fieldLengths(of: 100) == nil && reader.page(0) === decoded)
    #expect(writer.count == 100 && reader.count == 100)
  }

  /// A page at least half live is stored fixed-width, one byte per length with the few of 255
  /// or more escaped (two bytes when many are), and reads back as written; the varint form
  /// that earlier versions wrote for every page still reads the same.
  @Test func aDensePageIsStoredFixedWidth() throws {
    for longLengths in [3, 65] {
      var table = DocumentTable(fieldCount: Self.fieldCount)
      for doc in 0..<DocumentTable.pageSize where doc % 10 != 7 {
        let long = doc < longLengths * 10
        table.insert(DocID(doc), fieldLengths: [doc % 7, 1, 130, long ? 255 + doc * 1_000 : 254, doc % 128], encodedTerms: nil)
      }
      let page = try #require(table.page(0))
      let bytes = page.encoded()
      let wide = longLengths > 64
      #expect(bytes.last == (wide ? 0x82 : 0x81))
      // The lengths that reach the width's largest value, each as two varints (slot, length).
      let marker = wide ? 65_535 : 255
      var escapes = 0
      for doc in 0..<DocumentTable.pageSize {
        for (field, length) in (table.fieldLengths(of: DocID(doc)) ?? []).enumerated() where length >= marker {
          escapes += Varint.encodedLength(of: UInt64(doc * Self.fieldCount + field)) + Varint.encodedLength(of: UInt64(length))
        }
      }
      #expect(escapes > 0)
      #expect(bytes.count == 128 + DocumentTable.pageSize * Self.fieldCount * (wide ? 2 : 1) + escapes + 1)
      let decoded = try #require(DocumentPage.decode(number: 0, fieldCount: Self.fieldCount, bytes: bytes))
      #expect(decoded.isNarrow == !wide && decoded.liveCount == page.liveCount)
      #expect(Self.firstDifference(decoded, from: table) == nil)
      let earlier = try #require(DocumentPage.decode(number: 0, fieldCount: Self.fieldCount, bytes: page.varintEncoded()))
      #expect(earlier.liveCount == page.liveCount && Self.firstDifference(earlier, from: table) == nil)
    }
    // Below half live: varints, as before.
    #expect(try #require(Self.samplePage().page(0)).encoded() == (try #require(Self.samplePage().page(0))).varintEncoded())
  }

  /// Damaged fixed-width bytes read as no page: cut short, an unknown trailer, a slot holding
  /// the escape marker without its escape, an escape of a slot without the marker, an escape
  /// past the page.
  @Test func damagedFixedWidthBytesAreNoPage() throws {
    var table = DocumentTable(fieldCount: Self.fieldCount)
    for doc in 0..<DocumentTable.pageSize { table.insert(DocID(doc), fieldLengths: [1, 2, doc == 9 ? 300 : 3, 4, 5], encodedTerms: nil) }
    let bytes = try #require(table.page(0)).encoded()
    #expect(bytes.last == 0x81)
    let slots = 128 + DocumentTable.pageSize * Self.fieldCount
    #expect(DocumentPage.decode(number: 0, fieldCount: Self.fieldCount, bytes: bytes) != nil)
    #expect(DocumentPage.decode(number: 0, fieldCount: Self.fieldCount, bytes: Array(bytes.dropFirst(200))) == nil)
    var trailer = bytes
    trailer[trailer.count - 1] = 0x83
    #expect(DocumentPage.decode(number: 0, fieldCount: Self.fieldCount, bytes: trailer) == nil)
    var unescaped = bytes
    unescaped[128 + 40] = 0xFF
    #expect(DocumentPage.decode(number: 0, fieldCount: Self.fieldCount, bytes: unescaped) == nil)
    var stray = Array(bytes.prefix(slots))
    stray[128 + 9 * Self.fieldCount + 2] = 3  // the escaped slot no longer holds the marker
    stray += Array(bytes[slots...])
    #expect(DocumentPage.decode(number: 0, fieldCount: Self.fieldCount, bytes: stray) == nil)
    var outside = Array(bytes.prefix(slots))
    Varint.append(UInt64(DocumentTable.pageSize * Self.fieldCount), to: &outside)
    Varint.append(300, to: &outside)
    outside.append(0x81)
    #expect(DocumentPage.decode(number: 0, fieldCount: Self.fieldCount, bytes: outside) == nil)
  }

  @Test func damagedBytesAreNoPage() throws {
    let bytes = try #require(Self.samplePage().page(0)).encoded()
    // Too short for the live bitmap, cut inside the lengths, cut inside one varint, and a
    // byte too many.
    #expect(DocumentPage.decode(number: 0, fieldCount: Self.fieldCount, bytes: Array(bytes.prefix(100))) == nil)
    #expect(DocumentPage.decode(number: 0, fieldCount: Self.fieldCount, bytes: Array(bytes.dropLast(7))) == nil)
    #expect(DocumentPage.decode(number: 0, fieldCount: Self.fieldCount, bytes: bytes + [0]) == nil)
    var unfinished = Array(bytes.prefix(128))
    unfinished[0] = 1  // one live document
    unfinished += [0x80, 0x80]  // its first length never ends
    #expect(DocumentPage.decode(number: 0, fieldCount: Self.fieldCount, bytes: unfinished) == nil)
    var tooLong = Array(bytes.prefix(128)).map { _ in UInt8(0) }
    tooLong[0] = 1
    tooLong += Array(repeating: 0xFF, count: 11) + [1, 1, 1, 1, 1]  // a varint past 64 bits
    #expect(DocumentPage.decode(number: 0, fieldCount: Self.fieldCount, bytes: tooLong) == nil)
  }
}
