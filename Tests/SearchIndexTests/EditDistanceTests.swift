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

  @Test func aNameFarLongerThanEveryCandidateGetsNoSuggestionAsBefore() {
    // The early answer for long names agrees with the full rules on names around the bound.
    for length in [1, 5, 19, 23, 26, 27, 28, 34, 35, 36, 40, 200, 2_000] {
      for base in ["contentModificationDate", "t", "zebra"] {
        let name = String(String(repeating: base, count: length / base.count + 1).prefix(length))
        #expect(closestMatch(to: name, in: names) == fullRules(name), "\(length) characters of \(base)")
      }
    }
  }

  /// `closestMatch` without its early answer: the rules as they were before it.
  private func fullRules(_ name: String) -> String? {
    var best: (String, Int)?
    for candidate in names {
      let distance = editDistance(name, candidate)
      if best == nil || distance < best!.1 { best = (candidate, distance) }
    }
    guard let (candidate, distance) = best else { return nil }
    if distance <= max(1, min(3, name.count / 3)) { return candidate }
    if candidate.lowercased().hasPrefix(name.lowercased()) && name.count >= 3 { return candidate }
    let folded = Array(name.lowercased())
    var longest: (String, Int)?
    for candidate in names {
      let shared = zip(folded, candidate.lowercased()).prefix { $0 == $1 }.count
      if longest == nil || shared > longest!.1 { longest = (candidate, shared) }
    }
    if let (candidate, shared) = longest, shared >= 8, shared * 3 >= folded.count * 2 { return candidate }
    return nil
  }
}
