import Foundation
import Testing
@testable import SearchIndex

@Suite struct SearchIndexTests {
  /// Runs `body` with a new index in a temporary directory.
  func withIndex<T>(name: String = "default", _ body: (SearchIndex, String) throws -> T) throws -> T {
    try withTemporaryDirectory { dir in
      let path = dir.appendingPathComponent("index.db").path
      return try body(try SearchIndex(path: path, name: name), path)
    }
  }

  /// True when `body` throws the `SearchIndexError` case `matches` accepts.
  func throwsIndexError(_ body: () throws -> Void, _ matches: (SearchIndexError) -> Bool) -> Bool {
    do {
      try body()
      return false
    } catch let error as SearchIndexError {
      return matches(error)
    } catch {
      return false
    }
  }

  static let everyType = SearchableItem(
    uniqueIdentifier: "every-type", domainIdentifier: "tests.types", contentType: "public.text",
    expirationDate: utc(2099, 1, 1).addingTimeInterval(0.5), protectionClass: "private",
    attributeSet: AttributeSet([
      ("title", .string("Café Müller ☕️ \"quoted\"\nsecond line")),
      ("rating", .number(4.5)),
      ("pageCount", .number(-12)),
      ("fileSize", .number(1e20)),
      ("contentCreationDate", .date(utc(2026, 5, 1, 8).addingTimeInterval(0.25))),
      ("allDay", .bool(true)),
      ("likelyJunk", .bool(false)),
      ("contentURL", .url("https://example.com/a?b=c#d")),
      ("keywords", .list([.string("waterfall"), .string("hike")])),
      ("importantDates", .list([.date(utc(2026, 1, 1)), .date(utc(1969, 7, 20, 20, 17, 40))])),
      ("authorNames", .list([])),
      ("distance", .number(5.4)),
      ("nickname", .string("mist")),
      ("visitedOn", .date(utc(2025, 12, 24, 18))),
      ("isOpen", .bool(false)),
      ("homepage", .url("https://trails.example/mist")),
      ("scores", .list([.number(1), .number(2.5)])),
      ("checks", .list([.bool(true), .bool(false)])),
      ("sightings", .list([.date(utc(2026, 3, 1))])),
      ("mirrors", .list([.url("https://a.example"), .url("https://b.example")])),
      ("aliases", .list([.string("Mist"), .string("Mist Falls")])),
    ]))

  // MARK: Round trip

  @Test func everyAttributeTypeRoundTripsThroughTheIndex() throws {
    try withIndex { index, path in
      try index.indexSearchableItems([Self.everyType])
      #expect(try index.item(withIdentifier: "every-type") == Self.everyType)
      #expect(try index.allItems() == [Self.everyType])
      // And through a fresh open of the file, which must rebuild custom types from the catalogue.
      let reopened = try SearchIndex(path: path, create: false)
      #expect(try reopened.item(withIdentifier: "every-type") == Self.everyType)
    }
  }

  /// An app's dates carry microseconds; the record keeps milliseconds. The value rows are
  /// derived from what the record keeps, so `check` finds them in agreement and a comparison
  /// on the value table matches the item as it reads back.
  @Test func datesFinerThanAMillisecondAreStoredAsTheRecordKeepsThem() throws {
    try withIndex { index, _ in
      let fine = Date(timeIntervalSince1970: 1_741_411_978.883_23)
      try index.indexSearchableItems([
        SearchableItem(uniqueIdentifier: "fine", attributeSet: AttributeSet([
          ("contentModificationDate", .date(fine)), ("importantDates", .list([.date(fine.addingTimeInterval(0.000_4))])),
        ]))
      ])
      guard case .date(let stored)? = try index.item(withIdentifier: "fine")?.attributeSet["contentModificationDate"] else {
        Issue.record("no date read back")
        return
      }
      #expect(stored != fine && abs(stored.timeIntervalSince(fine)) < 0.001)
      let numbers = try index.read { db in try db.rows("SELECT num FROM vals WHERE num IS NOT NULL ORDER BY attr") { $0.double(0) } }
      #expect(numbers.contains(stored.timeIntervalSince1970))
      #expect(!numbers.contains(fine.timeIntervalSince1970))
      #expect(try index.checkIntegrity().isHealthy)
    }
  }

