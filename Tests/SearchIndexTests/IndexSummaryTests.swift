import Foundation
import Testing
@testable import SearchIndex

/// The summary planners and tool schemas read (`SearchIndex.summary(scope:)`): computed once
/// per generation and scope, stored in the file for later processes, recomputed after a
/// write, and never showing one scope what only another may see.
@Suite struct IndexSummaryTests {
  static let now = utc(2026, 11, 29, 12)

  func withIndex<T>(_ body: (SearchIndex, String) throws -> T) throws -> T {
    try withTemporaryDirectory { dir in
      let path = dir.appendingPathComponent("index.db").path
      let index = try SearchIndex(path: path)
      try index.indexSearchableItems([
        item("t1", domain: "trails", [("title", .string("Mist Trail")), ("stateOrProvince", .string("California")), ("rating", .number(4))]),
        item("t2", domain: "trails", [("title", .string("Half Dome")), ("stateOrProvince", .string("California"))]),
        item("t3", domain: "trails", [("title", .string("Angels Landing")), ("stateOrProvince", .string("Utah"))]),
        item("secret", domain: "vault", protection: "private",
             [("title", .string("Hidden")), ("stateOrProvince", .string("Nevada")), ("codename", .string("Bluebird"))]),
        item("old", domain: "archive", expiration: utc(2026, 12, 1),
             [("title", .string("Expiring")), ("stateOrProvince", .string("Oregon"))]),
      ])
      return try body(index, path)
    }
  }

  /// The rows of the file's summary cache.
  func storedRows(_ path: String) throws -> [(scope: String, generation: Int64)] {
    let db = try Connection(path: path, readOnly: true, create: false)
    // The tallies summaries grow from (`SummaryState`) are stored beside them.
    return try db.rows("SELECT scope, generation FROM summary_cache WHERE scope NOT LIKE 'tally2 %' ORDER BY scope") { ($0.string(0) ?? "", $0.int64(1)) }
  }

  func known(_ summary: IndexSummary, _ attribute: String) -> [String] {
    (summary.knownValues[attribute] ?? []).map(\.value)
  }

  @Test func summaryCountsWhatTheScopeSees() throws {
    try withIndex { index, _ in
      let summary = try index.summary(scope: AccessScope(now: Self.now))
      #expect(summary.items == 4)
      #expect(summary.domainCounts.map(\.name) == ["archive", "trails"])
      #expect(known(summary, "stateOrProvince") == ["California", "Oregon", "Utah"])
      #expect(summary.knownValues["stateOrProvince"]?.first?.count == 2)
      #expect(summary.exampleValues["stateOrProvince"]?.map(\.value) == ["California", "Oregon", "Utah"])
      #expect(summary.attributes.first { $0.name == "rating" }?.count == 1)
      let stats = try index.statistics(scope: AccessScope(now: Self.now))
      #expect(summary.attributes == stats.attributes)
      #expect(summary.domainCounts.map(\.name) == stats.domains.map(\.name))
      #expect(summary.domainCounts.map(\.count) == stats.domains.map(\.count))
    }
  }

  /// A scope that hides nothing reads the value table alone (no item lookups): the same
  /// figures as `statistics` and as the scope-checked reading.
  @Test func aScopeThatHidesNothingCountsTheSame() throws {
    try withIndex { index, _ in
      let scope = AccessScope(now: Self.now, protectionClasses: ["private"])
      let summary = try index.summary(scope: scope)
      #expect(summary.items == 5)
      #expect(summary.attributes == (try index.statistics(scope: scope)).attributes)
      #expect(summary.attributes.first { $0.name == "stateOrProvince" }?.count == 5)
      #expect(known(summary, "stateOrProvince") == ["California", "Nevada", "Oregon", "Utah"])
      #expect(summary.exampleValues["stateOrProvince"]?.map(\.count) == [2, 1, 1, 1])
      #expect(summary.exampleValues["codename"]?.map(\.value) == ["Bluebird"])

      // Content types come from the items when some item has one.
      try index.indexSearchableItems([
        SearchableItem(uniqueIdentifier: "t5", domainIdentifier: "trails", contentType: "trail", protectionClass: nil,
                       attributeSet: AttributeSet([("stateOrProvince", .string("Utah"))])),
      ])
      let typed = try index.summary(scope: scope)
      #expect(typed.knownValues["stateOrProvince"]?.first { $0.value == "Utah" }?.contentTypes == ["trail"])
      #expect(typed.knownValues["stateOrProvince"]?.first { $0.value == "Utah" }?.count == 2)
    }
  }

