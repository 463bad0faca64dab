import Foundation
import Testing
@testable import SearchIndex

/// `TermTable`, the ranked writer's term bytes -> id map: exact for keys that share their
/// first 8 or 16 bytes or differ only in length, across growth, with stems kept per term.
@Suite struct TermTableTests {
  static func keys(seed: UInt64) -> [[UInt8]] {
    var random = SplitMix64(seed: seed)
    var keys = Set<[UInt8]>()
    // Random keys over a small alphabet (many shared prefixes), 1...70 bytes.
    while keys.count < 6_000 {
      let length = Int.random(in: 1...70, using: &random)
      keys.insert((0..<length).map { _ in UInt8(ascii: "a") + UInt8.random(in: 0..<3, using: &random) })
    }
    // Keys equal in their first 8 or 16 bytes, differing in length or a late byte, and
    // keys whose zero padding would look the same.
    let base = Array("internationalization-and-localisation".utf8)
    for length in 1...base.count { keys.insert(Array(base.prefix(length))) }
    for position in [8, 15, 16, 17, base.count - 1] {
      var other = base
      other[position] = UInt8(ascii: "Z")
      keys.insert(other)
    }
    keys.insert([0x01] + Array("stem".utf8))
    keys.insert([0x00])
    keys.insert([0x00, 0x00])
    return keys.sorted { $0.lexicographicallyPrecedes($1) }
  }

  func find(_ table: TermTable, _ key: [UInt8]) -> TermID? {
    key.withUnsafeBufferPointer { table.id(for: $0) }
  }

  @Test(arguments: [UInt64(1), 2])
  func everyKeyIsFoundWithItsIdAndNoOther(seed: UInt64) {
    let keys = Self.keys(seed: seed)
    var table = TermTable()
    var random = SplitMix64(seed: seed)
    let ids = keys.map { _ in TermID.random(in: 0..<(TermID.max - 2), using: &random) }
    for (index, key) in keys.enumerated() {
      #expect(find(table, key) == nil)
      key.withUnsafeBufferPointer { table.insert($0, id: ids[index]) }
      // Earlier keys survive every growth.
      if index.isMultiple(of: 997) {
        for earlier in 0...index { #expect(find(table, keys[earlier]) == ids[earlier]) }
      }
    }
    #expect(table.count == keys.count)
    for (index, key) in keys.enumerated() { #expect(find(table, key) == ids[index]) }
    #expect(find(table, Array("internationalization-and-localisation!".utf8)) == nil)
    #expect(find(table, Array("b".utf8) + Array(repeating: UInt8(ascii: "d"), count: 40)) == nil)
  }

  @Test func stemsStayWithTheirTermWhenTheTableGrows() throws {
    var table = TermTable()
    let words = (0..<3_000).map { Array("word\($0)-with-a-longer-tail\($0 % 7)".utf8) }
    func slot(_ word: [UInt8]) -> TermTable.Slot? {
      word.withUnsafeBufferPointer { table.find($0, key: TermTable.key($0)) }
    }
    for (index, word) in words.enumerated() {
      let inserted = word.withUnsafeBufferPointer { table.insert($0, key: TermTable.key($0), id: TermID(index)) }
      #expect(table.stem(at: inserted) == .unknown)
      switch index % 3 {
      case 0: table.setStem(.term(TermID(index + 100_000)), at: inserted)
      case 1: table.setStem(.itself, at: inserted)
      default: break
      }
    }
    for (index, word) in words.enumerated() {
      let found = try #require(slot(word))
      #expect(table.id(at: found) == TermID(index))
      let expected: TermTable.Stem = [.term(TermID(index + 100_000)), .itself, .unknown][index % 3]
      #expect(table.stem(at: found) == expected)
    }
  }
}
