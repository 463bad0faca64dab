import Testing
@testable import SearchIndex

/// "Did you mean" suggestions for attribute, stage and planner names.
@Suite struct EditDistanceTests {
  let names = ["title", "contentModificationDate", "contentCreationDate", "contentDescription", "rating"]

  @Test func typosAreOneOrTwoEditsAway() {
    #expect(editDistance("titel", "title") == 1, "a transposition costs one")
    #expect(closestMatch(to: "titel", in: names) == "title")
    #expect(closestMatch(to: "ratign", in: names) == "rating")
  }

  @Test func anotherFormOfTheLastWordOfALongName() {
    #expect(closestMatch(to: "contentModifiedDate", in: names) == "contentModificationDate")
    #expect(closestMatch(to: "contentCreatedDate", in: names) == "contentCreationDate")
  }

  @Test func unrelatedNamesGetNoSuggestion() {
    #expect(closestMatch(to: "zebra", in: names) == nil)
    #expect(closestMatch(to: "contentFlavour", in: names) == nil, "only 'content' in common")
  }
}
