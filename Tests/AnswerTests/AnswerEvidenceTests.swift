@testable import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Testing

/// Offline answers that answer: the sentence that covers the question (its intent words
/// included), no markup, near copies collapsed, and no sources below the evidence bar.
@Suite struct AnswerEvidenceTests {
  typealias F = AnswerFixture

  static func item(_ id: String, _ attributes: [(String, AttributeValue)]) -> SearchableItem {
    SearchableItem(uniqueIdentifier: id, attributeSet: AttributeSet(attributes))
  }

  @Test func whatWentWrongQuotesWhatFailedNotWhatWentWell() async throws {
    let collected = await F.collect(try F.session(model: nil).streamResponse(to: "What went wrong at the Orion launch?"))
    let line = try #require(collected.text.split(separator: "\n").first { $0.hasPrefix("- Orion launch retrospective") })
    #expect(!line.contains("What went well"), "\(line)")
    #expect(line.contains("wrong") || line.contains("badly") || line.contains("failed"), "\(line)")
  }

  @Test func intentWordsDecideBetweenSentencesSharingTheOtherWords() {
    let writer = ExtractiveAnswer(terms: ["\u{1}went", "\u{1}launch"], question: "What went wrong at the launch?")
    let item = Self.item("n", [("textContent", .string("What went well: the launch was on time.\nWhat went badly: the launch emails went out late."))])
    #expect(writer.sentence(of: item) == "What went badly: the launch emails went out late.")
    let positive = ExtractiveAnswer(terms: ["\u{1}went", "\u{1}launch"], question: "What went well at the launch?")
    #expect(positive.sentence(of: item) == "What went well: the launch was on time.")
  }

  /// "How much": the sentence that states a sum of money, though another shares the words.
  @Test func howMuchQuotesTheSentenceWithTheSum() {
    let text = "Change orders on the kitchen remodel are priced at cost plus 10%. The kitchen remodel quote is $38,400 for cabinets and counters."
    let item = Self.item("q", [("textContent", .string(text))])
    let writer = ExtractiveAnswer(terms: ["\u{1}kitchen", "\u{1}remodel"], question: "How much did the kitchen remodel cost?")
    #expect(writer.sentence(of: item) == "The kitchen remodel quote is $38,400 for cabinets and counters.")
    // Without the question's intent the first sentence that covers the words is quoted.
    let plain = ExtractiveAnswer(terms: ["\u{1}kitchen", "\u{1}remodel"], question: "kitchen remodel")
    #expect(plain.sentence(of: item) == "Change orders on the kitchen remodel are priced at cost plus 10%.")
    // A sum without the question's words, the first of two.
    let quote = Self.item("k", [("textContent", .string("Thanks for walking me through the kitchen on Saturday. Our quote: $38,400, fixed price. Change orders are priced at cost plus 10%. If you want quartz instead of butcher block, add about $2,000 depending on the slab."))])
    let cost = ExtractiveAnswer(terms: ["\u{1}kitchen", "\u{1}cost"], question: "How much did the kitchen cost?")
    #expect(cost.sentence(of: quote) == "Our quote: $38,400, fixed price.")
    // An invoice's lines: the total is quoted, though mostly a number.
    let invoice = Self.item("i", [("textContent", .string("Here is the final invoice.\nOriginal contract: $38,400\nTotal: $42,030\nBalance due: $34,350"))])
    let total = ExtractiveAnswer(terms: ["\u{1}final", "\u{1}total"], question: "What was the final total?")
    #expect(total.sentence(of: invoice) == "Total: $42,030")
    #expect(ExtractiveAnswer.isProse("Total: $42,030") && !ExtractiveAnswer.isProse("Page 3 of 12 -- 42,030"))
    #expect(IntentWords.statesAmount("It came to 1,200 CHF in the end.") && IntentWords.statesAmount("€ 95 a night"))
    #expect(!IntentWords.statesAmount("It took 10 weeks and 3 people.") && !IntentWords.asksForAmount("how many trails are there"))
  }

  @Test func rarerTermsOutweighCommonOnes() {
    let writer = ExtractiveAnswer(terms: ["\u{1}licence", "\u{1}project"], weights: ["\u{1}licence": 4, "\u{1}project": 1])
    let item = Self.item("n", [("textContent", .string("This project builds with make. The licence is MIT."))])
    #expect(writer.sentence(of: item) == "The licence is MIT.")
  }

