@testable import Assistant
import Foundation
import SearchIndex
import Testing

/// `GroundingCheck`: which sentences of an answer the sources support, word by word.
@Suite struct GroundingCheckTests {
  static let retrospective = SearchableItem(
    uniqueIdentifier: "note-52", domainIdentifier: "notes",
    attributeSet: AttributeSet([
      ("title", .string("Orion launch retrospective")),
      ("textContent", .string("We got 1,900 sign-ups in week one against a goal of 1,200. Kenji adds a canary for CDN changes.")),
      ("contentModificationDate", .date(ISO8601.parse("2026-07-09T17:10:00Z", defaultZone: TimeZone(identifier: "UTC")!)!)),
      ("rating", .number(4.5)),
    ]))

  static let check = GroundingCheck(
    sources: [retrospective], question: "How did the Orion launch go?", timeZone: TimeZone(identifier: "UTC")!)

  @Test(arguments: [
    "The Orion launch got 1,900 sign-ups against a goal of 1,200.",
    "The retrospective was written on July 9, 2026 (a Thursday).",
    "Kenji adds a canary for CDN changes.",
    "It is rated 4.5, about 4 out of 5.",
    "1. The launch beat its goal.",
    "Based on the results, here is what I found.",
    "Unfortunately the launch went well.",
    "Answer: No. The Launch Retrospective Says So.",
  ])
  func supportedSentencesPass(_ sentence: String) {
    #expect(Self.check.missingTerms(in: sentence).isEmpty, "\(Self.check.missingTerms(in: sentence))")
  }

  @Test(arguments: [
    ("The launch was held at Yosemite Falls.", ["Yosemite", "Falls"]),
    ("The Orion launch got 2,500 sign-ups.", ["2,500"]),
    ("It happened on July 12.", ["12"]),
    ("Kenji talked to Priya about it.", ["Priya"]),
    ("The retrospective praises the marvellous choreography and exquisite catering.", ["praises", "marvellous", "choreography", "exquisite", "catering"]),
    ("It was written on a Monday.", ["Monday"]),
  ] as [(String, [String])])
  func inventedNamesNumbersAndWordsAreMissing(_ sentence: String, _ missing: [String]) {
    #expect(Self.check.missingTerms(in: sentence) == missing)
  }

  @Test func oneParaphrasedWordIsNotEnoughToFail() {
    // "stellar" is in no source, but a sentence with one such word among supported ones
    // is phrasing, not an invented fact.
    #expect(Self.check.missingTerms(in: "The launch retrospective was stellar.").isEmpty)
  }

  @Test func numbersMatchAsValues() {
    #expect(GroundingCheck.normalizedNumber("1,900") == "1900")
    #expect(GroundingCheck.normalizedNumber("09") == "9")
    #expect(GroundingCheck.normalizedNumber("4.50") == "4.5")
    #expect(GroundingCheck.normalizedNumber("9th") == "9")
    #expect(GroundingCheck.normalizedNumber("q3") == "q3")
    #expect(GroundingCheck.tokens("Rated 4.5, 1,900 sign-ups.") == ["Rated", "4.5", "1,900", "sign", "ups"])
  }
}

/// `RepetitionGuard`: loops trip it, ordinary prose and lists do not.
@Suite struct RepetitionGuardTests {
  static func trips(_ pieces: [String]) -> Bool {
    var guardian = RepetitionGuard()
    return pieces.contains { guardian.feed($0) }
  }

  @Test func aLineRepeatedOverAndOverTrips() {
    #expect(Self.trips(Array(repeating: "The Mist Trail has a waterfall.\n", count: 3)))
  }

  @Test func aPhraseLoopingWithoutLineBreaksTrips() {
    // Token by token, as a server streams: the loop is found where it starts to count.
    let loop = Array(repeating: [" the", " trail", " goes", " up", " and"], count: 6).flatMap { $0 }
    #expect(Self.trips(loop))
  }

  @Test func aLongPassageSaidTwiceInARowTrips() {
    let passage = "Orion launched on June 16 with zero sync data loss and 1,900 sign-ups in its first week, against a goal of 1,200. "
    #expect(Self.trips([passage, passage]))
  }

  @Test func ordinaryAnswersDoNotTrip() {
    let list = """
      The trails rated 4.5 or more in Utah are:
      - Angels Landing (2025-07-01), rated 4.8
      - Delicate Arch (2025-06-12), rated 4.6
      - The Narrows (2025-08-03), rated 4.9
      - Observation Point (2025-09-14), rated 4.7
      Each of them is in Zion or Arches National Park, and each of them is rated 4.5 or more.
      """
    #expect(!Self.trips(list.map(String.init)))
    #expect(!Self.trips(["Yes. Yes, it did. The launch went well, and the launch retrospective says the launch went well."]))
  }
}

/// `SentenceStream`: sentences end at line breaks and at `.!?` before white space, only once
/// that white space has arrived.
@Suite struct SentenceStreamTests {
  @Test func passThroughSplitsPiecesOnlyWhereASentenceEnds() {
    var stream = SentenceStream(passThrough: true)
    #expect(stream.feed("It is rated 4") == [.text("It is rated 4")])
    #expect(stream.feed(".5.") == [.text(".5.")])
    #expect(stream.feed(" Next one") == [.sentence("It is rated 4.5."), .text(" Next one")])
    #expect(stream.feed("! Third.\nFourth") == [
      .text("!"), .sentence(" Next one!"), .text(" Third."), .sentence(" Third."), .text("\nFourth"),
    ])
    #expect(stream.finish() == .sentence("\nFourth"))
  }

  @Test func heldBackTextComesOutSentenceBySentence() {
    var stream = SentenceStream(passThrough: false)
    #expect(stream.feed("One").isEmpty)
    #expect(stream.feed(". Tw") == [.sentence("One.")])
    #expect(stream.feed("o? Thr") == [.sentence(" Two?")])
    #expect(stream.finish() == .sentence(" Thr"))
  }
}
