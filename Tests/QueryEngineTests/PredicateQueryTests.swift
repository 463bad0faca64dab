import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex

/// Predicates run against the bundled sample data; expected answers are computed from the
/// stored items in the test, not by the engine.
@Suite struct PredicateQueryTests {
  // MARK: Oracle

  func values(_ item: SearchableItem, _ name: String) -> [AttributeValue] { item.attributeSet[name]?.elements ?? [] }
  func numbers(_ item: SearchableItem, _ name: String) -> [Double] { values(item, name).compactMap(\.numericValue) }
  func strings(_ item: SearchableItem, _ name: String) -> [String] { values(item, name).compactMap(\.stringValue) }

  func expected(_ filter: (SearchableItem) -> Bool) -> Set<String> {
    Set(visibleSampleItems.filter(filter).map(\.uniqueIdentifier))
  }

  func expectSame(_ query: String, _ filter: (SearchableItem) -> Bool, clock: QueryClock = sampleClock,
                  sourceLocation: SourceLocation = #_sourceLocation) throws {
    let found = try idSet(query, clock: clock, sourceLocation: sourceLocation)
    let wanted = expected(filter)
    #expect(found == wanted, "\(query): extra \(found.subtracting(wanted).sorted()), missing \(wanted.subtracting(found).sorted())",
            sourceLocation: sourceLocation)
  }

  // MARK: Comparisons

  @Test func theSampleIndexHoldsWhatTheReadmeDescribes() throws {
    #expect(sampleItems.filter { $0.domainIdentifier == "trails" }.count == 81)
    #expect(visibleSampleItems.count == 235)
    #expect(try ids("search *").count == 235)
  }

  @Test func everyComparisonOperatorOnNumbers() throws {
    try expectSame("rating == 4.5") { numbers($0, "rating").contains(4.5) }
    try expectSame("rating = 4.5") { numbers($0, "rating").contains(4.5) }
    try expectSame("rating != 4.5") { !numbers($0, "rating").contains(4.5) }
    try expectSame("rating < 4.5") { numbers($0, "rating").contains { $0 < 4.5 } }
    try expectSame("rating > 4.5") { numbers($0, "rating").contains { $0 > 4.5 } }
    try expectSame("rating <= 4.5") { numbers($0, "rating").contains { $0 <= 4.5 } }
    try expectSame("rating >= 4.5") { numbers($0, "rating").contains { $0 >= 4.5 } }
    #expect(try ids("rating == 4.5").count > 0)
  }

  @Test func everyComparisonOperatorOnDates() throws {
    let cut = utc(2026, 11, 1)
    try expectSame("contentModificationDate < $time.iso(2026-11-01T00:00:00Z)") { self.numbers($0, "contentModificationDate").contains { $0 < cut.timeIntervalSince1970 } }
    try expectSame("contentModificationDate >= $time.iso(2026-11-01T00:00:00Z)") { self.numbers($0, "contentModificationDate").contains { $0 >= cut.timeIntervalSince1970 } }
    try expectSame("contentModificationDate > $time.iso(2026-11-01T00:00:00Z)") { self.numbers($0, "contentModificationDate").contains { $0 > cut.timeIntervalSince1970 } }
  }

  @Test func inRangeIsInclusiveAtBothEnds() throws {
    try expectSame("InRange(distance, 2, 8)") { numbers($0, "distance").contains { $0 >= 2 && $0 <= 8 } }
    let index = try TemporaryIndex([
      item("low", [("distance", .number(2))]), item("high", [("distance", .number(8))]),
      item("below", [("distance", .number(1.99))]), item("above", [("distance", .number(8.01))]), item("none"),
    ])
    #expect(try idSet("InRange(distance, 2, 8)", in: index.index) == ["low", "high"])
    #expect(try idSet("!InRange(distance, 2, 8)", in: index.index) == ["below", "above", "none"])
  }

  @Test func andBindsTighterThanOr() throws {
    let query = #"rating >= 4.8 || stateOrProvince == "Utah" && difficulty == "easy""#
    try expectSame(query) { item in
      numbers(item, "rating").contains { $0 >= 4.8 } || (strings(item, "stateOrProvince") == ["Utah"] && strings(item, "difficulty") == ["easy"])
    }
    let grouped = #"(rating >= 4.8 || stateOrProvince == "Utah") && difficulty == "easy""#
    try expectSame(grouped) { item in
      (numbers(item, "rating").contains { $0 >= 4.8 } || strings(item, "stateOrProvince") == ["Utah"]) && strings(item, "difficulty") == ["easy"]
    }
    #expect(try idSet(query) != idSet(grouped))
  }

  @Test func notTrueAndFalse() throws {
    try expectSame(#"!(domainIdentifier == "trails")"#) { $0.domainIdentifier != "trails" }
    try expectSame("true") { _ in true }
    try expectSame("false") { _ in false }
    try expectSame("!false && rating > 4.9") { numbers($0, "rating").contains { $0 > 4.9 } }
    try expectSame(#"false || domainIdentifier == "trails""#) { $0.domainIdentifier == "trails" }
  }

  // MARK: Item fields

  @Test func domainPatternsCoverSubDomains() throws {
    try expectSame(#"domainIdentifier == "mail*""#) { $0.domainIdentifier?.hasPrefix("mail") == true }
    try expectSame(#"domainIdentifier == "notes*""#) { $0.domainIdentifier?.hasPrefix("notes") == true }
    try expectSame(#"domainIdentifier == "notes""#) { $0.domainIdentifier == "notes" }
    try expectSame(#"kMDItemDomainIdentifier == "mail.sent""#) { $0.domainIdentifier == "mail.sent" }
    #expect(Set(try ids(#"domainIdentifier == "mail*""#).compactMap { id in sampleItems.first { $0.uniqueIdentifier == id }?.domainIdentifier })
      == ["mail.inbox", "mail.sent", "mail.archive"])
  }

  @Test func contentType() throws {
    try expectSame(#"contentType == "email""#) { $0.contentType == "email" }
    try expectSame(#"contentType != "email" && contentType == "*""#) { $0.contentType != nil && $0.contentType != "email" }
  }

  // MARK: Multi-valued attributes

  @Test func anyValueOfAListMatches() throws {
    try expectSame(#"keywords == "waterfall""#) { strings($0, "keywords").contains("waterfall") }
    try expectSame(#"keywords != "waterfall""#) { !strings($0, "keywords").contains("waterfall") }
    try expectSame(#"keywords == "water*"c"#) { strings($0, "keywords").contains { $0.lowercased().hasPrefix("water") } }
    try expectSame(#"authorNames == "Alex Morgan" && recipientNames == "*""#) {
      strings($0, "authorNames").contains("Alex Morgan") && !values($0, "recipientNames").isEmpty
    }
    #expect(try ids(#"keywords == "waterfall""#).count >= 3)
  }

  @Test func presenceAndAbsence() throws {
    try expectSame(#"completionDate == "*""#) { !values($0, "completionDate").isEmpty }
    try expectSame(#"completionDate != "*""#) { values($0, "completionDate").isEmpty }
    try expectSame(#"rating == "*" && dueDate != "*""#) { !values($0, "rating").isEmpty && values($0, "dueDate").isEmpty }
    #expect(try ids(#"completionDate == "*""#).count == 40)
  }

  @Test func aliasesFindTheSameItems() throws {
    #expect(try ids(#"kMDItemTitle == "Mist Trail""#) == ids(#"title == "Mist Trail""#))
    #expect(try ids(#"kMDItemTitle == "Mist Trail""#) == ["trail-1"])
    #expect(try ids(#"kMDItemTextContent == "*NSWindow*""#) == ids(#"textContent == "*NSWindow*""#))
    #expect(try ids(#"kMDItemAuthors == "Alex Morgan""#) == ids(#"authorNames == "Alex Morgan""#))
    #expect(try ids(#"kMDItemStarRating > 4.8"#) == ids("rating > 4.8"))
  }

  // MARK: Strings and modifiers

  @Test func wordMatchingSplitsAtCaseChangesOnlyWithW() throws {
    #expect(try idSet(#"title == "Window"w"#) == ["note-54", "note-55", "note-69"])
    #expect(try idSet(#"title == "window"w"#) == ["md-garage-window"])
    #expect(try idSet(#"title == "window"cw"#) == ["note-54", "note-55", "note-69", "md-garage-window"])
    #expect(try idSet(#"title == "Window"t"#) == ["note-55", "note-69"])
    #expect(try idSet(#"textContent == "NSWindow"w"#) == ["note-55", "mail-41"])
    #expect(try idSet(#"textContent == "Window"w"#).contains("mail-41"))
  }

  @Test func caseAndDiacriticsModifiersOnSampleTitles() throws {
    try expectSame(#"title == "*zurich*"cd"#) { strings($0, "title").contains { TextFolding.fold($0).contains("zurich") } }
    #expect(try !ids(#"title == "*zurich*"cd"#).isEmpty)
    #expect(try ids(#"title == "*zurich*"c"#).isEmpty)
    #expect(try ids(#"title == "mist trail""#).isEmpty)
    #expect(try ids(#"title == "mist trail"c"#) == ["trail-1"])
    #expect(try ids(#"title ==[c] "mist trail""#) == ["trail-1"])
    #expect(try ids(#"title == "MIST*"c"#) == ids(#"title == "Mist*""#))
  }

  @Test func anyTextAttributeAndAnyAttribute() throws {
    try expectSame(#"* == "waterfall"c"#) { item in
      item.attributeSet.contains { _, value in value.elements.contains { $0.stringValue?.lowercased() == "waterfall" } }
    }
    #expect(try ids(#"* == "mail.inbox""#).isEmpty)
    try expectSame(#"** == "mail.inbox""#) { $0.domainIdentifier == "mail.inbox" }
    #expect(try ids(#"** == "trail-17""#) == ["trail-17"])
    #expect(try ids(#"** == "Mist Trail""#) == ["trail-1"])
  }

  @Test func bareValues() throws {
    #expect(try ids("keywords == waterfall") == ids(#"keywords == "waterfall""#))
    #expect(try ids("title == Mist*") == ids(#"title == "Mist*""#))
    #expect(try ids("contentCreationDate == 2025-05-23") == ["trail-1"])
  }

  // MARK: Dates and $time

  /// `$time` queries against an oracle computed from periods Foundation gives.
  @Test(arguments: [
    ("$time.today", 0.0, "day"), ("$time.today(-1)", -1, "day"), ("$time.yesterday", -1, "day"), ("$time.yesterday(-2)", -3, "day"),
    ("$time.this_week", 0, "week"), ("$time.this_week(-1)", -1, "week"), ("$time.last_week", -1, "week"), ("$time.last_week(-1)", -2, "week"),
    ("$time.this_month", 0, "month"), ("$time.this_month(-1)", -1, "month"), ("$time.this_month(-6)", -6, "month"),
    ("$time.this_year", 0, "year"), ("$time.this_year(-1)", -1, "year"),
  ])
  func timePeriodsWithOffsets(function: String, offset: Double, unit: String) throws {
    for zone in [utcZone, pacific, tokyo] {
      let clock = QueryClock(now: sampleNow, timeZone: zone)
      var calendar = Calendar(identifier: .gregorian)
      calendar.timeZone = zone
      calendar.firstWeekday = 2
      calendar.minimumDaysInFirstWeek = 4
      let component: Calendar.Component = ["day": .day, "week": .weekOfYear, "month": .month, "year": .year][unit]!
      let current = try #require(calendar.dateInterval(of: component, for: sampleNow))
      let start = try #require(calendar.date(byAdding: component, value: Int(offset), to: current.start))
      let end = try #require(calendar.date(byAdding: component, value: 1, to: start))
      for attribute in ["contentModificationDate", "contentCreationDate"] {
        try expectSame("\(attribute) == \(function)", {
          self.numbers($0, attribute).contains { $0 >= start.timeIntervalSince1970 && $0 < end.timeIntervalSince1970 }
        }, clock: clock)
        try expectSame("\(attribute) >= \(function)", {
          self.numbers($0, attribute).contains { $0 >= start.timeIntervalSince1970 }
        }, clock: clock)
        try expectSame("\(attribute) < \(function)", {
          self.numbers($0, attribute).contains { $0 < start.timeIntervalSince1970 }
        }, clock: clock)
        try expectSame("\(attribute) > \(function)", {
          self.numbers($0, attribute).contains { $0 >= end.timeIntervalSince1970 }
        }, clock: clock)
      }
    }
  }

  @Test func nowWithAnOffsetInSeconds() throws {
    let dayAgo = sampleNow.addingTimeInterval(-86400).timeIntervalSince1970
    try expectSame("contentModificationDate >= $time.now(-86400)") { self.numbers($0, "contentModificationDate").contains { $0 >= dayAgo } }
    try expectSame("dueDate > $time.now") { self.numbers($0, "dueDate").contains { $0 > sampleNow.timeIntervalSince1970 } }
    #expect(try !ids("contentModificationDate >= $time.now(-86400)").isEmpty)
  }

  @Test func whatChangedYesterdayMatchesTheFixture() throws {
    #expect(try idSet("contentModificationDate == $time.yesterday") == [
      "note-24", "note-75", "note-76", "note-77", "mail-73", "mail-74", "mail-75", "md-reading-list", "md-squamish-2027",
    ])
  }

  @Test func theTimeZoneDecidesTheDayOfADueDate() throws {
    // note-75 is due 2026-12-16T03:00:00Z, which is 19:00 on December 15 in Los Angeles.
    let pacificClock = QueryClock(now: sampleNow, timeZone: pacific)
    #expect(try idSet("dueDate == 2026-12-16").contains("note-75"))
    #expect(try !idSet("dueDate == 2026-12-15").contains("note-75"))
    #expect(try !idSet("dueDate == 2026-12-16", clock: pacificClock).contains("note-75"))
    #expect(try idSet("dueDate == 2026-12-15", clock: pacificClock).contains("note-75"))
    #expect(try idSet(#"dueDate == "2026-12-15""#, clock: pacificClock).contains("note-75"))
    #expect(try idSet("dueDate == $time.iso(2026-12-15)", clock: pacificClock).contains("note-75"))
    #expect(try idSet("dueDate == $time.iso(2026-12-16T03:00:00Z)", clock: pacificClock) == ["note-75"])
  }

  @Test func bareNumbersAndISOStringsAgainstDates() throws {
    // 817300800 seconds after 2001-01-01 is 2026-11-25T12:00:00Z.
    let byNumber = try idSet("contentCreationDate > 817300800")
    #expect(try byNumber == idSet("contentCreationDate > $time.iso(2026-11-25T12:00:00Z)"))
    #expect(try byNumber == idSet(#"contentCreationDate > "2026-11-25T12:00:00Z""#))
    #expect(try byNumber == idSet("contentCreationDate > 2026-11-25T12:00:00Z"))
    let cut = utc(2026, 11, 25, 12).timeIntervalSince1970
    try expectSame("contentCreationDate > 817300800") { self.numbers($0, "contentCreationDate").contains { $0 > cut } }
    #expect(!byNumber.isEmpty)
  }

  @Test func datesBetweenPeriods() throws {
    let start = utc(2026, 10, 1).timeIntervalSince1970, end = utc(2026, 11, 1).timeIntervalSince1970
    try expectSame("contentCreationDate >= $time.this_month(-1) && contentCreationDate < $time.this_month") {
      self.numbers($0, "contentCreationDate").contains { $0 >= start && $0 < end }
    }
    try expectSame("contentCreationDate <= $time.last_month && contentCreationDate >= 2026-10-01") {
      self.numbers($0, "contentCreationDate").contains { $0 >= start && $0 < end }
    }
  }

  // MARK: Text search

  @Test func aBareStringFindsItemsWithEveryWordRankedBestFirst() throws {
    let found = try ids(#""kitchen remodel""#)
    #expect(found.contains("note-41"))
    let evaluator = ExpressionEvaluator(clock: sampleClock)
    let search = try bound(#""kitchen remodel""#)
    let inSwift = try visibleSampleItems.filter { try evaluator.evaluate(search, on: ResultItem(rowid: 0, item: $0)).truth }
    #expect(Set(found) == Set(inSwift.map(\.uniqueIdentifier)))
    let replies = try replies(#""kitchen remodel""#, in: sampleIndex.index)
    let relevances = replies.flatMap(\.content.resultItems).map(\.relevance)
    #expect(relevances == relevances.sorted(by: >))
    #expect(relevances.allSatisfy { $0 > 0 })
  }

  @Test func prefixesAndPhrases() throws {
    #expect(try Set(ids(#""remod*""#)).isSuperset(of: ids(#""remodel""#)))
    #expect(try ids("'remodel kitchen'").count < ids(#""remodel kitchen""#).count)
    #expect(try !ids("'kitchen remodel'").isEmpty)
  }

  @Test func textSearchIgnoresCaseAndDiacritics() throws {
    #expect(try idSet(#""cafe muller""#) == idSet(#""CAFÉ MÜLLER""#))
    #expect(try idSet(#""cafe muller""#).contains("note-60"))
  }

  // MARK: Visibility

  @Test func protectedAndExpiredItemsAreInvisibleUnlessGranted() throws {
    let hidden = ["note-4", "note-13", "note-42", "note-43", "note-48", "mail-1", "mail-5", "mail-19", "note-32", "mail-47"]
    let expired = ["mail-6", "mail-27", "mail-34", "mail-46", "mail-50"]
    let everything = try idSet("search *")
    #expect(everything.isDisjoint(with: hidden + expired))
    #expect(try idSet("title == \"*\"").isDisjoint(with: hidden + expired))
    let privateScope = try idSet("search *", protection: ["private"])
    #expect(privateScope.isSuperset(of: ["note-4", "note-13", "note-42", "note-43", "note-48", "mail-1", "mail-5", "mail-19"]))
    #expect(privateScope.isDisjoint(with: ["note-32", "mail-47"] + expired))
    let both = try idSet("search *", protection: ["private", "finance"])
    #expect(both.isSuperset(of: hidden))
    #expect(both.isDisjoint(with: expired))
    #expect(try idSet(#"title == "*Wi-Fi*"c"#).isEmpty)
    #expect(try idSet(#"title == "*Wi-Fi*"c"#, protection: ["private"]) == ["note-4"])
    // Every disjunct of an OR stays inside the scope, not only the first.
    #expect(try idSet(#"title == "zzz" || title == "*Wi-Fi*"c"#).isEmpty)
    #expect(try idSet(#"title == "zzz" || title == "*Wi-Fi*"c"#, protection: ["private"]) == ["note-4"])
    #expect(try idSet(#"rating > 100 || title == "*" || keywords == "*""#).isDisjoint(with: hidden + expired))
  }

  @Test func otherNamedIndexesInTheSameFileStayApart() throws {
    let file = try TemporaryIndex([item("mine", [("title", .string("alpha"))])])
    let other = try SearchIndex(path: file.index.path, name: "other")
    try other.indexSearchableItems([item("theirs", [("title", .string("alpha beta"))])])
    for query in [#"title == "alpha*""#, #"title == "zzz" || title == "alpha*""#, #""alpha""#, "search *", #"!(title == "zzz") || false"#] {
      #expect(try idSet(query, in: file.index) == ["mine"], "\(query)")
      #expect(try idSet(query, in: other) == ["theirs"], "\(query)")
    }
  }

  @Test func expiryFollowsTheScopesClock() throws {
    // mail-73 expires on 2036-12-05 (the helper fixes the scope's clock to the query's).
    #expect(try idSet("search *").contains("mail-73"))
    #expect(try !idSet("search *", clock: QueryClock(now: utc(2036, 12, 6), timeZone: utcZone)).contains("mail-73"))
    #expect(try idSet("search *", clock: QueryClock(now: utc(2025, 1, 1), timeZone: utcZone)).contains("mail-6"))
  }
}