  @Test func secondReadUsesTheCacheInMemoryAndInTheFile() throws {
    try withIndex { index, path in
      let scope = AccessScope(now: Self.now)
      let first = try index.summary(scope: scope)
      #expect(index.summaryCache.computations.withLock { $0 } == 1)
      #expect(try index.summary(scope: scope) == first)
      #expect(index.summaryCache.computations.withLock { $0 } == 1)
      #expect(try storedRows(path).map(\.scope) == ["[]"])

      // A new process (another handle) reads the stored row: mark it to tell it apart from a
      // recomputation.
      try index.pool.withWriter { db in
        try db.run("UPDATE summary_cache SET summary = replace(summary, '\"items\":4', '\"items\":999')")
      }
      let other = try SearchIndex(path: path)
      #expect(try other.summary(scope: scope).items == 999)
      #expect(other.summaryCache.computations.withLock { $0 } == 0)
    }
  }

  @Test func aWriteInvalidatesTheSummary() throws {
    try withIndex { index, path in
      let scope = AccessScope(now: Self.now)
      let before = try index.summary(scope: scope)
      try index.indexSearchableItems([item("t4", domain: "trails", [("title", .string("Zion")), ("stateOrProvince", .string("Arizona"))])])
      let after = try index.summary(scope: scope)
      #expect(after.generation > before.generation)
      #expect(after.items == 5)
      #expect(known(after, "stateOrProvince").contains("Arizona"))
      #expect(index.summaryCache.computations.withLock { $0 } == 2)
      #expect(try storedRows(path).map(\.generation) == [after.generation])
      // Another handle sees the new generation too.
      #expect(try SearchIndex(path: path).summary(scope: scope).items == 5)

      try index.deleteSearchableItems(withIdentifiers: ["t3"])
      #expect(!known(try index.summary(scope: scope), "stateOrProvince").contains("Utah"))
    }
  }

  @Test func protectedValuesNeverReachAnotherScope() throws {
    try withIndex { index, path in
      let granted = try index.summary(scope: AccessScope(now: Self.now, protectionClasses: ["private"]))
      #expect(known(granted, "stateOrProvince").contains("Nevada"))
      #expect(known(granted, "codename") == ["Bluebird"])
      for reader in [index, try SearchIndex(path: path)] {
        let plain = try reader.summary(scope: AccessScope(now: Self.now))
        #expect(plain.items == 4)
        #expect(!known(plain, "stateOrProvince").contains("Nevada"))
        #expect(plain.knownValues["codename"] == nil)
        #expect(plain.exampleValues["codename"] == nil)
        #expect(!plain.attributes.contains { $0.name == "codename" })
        #expect(!plain.domainCounts.contains { $0.name == "vault" })
        #expect(!plain.jsonValue.compactText.contains("Bluebird"))
        #expect(!plain.jsonValue.compactText.contains("Nevada"))
      }
      #expect(try storedRows(path).map(\.scope) == ["[\"private\"]", "[]"].sorted())
    }
  }

  @Test func anItemThatExpiresLeavesTheSummaryAtOnce() throws {
    try withIndex { index, path in
      #expect(known(try index.summary(scope: AccessScope(now: Self.now)), "stateOrProvince").contains("Oregon"))
      let later = AccessScope(now: utc(2026, 12, 2))
      for reader in [index, try SearchIndex(path: path)] {
        let summary = try reader.summary(scope: later)
        #expect(!known(summary, "stateOrProvince").contains("Oregon"))
        #expect(summary.items == 3)
        // And back: a clock before the expiry sees it again.
        #expect(known(try reader.summary(scope: AccessScope(now: Self.now)), "stateOrProvince").contains("Oregon"))
      }
    }
  }