  @Test func customTypesAreRecordedInTheCatalogue() throws {
    try withIndex { index, _ throws in
      try index.indexSearchableItems([Self.everyType])
      let catalog = try index.catalog()
      #expect(catalog.customTypes == [
        "distance": .number, "nickname": .string, "visitedOn": .date, "isOpen": .bool, "homepage": .url,
        "scores": .numberList, "checks": AttributeType(.bool, isList: true), "sightings": .dateList,
        "mirrors": AttributeType(.url, isList: true), "aliases": .stringList,
      ])
    }
  }

  @Test func statisticsListEveryAttributeWithItsTypeAndCount() throws {
    try withIndex { index, _ throws in
      try index.indexSearchableItems([
        item("a", domain: "trails", [("title", .string("A")), ("distance", .number(1)), ("keywords", .list([.string("x"), .string("y")]))]),
        item("b", domain: "trails", [("title", .string("B"))]),
        item("c", domain: "notes", [("title", .string("C")), ("distance", .number(2))]),
      ])
      let stats = try index.statistics()
      #expect(stats.items == 3)
      #expect(stats.domains.map(\.name) == ["notes", "trails"])
      #expect(stats.domains.map(\.count) == [1, 2])
      #expect(stats.attributes == [
        .init(name: "distance", type: .number, count: 2, isCustom: true),
        .init(name: "keywords", type: .stringList, count: 1, isCustom: false),
        .init(name: "title", type: .string, count: 3, isCustom: false),
      ])
      #expect(stats.jsonValue["items"] == 3)
      #expect(stats.jsonValue["domains"] == ["notes": 1, "trails": 2])
      #expect(stats.jsonValue["attributes"]?.arrayValue?.first == [
        "name": "distance", "type": "number", "count": 2, "custom": true,
      ])
    }
  }

  // MARK: Upsert and merge

  @Test func indexingAnExistingIdentifierReplacesTheWholeItem() throws {
    try withIndex { index, _ throws in
      try index.indexSearchableItems([
        SearchableItem(
          uniqueIdentifier: "a", domainIdentifier: "old", contentType: "note", protectionClass: nil,
          attributeSet: AttributeSet([("title", .string("Old")), ("rating", .number(1))])),
      ])
      let replacement = item("a", domain: "new", [("title", .string("New"))])
      try index.indexSearchableItems([replacement])
      #expect(try index.allItems() == [replacement])
      let stats = try index.statistics()
      #expect(stats.items == 1)
      #expect(stats.domains.map(\.name) == ["new"])
      #expect(stats.attributes.map(\.name) == ["title"])
    }
  }

  @Test func anUpdateKeepsOrReplacesTheTextIndexesAsItsTextsDemand() throws {
    try withIndex { index, _ throws in
      func matches(_ word: String) throws -> [Int64] {
        try index.read { db in try db.rows("SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rowid", [.text(word)]) { $0.int64(0) } }
      }
      func ranked(_ word: String) throws -> [Int64]? {
        try index.read { db in try index.rankedSearch([QueryTerm(word)], k: 5, in: db)?.map { Int64($0.id) } }
      }
      let texts: [(String, AttributeValue)] = [("title", .string("Granite ridge")), ("textContent", .string("A quartz vein runs north."))]
      try index.indexSearchableItems([item("a", texts + [("rating", .number(1))]), item("b", [("title", .string("Basalt"))])])
      let before = try (matches("quartz"), ranked("quartz"))
      // Only a rating changes: the texts stay indexed as they were.
      try index.indexSearchableItems([item("a", texts + [("rating", .number(5))])])
      #expect(try matches("quartz") == before.0 && ranked("quartz") == before.1 && !before.0.isEmpty)
      #expect(try index.item(withIdentifier: "a")?.attributeSet["rating"] == .number(5))
      #expect(try index.checkIntegrity().isHealthy)
      // The text changes: the old words leave both indexes, the new ones come in.
      try index.indexSearchableItems([item("a", [("title", .string("Granite ridge")), ("textContent", .string("A feldspar vein."))])])
      #expect(try matches("quartz").isEmpty && ranked("quartz")?.isEmpty == true)
      #expect(try matches("feldspar") == before.0 && ranked("feldspar") == before.1)
      #expect(try index.checkIntegrity().isHealthy)
    }
  }

  @Test func mergeUpdateChangesOnlyTheGivenAttributesAndRemovesNamedOnes() throws {
    try withIndex { index, _ throws in
      try index.indexSearchableItems([
        SearchableItem(
          uniqueIdentifier: "a", domainIdentifier: "notes", contentType: "note", protectionClass: "private",
          attributeSet: AttributeSet([
            ("title", .string("Title")), ("rating", .number(1)), ("keywords", .list([.string("k")])),
          ])),
      ])
      try index.updateSearchableItems(
        [item("a", [("rating", .number(5)), ("distance", .number(3))])], removing: ["a": ["keywords"]])
      #expect(try index.item(withIdentifier: "a") == SearchableItem(
        uniqueIdentifier: "a", domainIdentifier: "notes", contentType: "note", protectionClass: "private",
        attributeSet: AttributeSet([("title", .string("Title")), ("rating", .number(5)), ("distance", .number(3))])))
      let stats = try index.statistics(scope: AccessScope(protectionClasses: ["private"]))
      #expect(stats.attributes.map(\.name) == ["distance", "rating", "title"])
    }
  }

  @Test func mergeUpdateChangesItemFieldsOnlyWhenGiven() throws {
    try withIndex { index, _ throws in
      try index.indexSearchableItems([item("a", domain: "notes", [("title", .string("T"))])])
      try index.updateSearchableItems([item("a", domain: "archive")])
      #expect(try index.item(withIdentifier: "a") == item("a", domain: "archive", [("title", .string("T"))]))
    }
  }

  @Test func mergeUpdateRemovesAttributesSetToNullInTheInput() throws {
    try withIndex { index, _ throws in
      try index.indexSearchableItems([item("a", [("title", .string("T")), ("rating", .number(1))])])
      var decoder = ItemDecoder(catalog: try index.catalog())
      let (update, removed) = try decoder.decodeUpdate(try json(#"{"id":"a","attributes":{"title":null,"rating":2}}"#))
      try index.updateSearchableItems([update], removing: ["a": removed])
      #expect(try index.item(withIdentifier: "a") == item("a", [("rating", .number(2))]))
    }
  }

  @Test func mergeUpdateOfAnUnknownItemAddsIt() throws {
    try withIndex { index, _ throws in
      try index.updateSearchableItems([item("new", [("title", .string("N"))])])
      #expect(try index.allItems() == [item("new", [("title", .string("N"))])])
    }
  }

  // MARK: Deleting

  @Test func deletingADomainDeletesItsSubDomainsButNotLookAlikes() throws {
    try withIndex { index, _ throws in
      let domains = ["mail", "mail.inbox", "mail.sent.archive", "mailbox", "mail2", "mail-x", "mail_x", "email", "mail/x"]
      try index.indexSearchableItems(domains.map { item("in-\($0)", domain: $0) } + [item("no-domain")])
      #expect(try index.deleteSearchableItems(withDomainIdentifiers: ["mail"]) == 3)
      let left = try index.allItems().map(\.uniqueIdentifier)
      #expect(left == ["in-email", "in-mail-x", "in-mail/x", "in-mail2", "in-mail_x", "in-mailbox", "no-domain"])
    }
  }

  @Test func deletingASubDomainKeepsItsParentAndSiblings() throws {
    try withIndex { index, _ throws in
      let domains = ["mail", "mail.inbox", "mail.inbox.flagged", "mail.inboxes", "mail.sent"]
      try index.indexSearchableItems(domains.map { item($0, domain: $0) })
      #expect(try index.deleteSearchableItems(withDomainIdentifiers: ["mail.inbox"]) == 2)
      #expect(try index.allItems().map(\.uniqueIdentifier) == ["mail", "mail.inboxes", "mail.sent"])
    }
  }

  /// Thousands of domains at once (more than one statement's parameters hold), overlapping
  /// ("d7" and its sub-domain "d7.sub"): each item is deleted and counted once.
  @Test func deletingThousandsOfDomainsAtOnce() throws {
    try withIndex { index, _ throws in
      try index.indexSearchableItems((0..<30).map { item("i\($0)", domain: $0 % 3 == 0 ? "d\($0).sub" : "d\($0)") })
      let domains = (0..<12_000).map { "d\($0)" } + ["d7.sub", "d9.sub"]
      #expect(try index.deleteSearchableItems(withDomainIdentifiers: domains.filter { $0 != "d29" }) == 29)
      #expect(try index.allItems().map(\.uniqueIdentifier) == ["i29"])
    }
  }

  @Test func deletingSeveralDomainsAndIdentifiers() throws {
    try withIndex { index, _ throws in
      try index.indexSearchableItems([
        item("a", domain: "x"), item("b", domain: "y.z"), item("c", domain: "w"), item("d", domain: "w"), item("e"),
      ])
      #expect(try index.deleteSearchableItems(withDomainIdentifiers: ["x", "y"]) == 2)
      #expect(try index.deleteSearchableItems(withIdentifiers: ["c", "missing"]) == 1)
      #expect(try index.allItems().map(\.uniqueIdentifier) == ["d", "e"])
      #expect(try index.deleteAllSearchableItems() == 2)
      #expect(try index.allItems().isEmpty)
      #expect(try index.statistics().attributes.isEmpty)
    }
  }

  // MARK: Expiration

  @Test func expiredItemsAreInvisibleToStatisticsAtOnce() throws {
    try withIndex { index, _ throws in
      try index.indexSearchableItems([
        item("past", domain: "d", expiration: utc(2026, 5, 1), [("title", .string("P")), ("distance", .number(1))]),
        item("future", domain: "d", expiration: utc(2026, 7, 1), [("title", .string("F"))]),
        item("never", domain: "e", [("title", .string("N"))]),
        item("boundary", domain: "d", expiration: utc(2026, 6, 1), [("title", .string("B"))]),
      ])
      let june = try index.statistics(scope: AccessScope(now: utc(2026, 6, 1)))
      #expect(june.items == 2)
      #expect(june.expiredItems == 2)
      #expect(june.domains.map(\.name) == ["d", "e"])
      #expect(june.domains.map(\.count) == [1, 1])
      #expect(june.attributes.map(\.name) == ["title"])
      #expect(june.attributes.first?.count == 2)

      let august = try index.statistics(scope: AccessScope(now: utc(2026, 8, 1)))
      #expect(august.items == 1)
      #expect(august.expiredItems == 3)

      // The owning app still sees every stored item until maintenance purges them.
      #expect(try index.allItems().count == 4)
    }
  }

  @Test func purgeRemovesExactlyTheItemsExpiredAtThatMoment() throws {
    try withIndex { index, _ throws in
      try index.indexSearchableItems([
        item("past", expiration: utc(2026, 5, 1)), item("boundary", expiration: utc(2026, 6, 1)),
        item("future", expiration: utc(2026, 7, 1)), item("never"),
      ])
      #expect(try index.purgeExpiredItems(now: utc(2026, 6, 1)) == 2)
      #expect(try index.allItems().map(\.uniqueIdentifier) == ["future", "never"])
      #expect(try index.statistics(scope: AccessScope(now: utc(2026, 6, 1))).expiredItems == 0)
      #expect(try index.purgeExpiredItems(now: utc(2026, 6, 1)) == 0)
    }
  }

  // MARK: Protection classes

  @Test func protectedItemsAreVisibleOnlyToScopesThatGrantTheirClass() throws {
    try withIndex { index, _ throws in
      try index.indexSearchableItems([
        item("public", domain: "open", [("title", .string("P"))]),
        item("secret", domain: "vault", protection: "private", [("title", .string("S")), ("pin", .number(1234))]),
        item("work", domain: "office", protection: "work", [("title", .string("W"))]),
      ])
      let none = try index.statistics()
      #expect(none.items == 1)
      #expect(none.protectedItems == 2)
      #expect(none.domains.map(\.name) == ["open"])
      #expect(none.attributes.map(\.name) == ["title"])

      let privateOnly = try index.statistics(scope: AccessScope(protectionClasses: ["private"]))
      #expect(privateOnly.items == 2)
      #expect(privateOnly.protectedItems == 1)
      #expect(privateOnly.domains.map(\.name) == ["open", "vault"])
      #expect(privateOnly.attributes.map(\.name) == ["pin", "title"])

      let both = try index.statistics(scope: AccessScope(protectionClasses: ["private", "work"]))
      #expect(both.items == 3)
      #expect(both.protectedItems == 0)

      let other = try index.statistics(scope: AccessScope(protectionClasses: ["other"]))
      #expect(other.items == 1)
    }
  }

  @Test func anExpiredProtectedItemIsInvisibleEvenToItsClass() throws {
    try withIndex { index, _ throws in
      try index.indexSearchableItems([item("s", expiration: utc(2026, 1, 1), protection: "private")])
      let stats = try index.statistics(scope: AccessScope(now: utc(2026, 6, 1), protectionClasses: ["private"]))
      #expect(stats.items == 0)
      #expect(stats.expiredItems == 1)
    }
  }

  // MARK: Batches and client state

  @Test func aBatchCommitsItsChangesAndClientStateTogether() throws {
    try withIndex { index, _ throws in
      try index.indexSearchableItems([item("old", domain: "mail.inbox"), item("keep")])
      let generation = try index.generation()
      let batch = index.beginBatch()
      batch.indexSearchableItems([item("a", [("title", .string("A"))]), item("b")])
      batch.updateSearchableItems([item("a", [("rating", .number(2))])])
      batch.deleteSearchableItems(withIdentifiers: ["b"])
      batch.deleteSearchableItems(withDomainIdentifiers: ["mail"])
      try batch.endBatch(clientState: Data("v1".utf8))
      #expect(try index.allItems() == [item("a", [("title", .string("A")), ("rating", .number(2))]), item("keep")])
      #expect(try index.fetchLastClientState() == Data("v1".utf8))
      #expect(try index.generation() == generation + 1)
    }
  }

  @Test func aBatchWithOneBadItemWritesNothing() throws {
    try withIndex { index, _ throws in
      try index.indexSearchableItems([item("existing", [("title", .string("E"))])])
      let before = try index.allItems()
      let generation = try index.generation()
      let batch = index.beginBatch()
      batch.deleteAllSearchableItems()
      batch.indexSearchableItems([item("a", [("color", .string("red"))]), item("b")])
      batch.indexSearchableItems([item("c", [("rating", .string("five"))])])
      #expect(throwsIndexError({ try batch.endBatch(clientState: Data("v1".utf8)) }) {
        if case .invalidItem(let id, _) = $0 { return id == "c" }
        return false
      })
      #expect(try index.allItems() == before)
      #expect(try index.fetchLastClientState() == nil)
      #expect(try index.generation() == generation)
      #expect(try index.catalog().type(of: "color") == nil)
    }
  }

  @Test func aClientStateMismatchIsAnErrorAndWritesNothing() throws {
    try withIndex { index, _ throws in
      let first = index.beginBatch()
      first.indexSearchableItems([item("a")])
      try first.endBatch(clientState: Data("v1".utf8))
      let generation = try index.generation()

      let stale = index.beginBatch()
      stale.indexSearchableItems([item("b")])
      stale.deleteSearchableItems(withIdentifiers: ["a"])
      #expect(throwsIndexError({ try stale.endBatch(clientState: Data("v2".utf8), expectedClientState: Data("v0".utf8)) }) {
        if case .clientStateMismatch(let expected, let actual) = $0 {
          return expected == Array("v0".utf8) && actual == Array("v1".utf8)
        }
        return false
      })
      #expect(try index.allItems().map(\.uniqueIdentifier) == ["a"])
      #expect(try index.fetchLastClientState() == Data("v1".utf8))
      #expect(try index.generation() == generation)

      let current = index.beginBatch()
      current.indexSearchableItems([item("b")])
      try current.endBatch(clientState: Data("v2".utf8), expectedClientState: Data("v1".utf8))
      #expect(try index.allItems().map(\.uniqueIdentifier) == ["a", "b"])
      #expect(try index.fetchLastClientState() == Data("v2".utf8))
    }
  }

  @Test func expectingAClientStateWhenNoneIsStoredIsAMismatch() throws {
    try withIndex { index, _ throws in
      let batch = index.beginBatch()
      batch.indexSearchableItems([item("a")])
      #expect(throwsIndexError({ try batch.endBatch(clientState: Data("v1".utf8), expectedClientState: Data("v0".utf8)) }) {
        if case .clientStateMismatch(_, let actual) = $0 { return actual == nil }
        return false
      })
      #expect(try index.allItems().isEmpty)
      #expect(try index.fetchLastClientState() == nil)
    }
  }

  @Test func clientStateMismatchDescriptionSaysNothingWasWritten() {
    let error = SearchIndexError.clientStateMismatch(expected: Array("v0".utf8), actual: nil)
    #expect(error.description == "client state mismatch: expected \"v0\", found none; nothing was written")
  }

  @Test func aBatchCannotEndTwice() throws {
    try withIndex { index, _ throws in
      let batch = index.beginBatch()
      batch.indexSearchableItems([item("a")])
      try batch.endBatch(clientState: Data("v1".utf8))
      let generation = try index.generation()
      #expect(throwsIndexError({ try batch.endBatch(clientState: Data("v2".utf8)) }) {
        if case .invalidItem = $0 { return true }
        return false
      })
      #expect(try index.fetchLastClientState() == Data("v1".utf8))
      #expect(try index.generation() == generation)
    }
  }

  // MARK: Failed writes

  struct Interrupted: Error {}

  @Test func aWriteThatThrowsLeavesTheIndexUnchanged() throws {
    try withIndex { index, _ throws in
      try index.indexSearchableItems([item("a", [("title", .string("A"))])])
      let before = try index.allItems()
      let generation = try index.generation()
      #expect(throws: Interrupted.self) {
        try index.write { writer in
          try writer.upsert(item("b", [("brandNew", .string("x"))]))
          _ = try writer.delete(identifiers: ["a"])
          try writer.setClientState(Array("half".utf8))
          throw Interrupted()
        }
      }
      #expect(try index.allItems() == before)
      #expect(try index.generation() == generation)
      #expect(try index.fetchLastClientState() == nil)
      #expect(try index.catalog().type(of: "brandNew") == nil)
    }
  }

  @Test func aCallWithOneInvalidItemWritesNoneOfThem() throws {
    try withIndex { index, _ throws in
      #expect(throwsIndexError({
        try index.indexSearchableItems([item("good", [("color", .string("red"))]), item("bad", domain: "a..b")])
      }) {
        if case .invalidItem(let id, _) = $0 { return id == "bad" }
        return false
      })
      #expect(throwsIndexError({
        try index.indexSearchableItems([item("one", [("shade", .string("red"))]), item("two", [("shade", .number(1))])])
      }) {
        if case .invalidItem(let id, let message) = $0 { return id == "two" && message == "attribute 'shade' is string, got number" }
        return false
      })
      #expect(throwsIndexError({ try index.indexSearchableItems([item("")]) }) {
        if case .invalidItem = $0 { return true }
        return false
      })
      #expect(throwsIndexError({
        try index.indexSearchableItems([item("f", [("contentType", .string("email"))])])
      }) {
        if case .invalidItem = $0 { return true }
        return false
      })
      #expect(try index.allItems().isEmpty)
      #expect(try index.generation() == 0)
      #expect(try index.catalog().customTypes.isEmpty)
    }
  }

  // MARK: Files

  @Test func namedIndexesInOneFileAreIndependent() throws {
    try withTemporaryDirectory { dir in
      let path = dir.appendingPathComponent("shared.db").path
      let alpha = try SearchIndex(path: path, name: "alpha")
      let beta = try SearchIndex(path: path, name: "beta")
      try alpha.indexSearchableItems([item("shared", domain: "d", [("title", .string("Alpha"))])])
      try beta.indexSearchableItems([item("shared", domain: "d", [("title", .string("Beta"))]), item("only-beta", domain: "d")])
      let batch = alpha.beginBatch()
      try batch.endBatch(clientState: Data("alpha-1".utf8))

      #expect(try alpha.allItems() == [item("shared", domain: "d", [("title", .string("Alpha"))])])
      #expect(try beta.allItems().map(\.uniqueIdentifier) == ["only-beta", "shared"])
      #expect(try beta.item(withIdentifier: "shared")?.attributeSet.title == "Beta")
      #expect(try beta.fetchLastClientState() == nil)
      #expect(try alpha.statistics().items == 1)
      #expect(try beta.statistics().items == 2)
      #expect(try alpha.indexNames() == ["alpha", "beta"])

      #expect(try alpha.deleteSearchableItems(withDomainIdentifiers: ["d"]) == 1)
      #expect(try beta.statistics().items == 2)
      #expect(try beta.deleteAllSearchableItems() == 2)
      #expect(try alpha.allItems().isEmpty)
      #expect(try alpha.fetchLastClientState() == Data("alpha-1".utf8))
    }
  }

  @Test func reopeningAFileKeepsEverything() throws {
    try withTemporaryDirectory { dir in
      let path = dir.appendingPathComponent("keep.db").path
      let expectedItems: [SearchableItem]
      let expectedGeneration: Int64
      do {
        let index = try SearchIndex(path: path)
        let batch = index.beginBatch()
        batch.indexSearchableItems([Self.everyType, item("plain", domain: "notes", [("title", .string("Plain"))])])
        try batch.endBatch(clientState: Data([0, 1, 2, 255]))
        try index.deleteSearchableItems(withIdentifiers: ["plain"])
        expectedItems = try index.allItems()
        expectedGeneration = try index.generation()
      }
      let reopened = try SearchIndex(path: path, create: false)
      #expect(try reopened.allItems() == expectedItems)
      #expect(expectedItems == [Self.everyType])
      #expect(try reopened.fetchLastClientState() == Data([0, 1, 2, 255]))
      #expect(try reopened.generation() == expectedGeneration)
      #expect(expectedGeneration == 2)
      #expect(try reopened.catalog().type(of: "mirrors") == AttributeType(.url, isList: true))
    }
  }

  @Test func aNewIndexFileUsesWriteAheadLogging() throws {
    try withIndex { index, path in
      try index.indexSearchableItems([item("a")])
      let header = try #require(FileManager.default.contents(atPath: path)).prefix(20)
      // Bytes 18 and 19 of the SQLite header are 2 for WAL mode, 1 for a rollback journal.
      #expect(Array(header.suffix(2)) == [2, 2])
    }
  }

  @Test func openingAnSQLiteFileThatIsNotAnIndexFailsAndLeavesItAlone() throws {
    try withTemporaryDirectory { dir in
      let path = dir.appendingPathComponent("other.db").path
      do {
        let connection = try Connection(path: path)
        try connection.execute("CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes(body) VALUES ('hi')")
      }
      let before = try #require(FileManager.default.contents(atPath: path))
      #expect(throwsIndexError({ _ = try SearchIndex(path: path) }) {
        if case .notAnIndex(let failing, let reason) = $0 {
          return failing == path && reason == "it is an SQLite database without Searchlight's tables"
        }
        return false
      })
      #expect(FileManager.default.contents(atPath: path) == before)
    }
  }

  @Test(arguments: [
    Array("this is plainly not an SQLite database\n".utf8),
    Array("SQLite format 3\0".utf8) + [UInt8](repeating: 0xAB, count: 4096),
  ])
  func openingAGarbageFileIsNotAnIndex(_ bytes: [UInt8]) throws {
    try withTemporaryDirectory { dir in
      let path = dir.appendingPathComponent("garbage.db").path
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      #expect(throwsIndexError({ _ = try SearchIndex(path: path) }) {
        if case .notAnIndex(let failing, _) = $0 { return failing == path }
        return false
      })
      #expect(FileManager.default.contents(atPath: path) == Data(bytes))
    }
  }

  @Test func openingAMissingFileWithoutCreateFailsAndCreatesNothing() throws {
    try withTemporaryDirectory { dir in
      let path = dir.appendingPathComponent("missing.db").path
      #expect(throwsIndexError({ _ = try SearchIndex(path: path, create: false) }) {
        if case .missingIndex(let missing) = $0 { return missing == path }
        return false
      })
      #expect(!FileManager.default.fileExists(atPath: path))
    }
  }

  @Test func anIndexFromANewerSchemaIsRefused() throws {
    try withIndex { _, path in
      let connection = try Connection(path: path)
      try connection.execute("UPDATE meta SET value = 99 WHERE key = 'schemaVersion'")
      #expect(throwsIndexError({ _ = try SearchIndex(path: path) }) {
        if case .unsupportedVersion(_, let version) = $0 { return version == 99 }
        return false
      })
    }
  }

  // MARK: Generation

  @Test func theGenerationCountsCommittedWrites() throws {
    try withIndex { index, _ throws in
      #expect(try index.generation() == 0)
      try index.indexSearchableItems([item("a"), item("b"), item("c")])
      #expect(try index.generation() == 1)
      try index.updateSearchableItems([item("a", [("title", .string("A"))])])
      #expect(try index.generation() == 2)
      try index.deleteSearchableItems(withIdentifiers: ["b"])
      #expect(try index.generation() == 3)
      let batch = index.beginBatch()
      batch.indexSearchableItems([item("d")])
      batch.deleteSearchableItems(withIdentifiers: ["c"])
      try batch.endBatch(clientState: Data("s".utf8))
      #expect(try index.generation() == 4)
      // Writes that change nothing leave it alone.
      try index.deleteSearchableItems(withIdentifiers: ["missing"])
      try index.deleteSearchableItems(withDomainIdentifiers: ["nowhere"])
      try index.purgeExpiredItems(now: utc(2026, 1, 1))
      try index.indexSearchableItems([])
      #expect(try index.generation() == 4)
      #expect(try index.statistics().generation == 4)
    }
  }
}
