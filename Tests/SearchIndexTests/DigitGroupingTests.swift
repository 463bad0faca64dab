import Testing

@testable import SearchIndex

/// Digits grouped by threes, as progress lines and offline answers write numbers.
@Suite struct DigitGroupingTests {
  @Test func integersAndFractionsAreGroupedByThrees() {
    #expect(DigitGrouping.grouped(0) == "0")
    #expect(DigitGrouping.grouped(999) == "999")
    #expect(DigitGrouping.grouped(14_000) == "14,000")
    #expect(DigitGrouping.grouped(-1_234_567) == "-1,234,567")
    #expect(DigitGrouping.grouped("8327055.486") == "8,327,055.486")
    #expect(DigitGrouping.grouped("-12345.5") == "-12,345.5")
  }
}