  @Test func itemCountsLeaveOutHiddenItemsAndOtherNamedIndexes() throws {
    try withIndex { index, path in
      let queries = [#""trail""#, #""hidden""#, #""expiring""#, #""nothing""#]
      #expect(try index.itemCounts(matching: queries, scope: AccessScope(now: Self.now)) == [1, 0, 1, 0])
      #expect(try index.itemCounts(matching: queries, scope: AccessScope(now: utc(2026, 12, 2))) == [1, 0, 0, 0])
      #expect(try index.itemCounts(matching: queries, scope: AccessScope(now: Self.now, protectionClasses: ["private"])) == [1, 1, 1, 0])
      // A second named index in the file shares the full-text table: its items never count.
      let other = try SearchIndex(path: path, name: "other")
      try other.indexSearchableItems([item("o1", [("title", .string("Trail Hidden"))])])
      #expect(try index.itemCounts(matching: queries, scope: AccessScope(now: Self.now)) == [1, 0, 1, 0])
      #expect(try other.itemCounts(matching: queries, scope: AccessScope(now: Self.now)) == [1, 1, 0, 0])
    }
  }

  /// `statistics` reads its items, domains and attribute counts from the summary the file
  /// keeps (counting them again took 26 s at a million items), in the same transaction as
  /// its other counts, so a write in between never mixes two generations.
  @Test func statisticsComeFromTheStoredSummaryOfTheirGeneration() throws {
    try withIndex { index, path in
      let scope = AccessScope(now: Self.now)
      let first = try SearchIndex(path: path, create: false, readOnly: true)
      let stats = try first.statistics(scope: scope)
      #expect(first.summaryCache.computations.withLock { $0 } == 1)
      #expect(stats.items == 4)
      #expect(stats.protectedItems == 1)
      #expect(stats.expiredItems == 0)
      #expect(stats.generation == 1)
      let second = try SearchIndex(path: path, create: false, readOnly: true)
      #expect(try second.statistics(scope: scope) == stats)
      #expect(second.summaryCache.computations.withLock { $0 } == 0, "read from the file, not counted again")
      #expect(try second.summary(scope: scope).attributes == stats.attributes)

      try index.indexSearchableItems([item("t4", domain: "trails", [("title", .string("Delicate Arch")), ("rating", .number(5))])])
      let after = try second.statistics(scope: scope)
      #expect(after.generation == 2)
      #expect(after.items == 5)
      #expect(after.domains.first { $0.name == "trails" }?.count == 4)
      #expect(after.attributes.first { $0.name == "rating" }?.count == 2)
    }
  }

  @Test func anIndexOpenedReadOnlyStillStoresTheSummaryForTheNextProcess() throws {
    try withIndex { _, path in
      let first = try SearchIndex(path: path, create: false, readOnly: true)
      let summary = try first.summary(scope: AccessScope(now: Self.now))
      #expect(first.summaryCache.computations.withLock { $0 } == 1)
      let second = try SearchIndex(path: path, create: false, readOnly: true)
      #expect(try second.summary(scope: AccessScope(now: Self.now)) == summary)
      #expect(second.summaryCache.computations.withLock { $0 } == 0, "read from the file, not computed again")
    }
  }

  @Test func aReadOnlyFileKeepsTheSummaryInMemory() throws {
    try withIndex { index, path in
      _ = try index.statistics()
      try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
      defer { try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path) }
      // Root may write a read-only file anyway; the point is that reading never fails.
      let reader = try SearchIndex(path: path, create: false)
      let summary = try reader.summary(scope: AccessScope(now: Self.now))
      #expect(summary.items == 4)
      #expect(try reader.summary(scope: AccessScope(now: Self.now)) == summary)
      #expect(reader.summaryCache.computations.withLock { $0 } == 1)
    }
  }

