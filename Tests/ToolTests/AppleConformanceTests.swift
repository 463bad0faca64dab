import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Testing

/// Constructs of Apple's `FullArguments` schema that models tuned on SpotlightSearchTool
/// send: each is accepted and does what it says, checked by its effect on the samples
/// (order, counts, replies) rather than by the query text it becomes.
@Suite struct AppleConformanceTests {
  typealias C = Call

  /// The ids of a call's item replies, in order, joined.
  static func ids(_ call: String, identity: Identity = Identity()) throws -> [String] {
    let request = try Harness.searchRequest(call, identity: identity)
    return try Harness.run(request.query, options: Harness.options(identity: identity)).flatMap { $0.content.resultItems.map(\.id) }
  }

  static func fingerprint(_ call: String, identity: Identity = Identity()) throws -> [String] {
    let request = try Harness.searchRequest(call, identity: identity)
    return Harness.fingerprint(try Harness.run(request.query, options: Harness.options(identity: identity)))
  }

  /// The items a call's tool result carries, over every reply.
  static func items(_ call: String) throws -> [ResultItem] {
    let result = try Harness.tool().call(call)
    #expect(!result.isError, "\(result.text)")
    return result.replies.flatMap(\.content.resultItems)
  }

  /// The items of the query a call decodes to, every one (the tool returns a page).
  static func decodedItems(_ call: String) throws -> [ResultItem] {
    try Harness.run(try Harness.searchRequest(call).query).flatMap(\.content.resultItems)
  }

  // MARK: forEach

