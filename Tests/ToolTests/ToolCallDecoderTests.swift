import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Testing

/// Tool calls decode to queries that return what the equivalent hand-written query returns on
/// the samples: every node, operator, value kind, temporal form, person role, ranking model,
/// stage kind and search option.
@Suite struct ToolCallDecoderTests {
  @Test(arguments: ToolCases.all)
  func aCallReturnsWhatTheHandWrittenQueryReturns(_ c: ToolCase) throws {
    let identity = c.needsIdentity ? Harness.identity : Identity()
    let request = try Harness.searchRequest(c.call, identity: identity)
    if let query = c.query { #expect(request.query == query) }
    if let note = c.note { #expect(request.notes.contains(note), "notes: \(request.notes)") }
    if c.call.contains(#""type":"dsl""#) {
      #expect(request.syntax == nil, "query text is parsed when it runs")
    } else {
      #expect(try Harness.syntaxMatchesText(request), "the parsed query differs from its text: \(request.query)")
    }
    let options = Harness.options(identity: identity)
    let decoded = try Harness.run(request, options: options)
    let written = try Harness.run(c.dsl, options: options)
    #expect(Harness.fingerprint(decoded) == Harness.fingerprint(written), "the call became: \(request.query)")
    if !c.mayBeEmpty { #expect(!Harness.isEmpty(written), "an empty result proves little: \(c.dsl)") }
  }

  @Test(arguments: ToolCases.all)
  func nullMeansAbsent(_ c: ToolCase) throws {
    // Adding every optional search field as null changes nothing.
    let identity = c.needsIdentity ? Harness.identity : Identity()
    guard c.call.hasPrefix(#"{"query":{"type":"search","value":{"#) else { return }
    let sparse = try Harness.searchRequest(c.call, identity: identity)
    let json = try Harness.json(c.call)
    guard case .object(var value)? = json["query"]?["value"] else { return }
    for key in ["root", "pipeline", "modelComposition", "fetchAttributes", "pageSize", "cursor", "autoDisplay", "label", "scopes", "rankingMetadata", "source"]
    where value[key] == nil {
      value[key] = JSONValue.null
    }
    let padded: JSONValue = ["query": ["type": "search", "value": .object(value)]]
    let request = try Harness.decoder(identity: identity).decode(padded)
    guard case .search(let dense) = request else { Issue.record("not a search"); return }
    #expect(dense.query == sparse.query)
    #expect(dense.pageSize == sparse.pageSize)
    #expect(dense.offset == sparse.offset)
    #expect(dense.fetchAttributes == sparse.fetchAttributes)
  }

  @Test func allTextRequiresEveryWord() throws {
    let request = try Harness.searchRequest(Call.root(Call.allText("kitchen", "remodel quote"), #""pageSize":100"#))
    let decoded = Set(try Harness.run(request.query).flatMap { $0.content.resultItems.map(\.id) })
    let every = Set(try Harness.run(#"search "kitchen" && "remodel" && "quote""#).flatMap { $0.content.resultItems.map(\.id) })
    #expect(decoded == every)
    #expect(!decoded.isEmpty)
    let any = Set(try Harness.run(#"search "kitchen" || "remodel" || "quote""#).flatMap { $0.content.resultItems.map(\.id) })
    #expect(any.count > every.count)
  }

  @Test func theDefaultPageIsTwentyItems() throws {
    let request = try Harness.searchRequest(Call.root(Call.allText("budget")))
    #expect(request.pageSize == 20)
    #expect(request.offset == 0)
    #expect(request.query.hasSuffix("| top 21"), "one more than the page, to know whether another page exists")
    #expect(request.label == nil)
    #expect(request.autoDisplay == false)
    #expect(request.fetchAttributes == nil)
  }

  @Test func theNamedAttributesFeedTheDefaultFetchList() throws {
    let call = Call.root(Call.operation("all", Call.predicate("stateOrProvince", "equals", Call.string("Utah")),
                                        #"{"type":"person","value":{"type":"originator","value":"Sam"}}"#,
                                        Call.temporal("on", #""reference":\#(Call.relative("thisYear"))"#)))
    let request = try Harness.searchRequest(call)
    #expect(request.namedAttributes.contains("stateOrProvince"))
    #expect(request.namedAttributes.contains("authorNames"))
    #expect(request.namedAttributes.contains("contentModificationDate"))
    #expect(!request.namedAttributes.contains("authorEmailAddresses"), "addresses are matched but not shown")
  }

  @Test func aCursorSkipsTheEarlierPages() throws {
    let request = try Harness.searchRequest(Call.root(Call.allText("budget"), #""pageSize":4,"cursor":"offset:8""#))
    #expect(request.offset == 8)
    #expect(request.pageSize == 4)
    #expect(request.query == #"search ("budget") | top 13"#)
    let bare = try Harness.searchRequest(Call.root(Call.allText("budget"), #""pageSize":4,"cursor":"8""#))
    #expect(bare.offset == 8, "a bare number is a cursor too")
  }

  @Test func aCursorPagesAPipelineToo() throws {
    let request = try Harness.searchRequest(Call.pipeline([Call.trailsStage], #""pageSize":5,"cursor":"offset:10""#))
    #expect(request.query == #"s_q = search (domainIdentifier == 'trails'cd) | top 16 as "q""#)
  }

  @Test func theDslTypeIsTheQueryAsWritten() throws {
    let request = try Harness.searchRequest(#"{"query":{"type":"dsl","value":{"query":"search \"lake\" | top 5","pageSize":2,"cursor":"offset:2","label":"Lakes","fetchAttributes":["title"]}}}"#)
    #expect(request.query == #"search "lake" | top 5"#)
    #expect(request.pageSize == 2)
    #expect(request.offset == 2)
    #expect(request.label == "Lakes")
    #expect(request.fetchAttributes == ["title"])
  }

  @Test func schemaCallsDecode() throws {
    let decoder = Harness.decoder()
    guard case .schema(let all) = try decoder.decode(#"{"query":{"type":"schema","value":{"queryType":"schema"}}}"#) else { Issue.record("not schema"); return }
    #expect(all.kind == .schema)
    guard case .schema(let one) = try decoder.decode(#"{"query":{"type":"schema","value":{"queryType":"attribute","attribute":"stateOrProvince"}}}"#) else { Issue.record("not schema"); return }
    #expect(one.kind == .attribute)
    #expect(one.attribute == "stateOrProvince")
    for spelling in ["content_type", "contentType"] {
      guard case .schema(let types) = try decoder.decode(#"{"query":{"type":"schema","value":{"queryType":"\#(spelling)","contentType":null}}}"#) else { Issue.record("not schema"); return }
      #expect(types.kind == .contentType)
    }
  }

  @Test(arguments: [#"{"type":"help","value":{"topic":"temporal"}}"#, #"{"type":"help","value":{"topic":null}}"#, #"{"type":"help"}"#])
  func helpCallsDecode(_ query: String) throws {
    guard case .help(let topic) = try Harness.decoder().decode(#"{"query":\#(query)}"#) else { Issue.record("not help"); return }
    #expect(topic == (query.contains("temporal") ? "temporal" : ""))
  }

  @Test func aLinearPipelineIsOneStatementThatSQLiteRuns() throws {
    let call = Call.pipeline([Call.trailsStage, Call.stage("s", "sort", #"{"from":"q","sortBy":"rating","sortOrder":"desc"}"#),
                              Call.stage("l", "limit", #"{"from":"s","limit":3}"#)])
    let request = try Harness.searchRequest(call)
    #expect(request.query == #"s_l = search (domainIdentifier == 'trails'cd) | sort rating desc | limit 3 as "l""#)
  }

  @Test func stagesListedOutOfOrderRunInDependencyOrder() throws {
    let call = Call.pipeline([Call.trailsStage, Call.stage("c", "count", #"{"from":"f"}"#),
                              Call.stage("f", "filter", #"{"from":"q","filterPredicate":\#(Call.predicate("rating", "greaterThanOrEqual", Call.double(4.8)))}"#)])
    let request = try Harness.searchRequest(call)
    let replies = try Harness.run(request.query)
    let expected = try Harness.run(#"search domainIdentifier == "trails" && rating >= 4.8 | count"#)
    #expect(Harness.fingerprint(replies) == Harness.fingerprint(expected))
  }

  @Test func hydrationBecomesTheHydrateStageAndNeedsTheAppsStore() throws {
    let call = Call.pipeline([Call.query("q", Call.allText("sourdough"), #""limit":2"#), Call.stage("h", "hydration", #"{"from":"q","timeoutSeconds":2}"#)])
    let request = try Harness.searchRequest(call)
    #expect(request.query == #"s_h = search ("sourdough") | top 2 | hydrate timeout 2 as "h""#)
    // The samples were indexed from files, not synced: there is no store to hydrate from.
    let result = try Harness.tool().call(call)
    #expect(result.isError)
    #expect(result.error?.message == "hydrate needs the app's store, and none is registered for this index (sync a source first)")
  }

  @Test func aPipelineLabelIsNotedWhenAStageHasNone() throws {
    let request = try Harness.searchRequest(Call.pipeline([Call.trailsStage, Call.stage("c", "count", #"{"from":"q"}"#)], #""label":"Trails""#))
    #expect(request.notes.contains(#"label "Trails" applies to the pipeline's last stage"#))
  }

  @Test func personMeUsesEveryNameAndAddressOfTheIdentity() throws {
    let identity = Identity(names: ["Alex Morgan", "Alex"], emails: ["alex.morgan@example.com"])
    let request = try Harness.searchRequest(Call.root(#"{"type":"personMe","value":{"type":"fromMe","value":true}}"#), identity: identity)
    #expect(request.query.contains(#"authorNames == "Alex Morgan"cdw"#))
    #expect(request.query.contains(#"authorNames == "Alex"cdw"#))
    #expect(request.query.contains(#"authorEmailAddresses == "alex.morgan@example.com"cd"#))
  }

  @Test func quotesAndWildcardsInValuesStayLiteral() throws {
    // A value cannot break out of its string or turn into a pattern.
    let request = try Harness.searchRequest(Call.root(Call.predicate("title", "prefix", Call.string(#"a\"b*c?"#))))
    #expect(request.query == #"search (title == "a\"b\*c\?*"cd) | top 21"#)
    _ = try Harness.run(request.query)
    let exact = try Harness.searchRequest(Call.root(Call.predicate("title", "equals", Call.string("it's"))))
    #expect(exact.query == #"search (title == 'it\'s'cd) | top 21"#)
    _ = try Harness.run(exact.query)
  }
}