  /// The one-pass tally (`tallyValues`) reads the value table once in item order; the SQL it
  /// replaced (`selectValues`, kept for files without `items_type_domain_scope`) joined each value with
  /// its item. Both must give the same attributes, known values and examples, in the same
  /// order, for every scope: hidden and expired items, a second named index, spellings that
  /// fold together, repeated values in one item, values too long to be names, attributes past
  /// the example and known-value limits, URLs, and items without a content type.
  @Test func theOnePassTallyGivesWhatTheSQLGives() throws {
    try withIndex { index, path in
      func typed(
        _ id: String, _ type: String?, protection: String? = nil, expiration: Date? = nil, _ attributes: [(String, AttributeValue)]
      ) -> SearchableItem {
        SearchableItem(
          uniqueIdentifier: id, domainIdentifier: "mixed", contentType: type, expirationDate: expiration, protectionClass: protection,
          attributeSet: AttributeSet(attributes))
      }
      let long = String(repeating: "Long name ", count: 9)  // 90 characters: stored short, listed as no name
      var items: [SearchableItem] = [
        typed("a", "trail", [("stateOrProvince", .string("Utah")), ("keywords", .list([.string("Hike"), .string("hike"), .string("Desert")]))]),
        typed("b", "note", [("stateOrProvince", .string("UTAH")), ("keywords", .list([.string("hike")])), ("contentURL", .url("https://example.com/b"))]),
        typed("c", nil, [("stateOrProvince", .string("utah")), ("keywords", .list([.string("Río"), .string("rio")]))]),
        typed("d", "note", protection: "private", [("stateOrProvince", .string("Ütah")), ("keywords", .list([.string("Secret")]))]),
        typed("e", "trail", expiration: utc(2026, 12, 1), [("stateOrProvince", .string("Idaho")), ("keywords", .list([.string(long)]))]),
        typed("f", "email", [("stateOrProvince", .string(long)), ("contentURL", .url("https://example.com/f"))]),
      ]
      // Thirty spellings (past the twelve examples, within the known values) and 1,005
      // distinct codes (past the known values).
      for number in 0..<1_005 {
        items.append(typed("n\(number)", number.isMultiple(of: 2) ? "note" : "trail", [
          ("projects", .list([.string("Project \(number % 30)")])), ("codename", .string("code-\(number)")),
          ("rating", .number(Double(number % 5))),
        ]))
      }
      try index.indexSearchableItems(items)
      try SearchIndex(path: path, name: "other").indexSearchableItems([
        typed("o1", "trail", [("stateOrProvince", .string("Utah")), ("keywords", .list([.string("Elsewhere")]))]),
      ])
      let scopes = [
        AccessScope(now: Self.now), AccessScope(now: Self.now, protectionClasses: ["private"]), AccessScope(now: utc(2026, 12, 2)),
      ]
      for scope in scopes {
        let (tallied, selected) = try index.read { db in
          let catalog = try SearchIndex.loadCatalog(db)
          let visible = scope.sqlCondition(alias: "i", indexID: index.indexID)
          return (
            try index.tallyValues(db, visible: visible, catalog: catalog),
            try index.selectValues(db, scope: scope, visible: visible, catalog: catalog, untyped: false)
          )
        }
        #expect(tallied.attributes == selected.attributes)
        #expect(tallied.known == selected.known)
        #expect(tallied.examples == selected.examples)
        // The cases the fixture is for are there.
        #expect(tallied.known["codename"] == nil, "1,005 distinct codes are past the known values")
        #expect(tallied.known["projects"]?.count == 30)
        #expect(tallied.examples["projects"] == nil, "thirty spellings are past the examples")
        #expect(tallied.examples["contentURL"]?.count == 2)
        let utah = tallied.known["stateOrProvince"]?.first { $0.fold == "utah" }
        #expect(utah?.value == "UTAH", "the smallest spelling, byte by byte")
        #expect(utah?.count == (scope.protectionClasses.isEmpty ? 4 : 5))
        #expect(utah?.contentTypes == ["note", "trail"], "in name order")
        #expect(tallied.known["keywords"]?.first { $0.fold == "hike" }?.count == 2, "one item with two spellings counts once")
        #expect(tallied.known["stateOrProvince"]?.contains { $0.value == long } == false)
      }
    }
  }