  @Test func forEachCountsEachGroup() throws {
    let call = C.pipeline([C.trailsStage, C.stage("g", "groupBy", #"{"from":"q","attribute":"stateOrProvince"}"#),
                           C.stage("f", "forEach", #"{"from":"g","operation":"count"}"#)])
    let expected = Harness.fingerprint(try Harness.run(#"search domainIdentifier == "trails" | group by stateOrProvince | count"#))
    #expect(try Self.fingerprint(call) == expected)
    #expect(expected.first?.hasPrefix("table: stateOrProvince|count / ") == true, "\(expected)")
  }

  @Test(arguments: [false, true])
  func forEachComputesAStatisticPerGroup(listedOutOfOrder: Bool) throws {
    // Linear (each stage reads the one before) and not (the groupBy listed last).
    let group = C.stage("g", "groupBy", #"{"from":"q","attribute":"difficulty"}"#)
    let each = C.stage("f", "forEach", #"{"from":"g","operation":"stats avg(rating)"}"#)
    let call = C.pipeline(listedOutOfOrder ? [C.trailsStage, each, group] : [C.trailsStage, group, each])
    let fingerprint = try Self.fingerprint(call)
    #expect(fingerprint == Harness.fingerprint(try Harness.run(#"search domainIdentifier == "trails" | stats avg(rating) by difficulty"#)))
    #expect(fingerprint.count == 1, "the groupBy read only by the statistic is no reply of its own: \(fingerprint)")
  }

  @Test func forEachRunsAStageForEachItem() throws {
    let call = C.pipeline([C.query("q", C.allText("lake"), #""limit":5"#), C.stage("f", "forEach", #"{"from":"q","operation":"table title, rating"}"#)])
    let replies = try Harness.run(try Harness.searchRequest(call).query)
    guard case .table(let table)? = replies.last?.content else { Issue.record("not a table: \(Harness.fingerprint(replies))"); return }
    let lakes = try Harness.run(#"search "lake" | top 5"#).flatMap { $0.content.resultItems }
    #expect(table.columns == ["title", "rating"])
    #expect(table.rows.map { $0[0].displayText } == lakes.compactMap(\.item.attributeSet.title), "one row per item, in order")
    #expect(table.rows.count == 5)
  }

  @Test func forEachSelectsOneItemOfEachGroup() throws {
    let call = C.pipeline([C.trailsStage, C.stage("g", "groupBy", #"{"from":"q","attribute":"difficulty"}"#),
                           C.stage("f", "forEach", #"{"from":"g","operation":"select max-by rating"}"#)])
    #expect(try Self.fingerprint(call) == Harness.fingerprint(try Harness.run(#"search domainIdentifier == "trails" | group by difficulty | select max-by rating"#)))
  }

  @Test func forEachWithAPromptNeedsAModelAndSaysWhere() throws {
    let call = C.pipeline([C.trailsStage, C.stage("f", "forEach", #"{"from":"q","operation":"write a one-line summary of the trail"}"#)])
    let result = try Harness.tool().call(call)
    #expect(result.error?.path == "$.query.value.pipeline.stages[1].kind.value.operation")
    #expect(result.error?.message.contains("is an instruction for a model") == true)
    #expect(result.replies.isEmpty)
  }

  @Test func extractGroupItemsSkipsTheOffset() throws {
    func ids(_ fields: String) throws -> [String] {
      try Self.ids(C.pipeline([C.trailsStage, C.stage("g", "groupBy", #"{"from":"q","attribute":"difficulty"}"#),
                               C.stage("e", "extractGroupItems", #"{"from":"g","groupKey":"moderate"\#(fields)}"#)]))
    }
    let all = try ids("")
    #expect(all.count > 6)
    #expect(try ids(#","offset":2,"limit":3"#) == Array(all.dropFirst(2).prefix(3)))
    #expect(try ids(#","offset":4"#) == Array(all.dropFirst(4)))
  }

  // MARK: postFilters

  @Test func postFiltersApplyAfterRanking() throws {
    let filtered = C.root(C.allText("lake"), #""postFilters":["rating >= 4.8","stateOrProvince != \"Colorado\"cd"],"pageSize":50"#)
    let ids = try Self.ids(filtered)
    let all = try Self.ids(C.root(C.allText("lake"), #""pageSize":50"#))
    #expect(!ids.isEmpty)
    #expect(ids.count < all.count, "the filters drop items")
    #expect(ids == all.filter(Set(ids).contains), "the ranked order is kept")
    let expected = try Harness.run(#"search "lake" | where rating >= 4.8 && stateOrProvince != "Colorado"cd | top 51"#).flatMap { $0.content.resultItems.map(\.id) }
    #expect(ids == expected)
  }

  @Test func postFiltersFollowTheRankingModel() throws {
    let ranking = #""modelComposition":{"type":"purelyTemporal","value":{"type":"recency","value":{"multiplier":1}}}"#
    let call = C.root(C.allText("lake"), ranking + #","postFilters":["rating >= 4.7"],"pageSize":5"#)
    let request = try Harness.searchRequest(call)
    #expect(request.query.hasSuffix("| score 1 * recency(contentModificationDate, 30d) | where (rating >= 4.7) | top 6"), "\(request.query)")
    let items = try Self.items(call)
    #expect(!items.isEmpty)
    let scores = items.compactMap(\.score)
    #expect(scores == scores.sorted(by: >), "still in the ranking model's order")
  }

  @Test func postFiltersApplyToAPipelinesQuery() throws {
    let call = C.pipeline([C.trailsStage, C.stage("c", "count", #"{"from":"q"}"#)], #""postFilters":["rating >= 4.9"]"#)
    #expect(try Self.fingerprint(call) == Harness.fingerprint(try Harness.run(#"search domainIdentifier == "trails" && rating >= 4.9 | count"#)))
  }

  // MARK: Ranking models in Apple's string form

  @Test(arguments: ["participant", "recipient", "sender", "host"])
  func stringFormRankingModelsRankLikeTheObjectForm(_ type: String) throws {
    let name = type == "recipient" ? "Alex Morgan" : "Lena Novak"
    let string = C.root(C.allText("trip"), #""modelComposition":{"type":"nonTemporal","value":{"models":[{"type":"\#(type)","value":"\#(name)"}]}}"#)
    let object = C.root(C.allText("trip"), #""modelComposition":{"type":"nonTemporal","value":{"models":[{"type":"\#(type)","value":{"entity":{"type":"namedPerson","value":{"name":"\#(name)"}},"weight":1}}]}}"#)
    let ranked = try Self.fingerprint(string)
    #expect(ranked == (try Self.fingerprint(object)))
    #expect(ranked != (try Self.fingerprint(C.root(C.allText("trip")))), "the person moves their items up")
  }

  // MARK: Variables in absolute dates

  /// The trails, the best rating bound to `m` (5), and a filter on a date whose month is `m`.
  static func monthFilter(_ temporal: String) -> String {
    C.pipeline([C.trailsStage, C.stage("m", "valueMax", #"{"from":"q","field":"rating","bindVariable":"m"}"#),
                C.stage("f", "filter", #"{"from":"q","filterPredicate":\#(temporal)}"#)])
  }

  @Test(arguments: ["on", "after", "before"])
  func aVariableInAnAbsoluteDateIsTheBoundValue(_ relation: String) throws {
    let variable = Self.monthFilter(C.temporal(relation, #""reference":\#(C.absolute(#""year":{"type":"concrete","value":2025},"month":{"type":"variable","value":"m"}"#))"#))
    let concrete = Self.monthFilter(C.temporal(relation, #""reference":\#(C.absolute(#""year":{"type":"concrete","value":2025},"month":{"type":"concrete","value":5}"#))"#))
    let decoded = Set(try Self.ids(variable))
    #expect(!decoded.isEmpty)
    #expect(decoded == Set(try Self.ids(concrete)))
  }

  @Test func aVariableInABetweenIsTheBoundValue() throws {
    let between = #""startReference":\#(C.absolute(#""year":2025,"month":{"type":"variable","value":"m"}"#)),"endReference":\#(C.absolute(#""year":2025,"month":8"#))"#
    let concrete = #""startReference":\#(C.absolute(#""year":2025,"month":5"#)),"endReference":\#(C.absolute(#""year":2025,"month":8"#))"#
    let decoded = Set(try Self.ids(Self.monthFilter(C.temporal("between", between))))
    #expect(!decoded.isEmpty)
    #expect(decoded == Set(try Self.ids(Self.monthFilter(C.temporal("between", concrete)))))
  }

  @Test func aVariableMatchesAsAWordAndIgnoringCase() throws {
    // The best trail's difficulty, bound and matched as a word and in another case.
    func filter(_ predicate: String) -> String {
      C.pipeline([C.trailsStage,
                  C.stage("l", "limit", #"{"from":"q","limit":1,"sortBy":"rating","sortOrder":"desc","extractValue":{"selector":{"type":"first"},"extractField":"difficulty","bindVariable":"level"}}"#),
                  C.stage("f", "filter", #"{"from":"q","filterPredicate":\#(predicate)}"#), C.stage("c", "count", #"{"from":"f"}"#)])
    }
    let equal = try Self.fingerprint(filter(C.predicate("difficulty", "equals", C.variable("level"))))
    #expect(equal.last?.hasPrefix("count: ") == true && equal.last != "count: 0", "\(equal)")
    #expect(try Self.fingerprint(filter(C.predicate("difficulty", "containsWord", C.variable("level")))) == equal)
    let request = try Harness.searchRequest(filter(C.predicate("difficulty", "equals", C.variable("level"))))
    #expect(request.query.contains("difficulty ==[cd] $level"), "\(request.query)")
  }

  // MARK: output, header and display

  @Test(arguments: [#""header":"Trails""#, #""output":{"type":"user","value":"Trails"}"#, #""output":{"type":"agent","value":"Trails"},"header":"ignored""#])
  func aLabelledQueryStageReadByAnotherIsAReplyOfItsOwn(_ label: String) throws {
    let query = #"{"id":"q",\#(label),"kind":{"type":"query","value":{"query":\#(C.trails)}}}"#
    let call = C.pipeline([query, C.stage("c", "count", #"{"from":"q"}"#)], #""pageSize":5"#)
    let result = try Harness.tool().call(call)
    #expect(!result.isError, "\(result.text)")
    #expect(result.replies.map(\.label).sorted() == ["Trails", "c"])
    let trails = try #require(result.replies.first { $0.label == "Trails" })
    #expect(trails.content.resultItems.count == 5, "a page of the stage's items")
    let count = try #require(result.replies.first { $0.label == "c" })
    guard case .count(let n) = count.content else { Issue.record("not a count"); return }
    #expect(n == 81, "the count reads every item of the stage, not the page")
  }

  @Test func aHeaderOnEveryStageNamesEachReply() throws {
    let stages = [
      #"{"id":"q","header":"All trails","kind":{"type":"query","value":{"query":\#(C.trails)}}}"#,
      #"{"id":"s","header":"Best first","kind":{"type":"sort","value":{"from":"q","sortBy":"rating","sortOrder":"desc"}}}"#,
      #"{"id":"c","output":{"type":"both","value":"How many"},"kind":{"type":"count","value":{"from":"s"}}}"#,
    ]
    let result = try Harness.tool().call(C.pipeline(stages, #""pageSize":3"#))
    #expect(!result.isError, "\(result.text)")
    #expect(Set(result.replies.map(\.label)) == ["All trails", "Best first", "How many"])
  }

  @Test func displayIsAccepted() throws {
    let result = try Harness.tool().call(#"{"query":{"type":"display","value":{"display":true}}}"#)
    #expect(!result.isError)
    #expect(result.text.hasPrefix("display: "))
    #expect(result.text.contains("autoDisplay"))
  }

  // MARK: rankingMetadata

  @Test func anAlphabeticalRankingSortsByTitle() throws {
    // A page larger than the matches, so both orders hold the same items.
    let call = C.root(C.allText("lake"), #""rankingMetadata":{"rankingType":"alphabetical","wasExplicit":true,"sortAttribute":"title","sortDirection":"ascending"},"pageSize":200"#)
    let titles = try Self.decodedItems(call).compactMap(\.item.attributeSet.title)
    #expect(titles.count > 20)
    #expect(titles == Self.alphabetical(titles), "\(titles)")
    #expect(try Self.items(call).compactMap(\.item.attributeSet.title) == Array(titles.prefix(20)), "the tool's page is the first of them")
    let relevance = try Self.decodedItems(C.root(C.allText("lake"), #""pageSize":200"#)).compactMap(\.item.attributeSet.title)
    #expect(titles != relevance, "relevance order is not alphabetical here, so the test can fail")
    #expect(Set(titles) == Set(relevance), "the same items")
  }

  @Test func anAlphabeticalRankingDescendsWhenAsked() throws {
    let call = C.root(C.allText("lake"), #""rankingMetadata":{"rankingType":"alphabetical","wasExplicit":true,"sortDirection":"descending"},"pageSize":30"#)
    let titles = try Self.items(call).compactMap(\.item.attributeSet.title)
    #expect(titles.count > 5)
    #expect(titles == Self.alphabetical(titles).reversed())
  }

  @Test func aRecencyRankingPutsTheNewestFirst() throws {
    let call = C.root(C.allText("lake"), #""rankingMetadata":{"rankingType":"recency","wasExplicit":false},"pageSize":30"#)
    let dates = try Self.items(call).compactMap { item -> Date? in
      if case .date(let d)? = item.item.attributeSet["contentModificationDate"] { return d }
      return nil
    }
    #expect(dates.count > 5)
    #expect(dates == dates.sorted(by: >))
  }

  @Test func aTemporalAdjacencyRankingPutsTheClosestToNowFirst() throws {
    let call = C.root(C.allText("lake"), #""rankingMetadata":{"rankingType":"temporal-adjacency","wasExplicit":true,"sortAttribute":"contentModificationDate","sortDirection":"ascending"},"pageSize":30"#)
    let distances = try Self.items(call).compactMap { item -> Double? in
      if case .date(let d)? = item.item.attributeSet["contentModificationDate"] { return abs(d.timeIntervalSince(SampleIndex.now)) }
      return nil
    }
    #expect(distances.count > 5)
    #expect(distances == distances.sorted())
  }

  @Test func aRankingMetadataOrdersAPipelinesQuery() throws {
    let call = C.pipeline([C.query("q", C.allText("lake"))], #""rankingMetadata":{"rankingType":"alphabetical","wasExplicit":true},"pageSize":30"#)
    let titles = try Self.items(call).compactMap(\.item.attributeSet.title)
    #expect(titles.count > 5)
    #expect(titles == Self.alphabetical(titles))
  }

  /// Titles in the order a sort by text gives: ignoring case.
  static func alphabetical(_ titles: [String]) -> [String] {
    titles.sorted { $0.lowercased() < $1.lowercased() }
  }

  // MARK: source, scopes and fetchAttributes

  @Test func sourceChoosesFilesOrAppItems() throws {
    func count(_ source: String) throws -> Int {
      let call = C.pipeline([C.query("q", #"{"type":"allText","value":{"terms":["the"]}}"#), C.stage("c", "count", #"{"from":"q"}"#)], #""source":"\#(source)""#)
      let replies = try Harness.run(try Harness.searchRequest(call).query)
      guard case .count(let n)? = replies.last?.content else { Issue.record("not a count"); return -1 }
      return n
    }
    let files = try count("files"), apps = try count("coreSpotlight"), all = try count("all")
    #expect(files > 0)
    #expect(apps > 0)
    #expect(files + apps == all)
    #expect(try count("both") == all)
    #expect(try count("managed") == apps)
    let fileItems = try Self.items(C.root(C.allText("the"), #""source":"files","pageSize":50"#))
    #expect(!fileItems.isEmpty)
    for item in fileItems {
      let url = try Harness.executor.index.item(withIdentifier: item.id)?.attributeSet["contentURL"]?.stringValue
      #expect(url?.hasPrefix("file:") == true, "\(item.id)")
    }
  }

  @Test func aScopeCoversItsSubDomains() throws {
    let ids = try Self.ids(C.search(#"{"root":\#(C.allText("the")),"scopes":["mail"],"pageSize":100}"#))
    let domains = try Set(ids.map { try Harness.executor.index.item(withIdentifier: $0)?.domainIdentifier ?? "" })
    #expect(domains.count > 1, "mail.inbox, mail.sent, mail.archive: \(domains)")
    #expect(domains.allSatisfy { $0.hasPrefix("mail.") })
    let exact = try Self.ids(C.search(#"{"root":\#(C.allText("the")),"scopes":["trails"],"pageSize":100}"#))
    #expect(!exact.isEmpty, "a domain is in its own scope")
    let none = try Self.ids(C.search(#"{"root":\#(C.allText("the")),"scopes":["mai"],"pageSize":100}"#))
    #expect(none.isEmpty, "a scope is a whole domain name, not any prefix")
  }

  @Test func aQueryStagesFetchAttributesShapeItsRepliesAndThoseThatPassItsItemsOn() throws {
    let query = C.query("q", C.trails, #""fetchAttributes":["title","rating"]"#)
    let call = C.pipeline([query, C.stage("s", "sort", #"{"from":"q","sortBy":"distance","sortOrder":"desc"}"#)], #""pageSize":5"#)
    let result = try Harness.tool().call(call)
    #expect(!result.isError, "\(result.text)")
    let items = result.replies.flatMap(\.content.resultItems)
    #expect(items.count == 5)
    #expect(items.allSatisfy { Set($0.item.attributeSet.names).isSubset(of: ["title", "rating"]) })
    #expect(items.allSatisfy { $0.item.attributeSet["rating"] != nil })
    #expect(result.text.contains("rating: "))
    #expect(!result.text.contains("contentDescription: "), "the default fetch list does not apply")
  }

  // MARK: Schema and allText forms

  @Test func aContentTypeSchemaQueryDescribesThatType() throws {
    let text = try Harness.tool().call(#"{"query":{"type":"schema","value":{"queryType":"content_type","contentType":"emails"}}}"#).text
    #expect(text.hasPrefix("content type emails (type: items):\n- email: "), "\(text)")
    #expect(!text.contains("- note: "))
    #expect(!text.contains("- trail: "))
    #expect(text.contains("recipientNames"), "the attributes of emails: \(text)")
    let unknown = try Harness.tool().call(#"{"query":{"type":"schema","value":{"queryType":"content_type","contentType":"videos"}}}"#).text
    #expect(unknown.hasPrefix("no items have content type 'videos'; content types: email, note, trail"), "\(unknown)")
  }

  @Test(arguments: [#"{"type":"allText","terms":["kitchen","remodel"]}"#, #"{"type":"allText","value":["kitchen","remodel"]}"#])
  func theInlineFormsOfAllTextMeanTheWrappedForm(_ node: String) throws {
    let expected = try Self.fingerprint(C.root(C.allText("kitchen", "remodel")))
    #expect(!expected.isEmpty)
    #expect(try Self.fingerprint(C.root(node)) == expected)
  }

  @Test func anInlineAllTextWithoutWordsNamesTheTerms() throws {
    let error = try #require(Harness.decodingError(C.root(#"{"type":"allText","terms":["  "]}"#)))
    #expect(error.path == "$.query.value.root.terms")
    #expect(error.message == "terms has no words")
  }
}
