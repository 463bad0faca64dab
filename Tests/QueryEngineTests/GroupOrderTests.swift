import Foundation
import Testing
@testable import QueryEngine
@testable import SearchIndex

/// Group keys and table rows sort as Finder sorts names. ASCII names are compared without
/// Foundation (`Aggregation.asciiPrimaryOrder`); these tests hold that order equal to
/// `localizedStandardCompare`'s, which still decides every other name.
@Suite struct GroupOrderTests {
  /// Every printable ASCII character, some twice so that runs of digits and repeats occur.
  static let alphabet: [Character] = (32...126).map { Character(UnicodeScalar(UInt8($0))) } + Array("0123456789aAzZ .-_")

  static func randomName(_ random: inout SplitMix64) -> String {
    let length = Int(random.next() % 7)
    return String((0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
  }

  @Test func asciiNamesSortAsFoundationSortsThem() {
    var random = SplitMix64(seed: 20_261_206)
    var decidedHere = 0
    for _ in 0..<40_000 {
      let x = Self.randomName(&random)
      // Half the pairs share a prefix, so that the comparison reaches later characters.
      let y = random.next() % 2 == 0 ? String(x.prefix(Int(random.next() % 4))) + Self.randomName(&random) : Self.randomName(&random)
      let expected = x.localizedStandardCompare(y) == .orderedAscending
      #expect(Aggregation.finderOrder(x, y) == expected, "\(x.debugDescription) < \(y.debugDescription)")
      if Aggregation.asciiPrimaryOrder(x, y) != nil { decidedHere += 1 }
    }
    // The fast path decides nearly every pair; the rest (equal but for case) go to Foundation.
    #expect(decidedHere > 35_000)
  }

  @Test(arguments: [
    ("file2", "file10", true), ("file10", "file2", false), ("mail.archive", "mail.inbox", true), ("notes", "notes.work", true),
    ("a b", "a.b", true), ("a-b", "a.b", true), ("B", "a", false), ("x9", "x10", true), ("1.5", "1.10", true),
  ])
  func finderOrderExamples(_ x: String, _ y: String, _ before: Bool) {
    #expect(Aggregation.finderOrder(x, y) == before)
    #expect(Aggregation.asciiPrimaryOrder(x, y) == before)
  }

  @Test func nonASCIIAndCaseOnlyDifferencesGoToFoundation() {
    #expect(Aggregation.asciiPrimaryOrder("Zürich", "Zurich") == nil)
    #expect(Aggregation.asciiPrimaryOrder("apple", "Apple") == nil)
    #expect(Aggregation.asciiPrimaryOrder("a01", "a1") == nil)
    #expect(Aggregation.finderOrder("apple", "Apple") == ("apple".localizedStandardCompare("Apple") == .orderedAscending))
    #expect(Aggregation.finderOrder("Zürich", "Zurich") == ("Zürich".localizedStandardCompare("Zurich") == .orderedAscending))
    #expect(Aggregation.finderOrder("Ångström", "Zulu"))
  }
}