  /// A write of many items leaves the default scope's summary in the file, so the first
  /// `plan` or `ask` after `index` reads it instead of computing it; a small write leaves
  /// it to the first reader.
  @Test func aLargeWriteStoresTheSummaryForTheNextReader() throws {
    try withTemporaryDirectory { dir in
      let path = dir.appendingPathComponent("index.db").path
      try SearchIndex.$analyzeAfterRows.withValue(10) {
        let index = try SearchIndex(path: path)
        try index.indexSearchableItems((0..<5).map { item("s\($0)", domain: "notes", [("title", .string("Small \($0)"))]) })
        #expect(((try? storedRows(path)) ?? []).isEmpty, "a small write computes nothing")
        try index.indexSearchableItems((0..<12).map { item("l\($0)", domain: "trails", [("title", .string("Large \($0)"))]) })
        let generation = try index.read { db in try SearchIndex.generation(in: db) }
        #expect(try storedRows(path).map(\.scope) == ["[]"])
        #expect(try storedRows(path).map(\.generation) == [generation])
        let tally = try Connection(path: path, readOnly: true, create: false)
          .scalar("SELECT generation FROM summary_cache WHERE scope = 'tally2 []'")?.int64Value
        #expect(tally == generation, "the tally it came from, beside it")
        let reader = try SearchIndex(path: path)
        let summary = try reader.summary(scope: AccessScope())
        #expect(reader.summaryCache.computations.withLock { $0 } == 0, "read from the file")
        #expect(summary.items == 17)
        #expect(summary.domainCounts.map(\.name) == ["notes", "trails"])
      }
    }
  }

  /// The summary of the file at `path` computed from the whole value table: a copy of the
  /// file without the summaries stored in it.
  func wholeSummary(_ path: String, scope: AccessScope, in dir: URL) throws -> IndexSummary {
    let copy = dir.appendingPathComponent("whole-\(UUID().uuidString).db").path
    let db = try Connection(path: path, readOnly: true, create: false)
    try db.run("VACUUM INTO ?", [.text(copy)])
    let writable = try Connection(path: copy, readOnly: false, create: false)
    try writable.run("DELETE FROM summary_cache", [])
    let fresh = try SearchIndex(path: copy)
    let summary = try fresh.summary(scope: scope)
    #expect(fresh.summaryCache.additions.withLock { $0 } == 0)
    return summary
  }