  @Test func markupAndBoilerplateAreNeverQuoted() {
    let readme = """
      <p align="center"><img src="docs/logo.png" alt="license logo" width="200"></p>
      [![License: MIT](https://img.shields.io/badge/License-MIT-yellow.svg)](https://opensource.org/licenses/MIT)
      ## License
      This project is released under the **MIT License**; see [the licence file](LICENSE).
      """
    let writer = ExtractiveAnswer(terms: ["\u{1}license"], question: "What license does it use?")
    let sentence = writer.sentence(of: Self.item("r", [("textContent", .string(readme))]))
    #expect(sentence == "This project is released under the MIT License; see the licence file.")
    #expect(ExtractiveAnswer.plainText("<b>bold</b> and [a link](http://x.y)") == " bold  and a link")
    #expect(ExtractiveAnswer.plainText("the `What's New in Python 3.11 <https://docs.python.org/3.11/whatsnew/3.11.html>`_ document")
      == "the What's New in Python 3.11 document")
  }

  @Test func nearCopiesAreOneSource() {
    let text = "The garage window is broken; Dan from Clearview Glass fixes it on Thursday at nine in the morning."
    let a = TermCoverage.words(of: Self.item("a", [("title", .string("Garage window")), ("textContent", .string(text))]))
    let b = TermCoverage.words(of: Self.item("b", [("title", .string("Garage window")), ("textContent", .string("Fwd: " + text))]))
    let c = TermCoverage.words(of: Self.item("c", [("title", .string("Kitchen")), ("textContent", .string("The kitchen remodel quote came in at $38,400 for cabinets and counters."))]))
    #expect(TermCoverage.isNearDuplicate(a, b), "a forwarded copy adds one word")
    #expect(TermCoverage.isNearDuplicate(a, a))
    #expect(!TermCoverage.isNearDuplicate(a, c))
  }

  /// "The longest trail": each line says how long, what the question asked for.
  @Test func superlativeLinesStateWhatOrdersThem() async throws {
    let collected = await F.collect(try F.session(model: nil).streamResponse(to: "What is the longest trail in Utah?"))
    #expect(collected.text.contains("\n- The Narrows (bottom-up) (distance 15, 2025-10-20): "), "\(collected.text)")
    let rated = await F.collect(try F.session(model: nil).streamResponse(to: "highest rated trails"))
    let lines = rated.text.split(separator: "\n").filter { $0.hasPrefix("- ") && !$0.hasPrefix("- and ") }
    #expect(lines.count == 5 && lines.allSatisfy { $0.contains(" (rating ") }, "\(rated.text)")
    // A date the line shows anyway is not said twice.
    let recent = await F.collect(try F.session(model: nil).streamResponse(to: "most recent email from Sam Ortiz"))
    #expect(!recent.text.contains("contentModificationDate"), "\(recent.text)")
  }

  /// Two items of one text but different lengths are both among "the longest": near copies
  /// are one source only when what orders them is the same too.
  @Test func itemsOfOneTextAreDistinctWhenTheirMeasuresDiffer() async throws {
    let index = try SampleIndex.make()
    let text = "A long desert loop through slot canyons and over slickrock domes, with no water on the way and little shade."
    try index.indexSearchableItems([90, 91].map { distance in
      SearchableItem(
        uniqueIdentifier: "trail-long-\(distance)", domainIdentifier: "trails", contentType: "trail",
        attributeSet: AttributeSet([
          ("title", .string("Slickrock Traverse")), ("contentDescription", .string(text)),
          ("stateOrProvince", .string("Utah")), ("distance", .number(Double(distance))),
        ]))
    })
    let collected = await F.collect(try F.session(model: nil, index: index).streamResponse(to: "the 2 longest trails in Utah"))
    #expect(collected.sourceIDs == ["trail-long-91", "trail-long-90"], "\(collected.text)")
    #expect(collected.text.contains("(distance 91)") && collected.text.contains("(distance 90)"), "\(collected.text)")
  }

  @Test(arguments: ["What is my cat's name?", "How much did the Hawaii trip cost?", "What is my driver's license number?", "When is my car's next oil change due?"])
  func questionsTheItemsCannotAnswerCiteNothing(_ question: String) async throws {
    let collected = await F.collect(try F.session(model: nil).streamResponse(to: question))
    #expect(collected.text == AnswerInstructions.notFound, "\(question): \(collected.text)")
    #expect(collected.sourceIDs.isEmpty, "\(question): \(collected.sourceIDs)")
  }
}
