import Foundation
@testable import Assistant
import QueryEngine
import SearchIndex
import Testing

/// The offline answer's wording.
@Suite struct ExtractiveAnswerTests {
  static func item(_ id: String, _ attributes: [(String, AttributeValue)]) -> ResultItem {
    ResultItem(rowid: 0, item: SearchableItem(uniqueIdentifier: id, attributeSet: AttributeSet(attributes)))
  }

  @Test func sentencesSplitAtLinesAndSentenceEnds() {
    #expect(ExtractiveAnswer.sentences("One. Two! Three? 4.5 km\nFive") == ["One.", "Two!", "Three?", "4.5 km", "Five"])
  }

  /// A text wrapped at a margin (a licence, a README, a mail at 72 columns) is quoted as
  /// whole sentences; short lines, lines that end in punctuation and paragraph breaks still
  /// end one.
  @Test func linesWrappedAtAMarginRunOn() {
    let licence = """
       Bash is distributed in the hope that it will be useful, but WITHOUT
       ANY WARRANTY; without even the implied warranty of MERCHANTABILITY or
       FITNESS FOR A PARTICULAR PURPOSE.  See the GNU General Public License
       for more details.
      """
    #expect(ExtractiveAnswer.sentences(licence) == [
      "Bash is distributed in the hope that it will be useful, but WITHOUT ANY WARRANTY; without even the implied warranty of MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.",
      "See the GNU General Public License for more details.",
    ])
    let note = "Action items\nLena pre-stages launch emails the day before the launch goes out to all\n\nKenji adds a canary"
    #expect(ExtractiveAnswer.sentences(note) == [
      "Action items", "Lena pre-stages launch emails the day before the launch goes out to all", "Kenji adds a canary",
    ])
    let ended = "We moved the launch to the second week of March after the review meeting.\nThe budget stays."
    #expect(ExtractiveAnswer.sentences(ended) == ["We moved the launch to the second week of March after the review meeting.", "The budget stays."])
  }

  @Test func theSentenceWithMostTermsWinsTheEarliestOfEquals() {
    let writer = ExtractiveAnswer(terms: ["canary", "cdn"])
    let item = Self.item("n", [("textContent", .string("We shipped. Kenji adds a canary for CDN changes. A canary sang."))]).item
    #expect(writer.sentence(of: item) == "Kenji adds a canary for CDN changes.")
  }

  /// A long text (a manual of megabytes) is read where the question's terms are: the
  /// sentence that has them, deep inside, is still the one quoted.
  @Test func theSentenceDeepInsideALongTextIsFound() {
    let filler = (0..<12_000).map { "Line \($0) of the manual says nothing in particular." }
    let text = (filler[..<9_000] + ["Rotating the signing keys happens every ninety days."] + filler[9_000...]).joined(separator: "\n")
    let writer = ExtractiveAnswer(terms: ["rotating", "keys"])
    let item = Self.item("m", [("textContent", .string(text))]).item
    #expect(writer.sentence(of: item) == "Rotating the signing keys happens every ninety days.")
    // The evidence rule finds the terms there too.
    let coverage = TermCoverage([.init(term: "rotating", weight: 1), .init(term: "keys", weight: 1)], minimum: 1)
    #expect(coverage.coverage(of: item) == 1)
  }

  @Test func aSalutationLosesToASentenceWithAsManyTerms() {
    let writer = ExtractiveAnswer(terms: ["tom", "quote"])
    let item = Self.item("m", [("textContent", .string("Hi Tom,\nWe'd like to go ahead with your $38,400 quote, starting May 11."))]).item
    #expect(writer.sentence(of: item) == "We'd like to go ahead with your $38,400 quote, starting May 11.")
  }

  @Test func withoutMatchingTermsTheDescriptionIsQuoted() {
    let writer = ExtractiveAnswer(terms: ["zebra"])
    let item = Self.item("n", [("contentDescription", .string("A summary.")), ("textContent", .string("Body text."))]).item
    #expect(writer.sentence(of: item) == "A summary.")
  }

  @Test func longSentencesAreClippedAtAWord() {
    let writer = ExtractiveAnswer(terms: [], sentenceLength: 20)
    let item = Self.item("n", [("textContent", .string("Alpha beta gamma delta epsilon zeta."))]).item
    #expect(writer.sentence(of: item) == "Alpha beta gamma…")
  }

  @Test func itemsAreListedWithTitleDayAndSentenceThenCounted() {
    let date = AttributeValue.date(ISO8601.parse("2026-07-09T17:10:00Z")!)
    let items = (1...3).map { Self.item("n\($0)", [("title", .string("Note \($0)")), ("contentModificationDate", date), ("textContent", .string("Text \($0)."))]) }
    let text = ExtractiveAnswer(terms: [], listed: 2).describe(items: items)
    #expect(text == "Found 3 items:\n- Note 1 (2026-07-09): Text 1.\n- Note 2 (2026-07-09): Text 2.\n- and 1 more")
  }

  @Test func aggregatesUseTheTextStageWordsWithTheirLabel() {
    let writer = ExtractiveAnswer(terms: [])
    #expect(writer.describe(aggregate: Reply(queryToken: "q", label: "Count", content: .count(5), stage: "count")) == "5 items match.")
    #expect(writer.describe(aggregate: Reply(queryToken: "q", label: "Utah trails", content: .count(1), stage: "count")) == "Utah trails: 1 item matches.")
    #expect(writer.describe(aggregate: Reply(queryToken: "q", label: "Count", content: .count(21_815), stage: "count")) == "21,815 items match.")
  }

  /// A statistic is said in words, its number with thousands grouped from five digits on.
  @Test func statisticsAreSentences() {
    func said(_ function: String, _ attribute: String, _ value: Value) -> String {
      ExtractiveAnswer.sentence(stating: Statistic(function: function, attribute: attribute, value: value))
    }
    #expect(said("avg", "distance", .number(6.6875)) == "The average distance is 6.688.")
    #expect(said("sum", "installedSize", .number(8_942_903_296)) == "The total installedSize is 8,942,903,296.")
    #expect(said("avg", "installedSize", .number(8_327_055.4861)) == "The average installedSize is 8,327,055.486.")
    #expect(said("min", "balance", .number(-12_345.5)) == "The smallest balance is -12,345.5.")
    #expect(said("max", "year", .number(2025)) == "The largest year is 2025.")
    #expect(said("max", "rating", .number(10_000)) == "The largest rating is 10,000.")
    #expect(said("stddev", "rating", .number(1.25)) == "The standard deviation of rating is 1.25.")
    #expect(said("median", "distance", .number(123_456)) == "The median distance is 123,456.")
    let date = Date(timeIntervalSince1970: 1_767_225_600)
    #expect(said("min", "contentCreationDate", .date(date)) == "The earliest contentCreationDate is \(ISO8601.format(date)).")
    #expect(said("max", "contentCreationDate", .date(date)) == "The latest contentCreationDate is \(ISO8601.format(date)).")
    #expect(said("count", "*", .number(12_000)) == "12,000 items match.")
    #expect(said("count", "distance", .number(3)) == "3 matching items have a distance.")
    #expect(said("count", "*", .number(1)) == "1 item matches.")
    #expect(said("count", "distance", .number(1)) == "1 matching item has a distance.")
    #expect(said("avg", "distance", .null) == "No matching item has a distance.")
    // So are the measures a superlative's answer states.
    let package = AttributeSet([("installedSize", .number(412_311_552)), ("distance", .number(16.3))])
    #expect(ExtractiveAnswer.statedValue(of: "installedSize", in: package, besides: nil) == "installedSize 412,311,552")
    #expect(ExtractiveAnswer.statedValue(of: "distance", in: package, besides: nil) == "distance 16.3")
  }
}