  /// After a write that adds, rewrites or deletes items (in this named index or another), the
  /// summary grows from the tally stored with the last one, reading only the changed items'
  /// values, and equals the summary of the whole value table; a write that removes more than
  /// the log takes, a change by a writer that does not log it, and a clock past an expiry
  /// compute it whole.
  @Test func aSummaryAfterAddedItemsGrowsFromTheLastOne() throws {
    try withTemporaryDirectory { dir in
      let path = dir.appendingPathComponent("index.db").path
      let index = try SearchIndex(path: path)
      let other = try SearchIndex(path: path, name: "other")
      var random = SplitMix64(seed: 20)
      let states = ["Utah", "UTAH", "utah", "Ütah", "Idaho", "Oregon", "Nevada", "California"]
      let long = String(repeating: "Long name ", count: 9)
      var next = 0
      func randomItem() -> SearchableItem {
        next += 1
        let pick = { (n: Int) in Int(random.next() % UInt64(n)) }
        var attributes: [(String, AttributeValue)] = [
          ("title", .string("Item \(next)")), ("stateOrProvince", .string(pick(9) == 0 ? long : states[pick(states.count)])),
          ("keywords", .list((0...pick(3)).map { _ in .string(["hike", "Hike", "desert", "río", "rio", "lake"][pick(6)]) })),
          ("rating", .number(Double(pick(5)))), ("codename", .string("code-\(next % 1_100)")),
        ]
        if pick(4) == 0 { attributes.append(("projects", .list([.string("Project \(pick(30))")]))) }
        if pick(6) == 0 { attributes.append(("contentURL", .url("https://example.com/\(next)"))) }
        return SearchableItem(
          uniqueIdentifier: "i\(next)", domainIdentifier: [nil, "trails", "notes", "mail"][pick(4)],
          contentType: [nil, "trail", "note", "email"][pick(4)],
          expirationDate: pick(8) == 0 ? utc(2026, 12, 1 + pick(20)) : nil, protectionClass: pick(6) == 0 ? "private" : nil,
          attributeSet: AttributeSet(attributes))
      }
      let scopes = [
        AccessScope(now: Self.now), AccessScope(now: Self.now, protectionClasses: ["private"]),
      ]
      func check(grew: Bool, _ note: String) throws {
        let before = index.summaryCache.additions.withLock { $0 }
        for scope in scopes {
          let summary = try index.summary(scope: scope)
          let whole = try wholeSummary(path, scope: scope, in: dir)
          #expect(summary == whole, "\(note): \(scope.protectionClasses)")
        }
        #expect(index.summaryCache.additions.withLock { $0 } - before == (grew ? scopes.count : 0), "\(note)")
      }
      try index.indexSearchableItems((0..<300).map { _ in randomItem() })
      try check(grew: false, "first")
      for round in 0..<6 {
        // The codes pass 1,000 distinct values on the way: the known values drop them.
        try index.indexSearchableItems((0..<(round == 2 ? 900 : 40)).map { _ in randomItem() })
        try check(grew: true, "added \(round)")
      }
      try other.indexSearchableItems((0..<20).map { _ in randomItem() })
      try check(grew: true, "added to another named index")
      try index.indexSearchableItems([SearchableItem(uniqueIdentifier: "i5", domainIdentifier: "moved", attributeSet: AttributeSet([("title", .string("Rewritten"))]))])
      try check(grew: true, "rewritten")
      try index.indexSearchableItems((0..<10).map { _ in randomItem() })
      try check(grew: true, "added after a rewrite")
      _ = try index.deleteSearchableItems(withIdentifiers: ["i7", "i8"])
      try check(grew: true, "deleted")
      _ = try other.deleteSearchableItems(withIdentifiers: ["i1410"])
      try index.indexSearchableItems((0..<10).map { _ in randomItem() })
      try check(grew: true, "deleted in another named index, then added")
      // More removals in one write than the log takes (2% of the items): nothing logged, the
      // whole pass.
      _ = try index.deleteSearchableItems(withIdentifiers: (100..<400).map { "i\($0)" })
      try check(grew: false, "deleted more than the log takes")
      try index.indexSearchableItems((0..<10).map { _ in randomItem() })
      try check(grew: true, "added after that")
      try index.indexSearchableItems((0..<10).map { _ in randomItem() })
      try check(grew: true, "added")
      // A writer that does not record what it did (an older binary): it rewrites an item and
      // moves the generation, nothing else.
      let untracked = try Connection(path: path, readOnly: false, create: false)
      try untracked.run("UPDATE items SET domain = 'elsewhere' WHERE id = 'i20'", [])
      try untracked.run("UPDATE meta SET value = value + 1 WHERE key = 'generation'", [])
      try check(grew: false, "an untracked write")
      try index.indexSearchableItems((0..<10).map { _ in randomItem() })
      try check(grew: true, "added after it")
      try untracked.run("UPDATE items SET domain = 'again' WHERE id = 'i21'", [])
      try untracked.run("UPDATE meta SET value = value + 1 WHERE key = 'generation'", [])
      try index.indexSearchableItems((0..<10).map { _ in randomItem() })
      try check(grew: false, "an untracked write, then a tracked one")
      // Past an expiry the same tally no longer holds.
      let later = AccessScope(now: utc(2026, 12, 10))
      _ = try index.summary(scope: later)
      try index.indexSearchableItems((0..<10).map { _ in randomItem() })
      let before = index.summaryCache.additions.withLock { $0 }
      let evenLater = AccessScope(now: utc(2026, 12, 25))
      #expect(try index.summary(scope: evenLater) == (try wholeSummary(path, scope: evenLater, in: dir)))
      #expect(index.summaryCache.additions.withLock { $0 } == before, "items expired between the two clocks")
    }
  }

  /// Rewrites, merges and deletes of every kind, in two named indexes, advance the stored
  /// tally: items that change visibility, domain or type, values whose last holder goes
  /// (the examples and known values of an attribute that had too many come back), a rowid
  /// reused after the largest item is deleted, an item rewritten twice in one write. Every
  /// summary equals the whole value table's; once every tally is current the log is empty.
  @Test func aSummaryAfterRewritesAndDeletesTakesThemOutOfTheLastOne() throws {
    try withTemporaryDirectory { dir in
      let path = dir.appendingPathComponent("index.db").path
      let index = try SearchIndex(path: path)
      let other = try SearchIndex(path: path, name: "other")
      var random = SplitMix64(seed: 21)
      let states = ["Utah", "UTAH", "utah", "Ütah", "Idaho", "Oregon", "Nevada", "California"]
      let long = String(repeating: "Long name ", count: 9)
      var next = 0
      var live: [String] = []
      func pick(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }
      func randomItem(_ id: String? = nil) -> SearchableItem {
        next += 1
        var attributes: [(String, AttributeValue)] = [
          ("title", .string("Item \(next)")), ("stateOrProvince", .string(pick(9) == 0 ? long : states[pick(states.count)])),
          ("keywords", .list((0...pick(3)).map { _ in .string(["hike", "Hike", "desert", "río", "rio", "lake"][pick(6)]) })),
          ("rating", .number(Double(pick(5)))),
          // Just above the maximum of known values: deletes take it below.
          ("codename", .string("code-\(next % 1_010)")),
          // Twelve common values (the most examples listed) and rare ones.
          ("tag", .string(pick(80) == 0 ? "rare \(next)" : "tag \(pick(12))")),
        ]
        if pick(4) == 0 { attributes.append(("projects", .list([.string("Project \(pick(30))")]))) }
        return SearchableItem(
          uniqueIdentifier: id ?? "i\(next)", domainIdentifier: [nil, "trails", "notes", "mail"][pick(4)],
          contentType: [nil, "trail", "note", "email"][pick(4)],
          expirationDate: pick(10) == 0 ? utc(2026, 12, 1 + pick(20)) : nil, protectionClass: pick(5) == 0 ? "private" : nil,
          attributeSet: AttributeSet(attributes))
      }
      func add(_ count: Int, to target: SearchIndex? = nil) throws {
        let items = (0..<count).map { _ in randomItem() }
        try (target ?? index).indexSearchableItems(items)
        if target == nil { live += items.map(\.uniqueIdentifier) }
      }
      func someLive(_ count: Int) -> [String] { (0..<count).map { _ in live[pick(live.count)] } }
      let scopes = [AccessScope(now: Self.now), AccessScope(now: Self.now, protectionClasses: ["private"])]
      var grew = 0
      var rounds = 0
      var reused = 0
      func check(_ note: String) throws {
        let before = index.summaryCache.additions.withLock { $0 }
        for scope in scopes {
          #expect(try index.summary(scope: scope) == (try wholeSummary(path, scope: scope, in: dir)), "\(note): \(scope.protectionClasses)")
        }
        grew += index.summaryCache.additions.withLock { $0 } - before
        rounds += scopes.count
      }
      try add(1_200)
      try add(30, to: other)
      try check("first")
      #expect(try index.summary(scope: scopes[1]).knownValues["codename"] == nil, "more codes than are listed")
      for round in 0..<24 {
        switch round % 6 {
        case 0:
          // Rewritten: new values, maybe another domain, type or protection; the same items
          // again in a second write before the next summary.
          let ids = someLive(8)
          try index.indexSearchableItems(ids.map { randomItem($0) })
          try index.indexSearchableItems(ids.prefix(5).map { randomItem($0) })
        case 1:
          // Merged: one attribute replaced, one removed.
          let ids = someLive(6)
          try index.updateSearchableItems(
            ids.map { SearchableItem(uniqueIdentifier: $0, attributeSet: AttributeSet([("tag", .string("tag \(pick(12))"))])) },
            removing: Dictionary(uniqueKeysWithValues: Set(ids).map { ($0, Set(["keywords"])) }))
        case 2:
          // Deleted, then the largest rowid deleted and reused by a new item in one write.
          let doomed = Set(someLive(10))
          _ = try index.deleteSearchableItems(withIdentifiers: Array(doomed))
          live.removeAll { doomed.contains($0) }
          let reader = try Connection(path: path, readOnly: true, create: false)
          let largest = try reader.rows("SELECT rowid, id FROM items WHERE indexId = 1 ORDER BY rowid DESC LIMIT 1") {
            ($0.int64(0), $0.string(1) ?? "")
          }[0]
          let added = randomItem()
          try index.write { writer in
            _ = try writer.delete(identifiers: [largest.1])
            try writer.upsert(added)
          }
          live.removeAll { $0 == largest.1 }
          live.append(added.uniqueIdentifier)
          let rowid = try reader.scalar("SELECT rowid FROM items WHERE id = ?", [.text(added.uniqueIdentifier)])?.int64Value
          if rowid == largest.0 { reused += 1 }
        case 3:
          // The same item rewritten twice in one write, beside added ones.
          let id = someLive(1)[0]
          try index.write { writer in
            try writer.upsert(randomItem(id))
            try writer.upsert(randomItem(id))
            try writer.upsert(randomItem())
          }
        case 4:
          // A few items gone; the other named index changes too.
          _ = try index.deleteSearchableItems(withIdentifiers: someLive(3))
          _ = try other.deleteSearchableItems(withIdentifiers: ["i\(1_201 + pick(30))"])
          try add(5, to: other)
        default:
          try add(15)
        }
        try check("round \(round)")
      }
      // The values of many deleted items leave the known values and examples within bounds
      // again (a whole pass decides), in several small writes.
      for _ in 0..<6 {
        let doomed = Set(someLive(30))
        _ = try index.deleteSearchableItems(withIdentifiers: Array(doomed))
        live.removeAll { doomed.contains($0) }
        try check("many deleted")
      }
      // The last items with rare tags go: the twelve common ones are listed again.
      let rare = try Connection(path: path, readOnly: true, create: false).rows(
        "SELECT i.id FROM items i JOIN vals v ON v.item = i.rowid JOIN attributes a ON a.id = v.attr WHERE a.name = 'tag' AND v.fold LIKE 'rare%'"
      ) { $0.string(0) ?? "" }
      #expect(try index.summary(scope: scopes[1]).exampleValues["tag"] == nil)
      _ = try index.deleteSearchableItems(withIdentifiers: rare)
      try check("rare tags deleted")
      #expect(try index.summary(scope: scopes[1]).exampleValues["tag"]?.count == 12)
      #expect(grew * 4 >= rounds * 3 && grew < rounds, "\(grew) of \(rounds) summaries grew")
      #expect(reused > 0, "a rowid was reused")
      #expect(try index.summary(scope: scopes[1]).knownValues["codename"] != nil, "the codes are listed again")
      let db = try Connection(path: path, readOnly: true, create: false)
      #expect(try db.scalar("SELECT count(*) FROM summary_removed")?.int64Value == 0, "no tally needs the log")
      #expect(try db.scalar("SELECT count(*) FROM summary_removed_vals")?.int64Value == 0)
    }
  }
}
