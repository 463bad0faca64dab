import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Server
import Testing

/// `searchlight serve`'s API over real sockets: every endpoint, the error codes, tokens and
/// grants, the body limit, and hidden items.
@Suite struct ServerTests {
  @Test func healthCountsOnlyVisibleItems() async throws {
    let fixture = try ServerFixture()
    let response = try await fixture.client.send("GET", "/v1/health")
    #expect(response.status == 200)
    #expect(response.headers["content-type"] == "application/json")
    let visible = try fixture.index.statistics(scope: AccessScope()).items
    #expect(response.json?["status"]?.stringValue == "ok")
    #expect(response.json?["items"]?.intValue == visible)
    #expect(response.json?["schemaVersion"]?.intValue != nil)
    // The two hidden items are not counted.
    #expect(visible <= (try fixture.index.allItems().count) - 2)
  }

  @Test(arguments: [
    "keywords == \"waterfall\"c && rating >= 4.5",
    "search domainIdentifier == \"trails\" | group by stateOrProvince | count",
    "waterfall",
  ])
  func queryAnswersTheLinesOfQueryFormatJSON(_ query: String) async throws {
    let fixture = try ServerFixture()
    let response = try await fixture.client.send("POST", "/v1/query", body: jsonBody([("query", .string(query))]))
    #expect(response.status == 200)
    #expect(response.headers["content-type"] == "application/x-ndjson")
    #expect(ServerFixture.withoutTokens(response.text) == (try fixture.expectedLines(query)))
    #expect(!response.jsonLines.isEmpty)
  }

  @Test func largeAnswersStreamTheSameLines() async throws {
    let fixture = try ServerFixture(wholeResponseBytes: 4096)
    let query = "search domainIdentifier == \"trails\" || domainIdentifier == \"notes\""
    let response = try await fixture.client.send("POST", "/v1/query", body: jsonBody([("query", .string(query))]))
    #expect(response.status == 200)
    #expect(response.headers["transfer-encoding"] == "chunked")
    #expect(response.headers["content-type"] == "application/x-ndjson")
    let expected = try fixture.expectedLines(query)
    #expect(expected.utf8.count > 4096)
    #expect(ServerFixture.withoutTokens(response.text) == expected)
    // A small answer is still sent whole.
    let small = try await fixture.client.send("POST", "/v1/query", body: jsonBody([("query", "search domainIdentifier == \"trails\" | count")]))
    #expect(small.headers["content-length"] != nil)
  }

  @Test func queryLimitAndNowApply() async throws {
    let fixture = try ServerFixture()
    let query = "domainIdentifier == \"trails\""
    let response = try await fixture.client.send(
      "POST", "/v1/query", body: jsonBody([("query", .string(query)), ("limit", 2), ("now", "2026-11-29T12:00:00Z")]))
    #expect(response.status == 200)
    #expect(ServerFixture.withoutTokens(response.text) == (try fixture.expectedLines(query, limit: 2)))
    let items = response.jsonLines.first?["content"]?["items"]?.arrayValue
    #expect(items?.count == 2)
  }

  /// A limit cuts the whole reply once, not each streamed batch of it.
  @Test func aLimitHoldsAcrossBatches() async throws {
    let fixture = try ServerFixture()
    let query = "search * | sort id"
    let whole = try await fixture.client.send("POST", "/v1/query", body: jsonBody([("query", .string(query))]))
    let all = whole.jsonLines.flatMap { $0["content"]?["items"]?.arrayValue ?? [] }.compactMap { $0["id"]?.stringValue }
    #expect(all.count > 100, "more than one batch")
    let response = try await fixture.client.send("POST", "/v1/query", body: jsonBody([("query", .string(query)), ("limit", 3)]))
    let ids = response.jsonLines.flatMap { $0["content"]?["items"]?.arrayValue ?? [] }.compactMap { $0["id"]?.stringValue }
    #expect(ids == Array(all.prefix(3)))
  }

  @Test func badQueryIsA400WithLineColumnAndHint() async throws {
    let fixture = try ServerFixture()
    let response = try await fixture.client.send("POST", "/v1/query", body: jsonBody([("query", "title == \"june")]))
    #expect(response.status == 400)
    let error = response.json?["error"]
    #expect(error?["message"]?.stringValue?.isEmpty == false)
    #expect(error?["line"]?.intValue == 1)
    #expect(error?["column"]?.intValue == 10)
    #expect(error?["hint"] != nil)
    #expect(error?["exitCode"]?.intValue == 65)
  }

  @Test func unknownAttributeNamesTheSpanAndSuggests() async throws {
    let fixture = try ServerFixture()
    let response = try await fixture.client.send("POST", "/v1/query", body: jsonBody([("query", "ratng > 3")]))
    #expect(response.status == 400)
    let error = response.json?["error"]
    #expect(error?["column"]?.intValue == 1)
    #expect(error?["endColumn"]?.intValue == 6)
    #expect(error?["hint"]?.stringValue?.contains("rating") == true)
  }

  @Test(arguments: [
    ("", "JSON object body"), ("[1]", "must be a JSON object"), ("{\"query\":3}", "\"query\""), ("{\"query\":\"x\",\"limit\":-1}", "\"limit\""),
    ("{\"query\":\"x\",\"now\":\"yesterday\"}", "\"now\""), ("{not json", "not JSON"),
  ])
  func badQueryBodiesAre400(_ body: String, _ mentions: String) async throws {
    let fixture = try ServerFixture()
    let response = try await fixture.client.send("POST", "/v1/query", body: body)
    #expect(response.status == 400)
    #expect(response.json?["error"]?["message"]?.stringValue?.contains(mentions) == true, "\(response.text)")
  }

  @Test func wrongMethodIs405WithAllowAndUnknownPathIs404() async throws {
    let fixture = try ServerFixture()
    let get = try await fixture.client.send("GET", "/v1/query")
    #expect(get.status == 405)
    #expect(get.headers["allow"] == "POST")
    let put = try await fixture.client.send("PUT", "/v1/items/trail-1", body: "{}")
    #expect(put.status == 405)
    #expect(put.headers["allow"] == "GET, DELETE")
    let unknown = try await fixture.client.send("GET", "/v1/nothing")
    #expect(unknown.status == 404)
    #expect(unknown.json?["error"]?["message"] != nil)
  }

  @Test func toolCallAnswersReplyLinesAndInvalidCallsAre400() async throws {
    let fixture = try ServerFixture()
    let call = #"{"query":{"type":"search","value":{"root":{"type":"allText","value":{"terms":["waterfall"]}},"pageSize":3}}}"#
    let response = try await fixture.client.send("POST", "/v1/tool-call", body: call)
    #expect(response.status == 200, "\(response.text)")
    #expect(response.headers["content-type"] == "application/x-ndjson")
    let lines = response.jsonLines
    #expect(!lines.isEmpty)
    #expect(lines.allSatisfy { $0["queryToken"] != nil && $0["content"] != nil })
    // Hidden items never come back, even when they match.
    #expect(!response.text.contains("secret-1") && !response.text.contains("gone-1"))

    let invalid = try await fixture.client.send("POST", "/v1/tool-call", body: #"{"query":{"type":"serch"}}"#)
    #expect(invalid.status == 400)
    let error = invalid.json?["error"]
    #expect(error?["path"] != nil)
    #expect(error?["message"] != nil)
  }

  @Test func itemsGetShowsVisibleItemsAndHidesTheRestBehindOne404() async throws {
    let fixture = try ServerFixture()
    let found = try await fixture.client.send("GET", "/v1/items/trail-1")
    #expect(found.status == 200)
    #expect(found.json?["id"]?.stringValue == "trail-1")
    #expect(found.json?["attributes"]?["title"]?.stringValue == "Mist Trail")

    var bodies: [String] = []
    for id in ["secret-1", "gone-1", "no-such-item"] {
      let response = try await fixture.client.send("GET", "/v1/items/\(id)")
      #expect(response.status == 404)
      bodies.append(response.text.replacingOccurrences(of: id, with: "ID"))
    }
    #expect(Set(bodies).count == 1, "\(bodies)")
    // Deleting a hidden item is the same 404, and it stays.
    let delete = try await fixture.client.send("DELETE", "/v1/items/secret-1")
    #expect(delete.status == 404)
    #expect(try fixture.index.item(withIdentifier: "secret-1") != nil)
  }

  @Test func postItemsIsAllOrNothing() async throws {
    let fixture = try ServerFixture()
    let bad = """
      {"id":"new-1","domain":"inbox","attributes":{"title":"First new"}}
      {"id":"new-2","domain":"inbox","attributes":"not an object"}
      {"id":"new-3","domain":"inbox","attributes":{"title":"Third new"}}
      """
    let refused = try await fixture.client.send("POST", "/v1/items", headers: ["Content-Type": "application/x-ndjson"], body: bad)
    #expect(refused.status == 400)
    #expect(refused.json?["error"]?["message"]?.stringValue?.contains("line 2") == true, "\(refused.text)")
    #expect(refused.json?["error"]?["line"]?.intValue == 2)
    #expect(try fixture.index.item(withIdentifier: "new-1") == nil)

    let notJSON = try await fixture.client.send("POST", "/v1/items", body: "{\"id\":\"new-1\",\"attributes\":{}}\n\n{oops\n")
    #expect(notJSON.status == 400)
    #expect(notJSON.json?["error"]?["message"]?.stringValue?.contains("line 3") == true, "\(notJSON.text)")
    #expect(try fixture.index.item(withIdentifier: "new-1") == nil)

    let good = """
      {"id":"new-1","domain":"inbox","attributes":{"title":"First new"}}

      {"id":"new-3","domain":"inbox.archive","attributes":{"title":"Third new"}}
      """
    let written = try await fixture.client.send("POST", "/v1/items", body: good)
    #expect(written.status == 200, "\(written.text)")
    #expect(written.json?["indexed"]?.intValue == 2)
    #expect(try await fixture.client.send("GET", "/v1/items/new-3").status == 200)
    let query = try await fixture.client.send("POST", "/v1/query", body: jsonBody([("query", "title == \"*new\"c")]))
    #expect(query.text.contains("new-1") && query.text.contains("new-3"))

    let empty = try await fixture.client.send("POST", "/v1/items", body: "\n\n")
    #expect(empty.status == 400)
  }

  @Test func deleteByIdAndByDomain() async throws {
    let fixture = try ServerFixture()
    let one = try await fixture.client.send("DELETE", "/v1/items/trail-1")
    #expect(one.status == 200)
    #expect(one.json?["deleted"]?.intValue == 1)
    #expect(try await fixture.client.send("GET", "/v1/items/trail-1").status == 404)
    #expect(try await fixture.client.send("DELETE", "/v1/items/trail-1").status == 404)

    let trails = try fixture.index.statistics(scope: AccessScope()).domains.first { $0.name == "trails" }?.count ?? 0
    let domain = try await fixture.client.send("DELETE", "/v1/items?domain=trails")
    #expect(domain.status == 200)
    #expect(domain.json?["deleted"]?.intValue == trails)
    #expect(try await fixture.client.send("DELETE", "/v1/items").status == 400)
    // Hidden items are neither deleted nor counted.
    let vault = try await fixture.client.send("DELETE", "/v1/items?domain=vault")
    #expect(vault.json?["deleted"]?.intValue == 0)
    #expect(try fixture.index.item(withIdentifier: "secret-1") != nil)
    // Sub-domains go with their domain; a domain that only starts the same does not.
    _ = try await fixture.client.send("POST", "/v1/items", body: """
      {"id":"m1","domain":"post","attributes":{"title":"a"}}
      {"id":"m2","domain":"post.inbox","attributes":{"title":"b"}}
      {"id":"m3","domain":"postbox","attributes":{"title":"c"}}
      {"id":"m4","domain":"post*","attributes":{"title":"d"}}
      """)
    let mail = try await fixture.client.send("DELETE", "/v1/items?domain=post")
    #expect(mail.json?["deleted"]?.intValue == 2)
    #expect(try fixture.index.item(withIdentifier: "m3") != nil)
    #expect(try fixture.index.item(withIdentifier: "m4") != nil)
    #expect(try await fixture.client.send("DELETE", "/v1/items?domain=bad%20domain!").status == 400)
  }

  @Test func schemaAndOpenAPI() async throws {
    let fixture = try ServerFixture()
    let focused = try await fixture.client.send("GET", "/v1/schema")
    #expect(focused.status == 200)
    #expect(focused.json?["function"]?["name"]?.stringValue == "search_items")
    let complete = try await fixture.client.send("GET", "/v1/schema?mode=complete")
    #expect(complete.status == 200)
    #expect(complete.body.count > focused.body.count)
    #expect(try await fixture.client.send("GET", "/v1/schema?mode=everything").status == 400)

    let openAPI = try await fixture.client.send("GET", "/v1/openapi.json")
    #expect(openAPI.status == 200)
    let paths = openAPI.json?["paths"]?.objectValue.map { Set($0.map(\.key)) } ?? []
    for path in ["/v1/health", "/v1/query", "/v1/tool-call", "/v1/ask", "/v1/items", "/v1/items/{id}", "/v1/schema"] {
      #expect(paths.contains(path), "\(path)")
    }
  }

  @Test func tokensAreRequiredAndGrantTheirClasses() async throws {
    let tokens = try AccessTokens.parse(#"{"tokens":[{"token":"reader-token"},{"token":"vault-token","protection":["classA"]}]}"#)
    let fixture = try ServerFixture(tokens: tokens)
    #expect(try await fixture.client.send("GET", "/v1/health").status == 401)
    let wrong = try await fixture.client.send("GET", "/v1/health", headers: ["Authorization": "Bearer reader-tokem"])
    #expect(wrong.status == 401)
    #expect(wrong.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
    #expect(try await fixture.client.send("GET", "/v1/health", headers: ["Authorization": "Bearer reader-token-longer"]).status == 401)
    #expect(try await fixture.client.send("GET", "/v1/health", headers: ["Authorization": "Basic cmVhZGVyLXRva2Vu"]).status == 401)

    let reader = ["Authorization": "Bearer reader-token"]
    let vault = ["Authorization": "bearer vault-token"]
    let readerHealth = try await fixture.client.send("GET", "/v1/health", headers: reader)
    let vaultHealth = try await fixture.client.send("GET", "/v1/health", headers: vault)
    #expect(readerHealth.status == 200 && vaultHealth.status == 200)
    #expect((vaultHealth.json?["items"]?.intValue ?? 0) == (readerHealth.json?["items"]?.intValue ?? 0) + 1)
    #expect(try await fixture.client.send("GET", "/v1/items/secret-1", headers: reader).status == 404)
    #expect(try await fixture.client.send("GET", "/v1/items/secret-1", headers: vault).status == 200)
    // The expired item stays hidden whatever the grant.
    #expect(try await fixture.client.send("GET", "/v1/items/gone-1", headers: vault).status == 404)
    let query = try await fixture.client.send("POST", "/v1/query", headers: vault, body: jsonBody([("query", "title == \"*waterfall*\"c")]))
    #expect(query.text.contains("secret-1") && !query.text.contains("gone-1"))
    let hidden = try await fixture.client.send("POST", "/v1/query", headers: reader, body: jsonBody([("query", "title == \"*waterfall*\"c")]))
    #expect(hidden.status == 200 && !hidden.text.contains("secret-1"))
    // The page is not behind the token (it asks for one); the API is.
    #expect(try await fixture.client.send("GET", "/").status == 200)
  }

  @Test func tokenFilesAreChecked() {
    #expect(throws: TokenFileError.self) { try AccessTokens.parse("{}") }
    #expect(throws: TokenFileError.self) { try AccessTokens.parse(#"{"tokens":[]}"#) }
    #expect(throws: TokenFileError.self) { try AccessTokens.parse(#"{"tokens":[{"token":""}]}"#) }
    #expect(throws: TokenFileError.self) { try AccessTokens.parse(#"{"tokens":[{"token":"a","protection":"classA"}]}"#) }
    #expect(throws: TokenFileError.self) { try AccessTokens.parse("not json") }
  }

  @Test func bodiesOverTheLimitAre413AndWriteNothing() async throws {
    let fixture = try ServerFixture(maximumBodyBytes: 2000)
    var lines = ""
    for number in 0..<100 { lines += #"{"id":"big-\#(number)","domain":"inbox","attributes":{"title":"Big \#(number)"}}"# + "\n" }
    let response = try await fixture.client.send("POST", "/v1/items", body: lines)
    #expect(response.status == 413)
    #expect(response.json?["error"]?["message"]?.stringValue?.contains("2000") == true)
    #expect(try fixture.index.item(withIdentifier: "big-0") == nil)
    // A body under the limit still works on a new connection.
    let small = try await fixture.client.send("POST", "/v1/items", body: #"{"id":"big-0","attributes":{"title":"Small"}}"#)
    #expect(small.status == 200)
  }

  @Test func askAnswersAsOneObject() async throws {
    let fixture = try ServerFixture()
    // The answer runs on Swift's cooperative pool, which other suites may keep busy for long.
    let response = try await fixture.patientClient.send("POST", "/v1/ask", body: jsonBody([("question", "waterfall hikes in California")]))
    #expect(response.status == 200, "\(response.text)")
    let json = try #require(response.json)
    #expect(json["answer"]?.stringValue?.isEmpty == false)
    #expect((json["sources"]?.arrayValue?.count ?? 0) > 0)
    #expect(json["events"]?.arrayValue?.last?["event"]?.stringValue == "done")
    #expect(try await fixture.client.send("POST", "/v1/ask", body: "{}").status == 400)
    #expect(try await fixture.client.send("POST", "/v1/ask", body: jsonBody([("question", "x"), ("model", "qwen")])).status == 400)
  }

  @Test func askStreamsServerSentEvents() async throws {
    let fixture = try ServerFixture()
    let response = try await fixture.patientClient.send(
      "POST", "/v1/ask", headers: ["Accept": "text/event-stream"], body: jsonBody([("question", "waterfall hikes in California")]))
    #expect(response.status == 200)
    #expect(response.headers["content-type"]?.hasPrefix("text/event-stream") == true)
    #expect(response.headers["transfer-encoding"] == "chunked")
    // Comment lines (": keep-alive") come when the answer is slow; everything else is data.
    let events = response.text.components(separatedBy: "\n\n").filter { !$0.isEmpty && !$0.hasPrefix(": ") }
    #expect(events.allSatisfy { $0.hasPrefix("data: ") }, "\(response.text)")
    let kinds = events.compactMap { try? JSONParser.parse(String($0.dropFirst(6))) }.compactMap { $0["event"]?.stringValue }
    #expect(kinds.count == events.count)
    #expect(kinds.last == "done")
    #expect(kinds.contains("source") && kinds.contains("text"))
  }

  @Test func planAndFacetsServeThePage() async throws {
    let fixture = try ServerFixture()
    let plan = try await fixture.client.send("POST", "/v1/plan", body: jsonBody([("question", "hikes in California")]))
    #expect(plan.status == 200)
    #expect(plan.json?["dsl"]?.stringValue?.isEmpty == false)
    let facets = try await fixture.client.send("POST", "/v1/facets", body: jsonBody([("query", "keywords == \"waterfall\"c")]))
    #expect(facets.status == 200, "\(facets.text)")
    let list = facets.json?["facets"]?.arrayValue ?? []
    let domain = list.first { $0["attribute"]?.stringValue == "domainIdentifier" }
    #expect(domain?["groups"]?.arrayValue?.isEmpty == false)
    // A pipeline of items is faceted on what it returns; one that ends in a count has none.
    let top = try await fixture.client.send("POST", "/v1/facets", body: jsonBody([("query", "search keywords == \"waterfall\"c | top 5")]))
    let topDomains = top.json?["facets"]?.arrayValue?.first { $0["attribute"]?.stringValue == "domainIdentifier" }
    #expect(topDomains?["groups"]?.arrayValue?.first?["count"]?.intValue == 5, "\(top.text)")
    let counted = try await fixture.client.send("POST", "/v1/facets", body: jsonBody([("query", "search keywords == \"waterfall\"c | count")]))
    #expect(counted.status == 200 && counted.json?["facets"]?.arrayValue?.isEmpty == true, "\(counted.text)")
    // A text search's facets (one statement for all of them) count its visible matches.
    let text = try await fixture.client.send("POST", "/v1/facets", body: jsonBody([("query", "\"lake\"")]))
    let textFacets = text.json?["facets"]?.arrayValue ?? []
    let matches = try await fixture.client.send("POST", "/v1/query", body: jsonBody([("query", "search \"lake\" | count")]))
    let matchCount = try #require(matches.jsonLines.first?["content"]?["count"]?.intValue)
    #expect(matchCount > 1)
    for attribute in ["domainIdentifier", "contentType"] {
      let groups = textFacets.first { $0["attribute"]?.stringValue == attribute }?["groups"]?.arrayValue ?? []
      #expect(groups.compactMap { $0["count"]?.intValue }.reduce(0, +) == matchCount, "\(attribute): \(text.text)")
    }
    let bad = try await fixture.client.send("POST", "/v1/facets", body: jsonBody([("query", "title == \"june")]))
    #expect(bad.status == 400)
    #expect(bad.json?["error"]?["column"] != nil)
  }

  /// Each facet group carries its query narrowed to the group, for every form of query the
  /// page runs (the built-in planner's known-item form of two statements merged among them,
  /// which the page once narrowed into a parse error); run, it finds only the group's items:
  /// all of them for a predicate, the best of them for a pipeline with a limit.
  @Test func facetGroupsCarryTheQueryNarrowedToThem() async throws {
    let fixture = try ServerFixture()
    let queries = [
      #"keywords == "waterfall"c || "lake""#, #"search "lake" || "trail" | top 8"#,
      #"ranked = search "lake" || "trail" | top 20; titled = search title == "mist trail"cd; merge(ranked, titled) | top 6"#,
    ]
    for (position, query) in queries.enumerated() {
      let response = try await fixture.client.send("POST", "/v1/facets", body: jsonBody([("query", .string(query))]))
      let facets = try #require(response.json?["facets"]?.arrayValue, "\(response.text)")
      #expect(facets.count >= 2, "\(query): \(response.text)")
      for facet in facets {
        let attribute = try #require(facet["attribute"]?.stringValue)
        guard ["domainIdentifier", "contentType"].contains(attribute) else { continue }
        let field = attribute == "domainIdentifier" ? "domain" : attribute
        for group in facet["groups"]?.arrayValue ?? [] {
          let key = try #require(group["key"]?.stringValue), count = try #require(group["count"]?.intValue)
          let narrowed = try #require(group["query"]?.stringValue, "\(query): \(attribute) \(key)")
          let run = try await fixture.client.send("POST", "/v1/query", body: jsonBody([("query", .string(narrowed))]))
          #expect(run.status == 200, "\(narrowed): \(run.text)")
          let items = run.jsonLines.flatMap { $0["content"]?["items"]?.arrayValue ?? [] }
          #expect(items.allSatisfy { $0[field]?.stringValue == key }, "\(narrowed)")
          // A predicate's group is all of its narrowed items; a pipeline's, those it returned.
          if position == 0 { #expect(items.count == count, "\(narrowed)") } else { #expect(items.count >= count, "\(narrowed)") }
        }
      }
    }
    // The facets of a pipeline are those of what it returns, counted once per item.
    let top = try await fixture.client.send("POST", "/v1/facets", body: jsonBody([("query", .string(queries[2]))]))
    let domains = top.json?["facets"]?.arrayValue?.first { $0["attribute"]?.stringValue == "domainIdentifier" }
    #expect(domains?["groups"]?.arrayValue?.compactMap { $0["count"]?.intValue }.reduce(0, +) == 6, "\(top.text)")
  }

  /// A query gets, besides domain and type, the facets of the attributes that its first 100
  /// items (those the page shows) have: the fifty last entries by title hold an aisle, which
  /// sorting by title descending shows and ascending does not.
  @Test func facetsOfAQueryAreOfTheAttributesItsFirstItemsHave() async throws {
    let fixture = try ServerFixture()
    try fixture.index.indexSearchableItems((0..<600).map { number in
      var attributes: [(String, AttributeValue)] = [("title", .string("Entry " + String(format: "%04d", number)))]
      if number >= 550 { attributes.append(("aisle", .string(["A", "B", "C"][number % 3]))) }
      return SearchableItem(uniqueIdentifier: "entry-\(number)", domainIdentifier: "catalog", contentType: "entry", attributeSet: AttributeSet(attributes))
    })
    func facets(_ query: String) async throws -> [String: Int] {
      let response = try await fixture.client.send("POST", "/v1/facets", body: jsonBody([("query", .string(query))]))
      #expect(response.status == 200, "\(response.text)")
      var counted: [String: Int] = [:]
      for facet in response.json?["facets"]?.arrayValue ?? [] {
        counted[facet["attribute"]?.stringValue ?? ""] = (facet["groups"]?.arrayValue ?? []).compactMap { $0["count"]?.intValue }.reduce(0, +)
      }
      return counted
    }
    let last = try await facets(#"search contentType == "entry" | sort title desc"#)
    #expect(last["aisle"] == 50 && last["domainIdentifier"] == 600, "\(last)")
    let first = try await facets(#"search contentType == "entry" | sort title"#)
    #expect(first["aisle"] == nil && first["contentType"] == 600, "\(first)")
  }

  @Test func corsIsOffAndPreflightsAreRefused() async throws {
    let fixture = try ServerFixture()
    let origin = ["Origin": "http://elsewhere.example"]
    let response = try await fixture.client.send("POST", "/v1/query", headers: origin, body: jsonBody([("query", "rating > 4")]))
    #expect(response.status == 200)
    #expect(!response.headers.keys.contains { $0.hasPrefix("access-control-") })
    let preflight = try await fixture.client.send(
      "OPTIONS", "/v1/query", headers: origin.merging(["Access-Control-Request-Method": "POST"]) { $1 }, body: nil)
    #expect(preflight.status == 405)
    #expect(!preflight.headers.keys.contains { $0.hasPrefix("access-control-") })
    let head = try await fixture.client.send("HEAD", "/v1/health")
    #expect(head.status == 200)
  }

  @Test func webPageAndAssetsAreServed() async throws {
    let fixture = try ServerFixture()
    let page = try await fixture.client.send("GET", "/")
    #expect(page.status == 200)
    #expect(page.headers["content-type"]?.hasPrefix("text/html") == true)
    #expect(page.text.lowercased().hasPrefix("<!doctype html>"))
    #expect(try await fixture.client.send("GET", "/app.js").status == 200)
    #expect(try await fixture.client.send("GET", "/app.css").status == 200)
    #expect(try await fixture.client.send("GET", "/nothing-here").status == 404)
    #expect(try await fixture.client.send("POST", "/", body: "x").status == 405)
  }

  @Test func percentEncodedIdentifiersReachTheirItems() async throws {
    let fixture = try ServerFixture()
    _ = try await fixture.client.send("POST", "/v1/items", body: #"{"id":"a b/c","attributes":{"title":"Odd id"}}"#)
    let response = try await fixture.client.send("GET", "/v1/items/a%20b%2Fc")
    #expect(response.status == 200)
    #expect(response.json?["id"]?.stringValue == "a b/c")
  }

  @Test func stopFinishesAndRefusesNewConnections() async throws {
    let fixture = try ServerFixture()
    #expect(try await fixture.client.send("GET", "/v1/health").status == 200)
    fixture.server.stop()
    #expect(fixture.server.requestsInFlight == 0)
    await #expect(throws: HTTPTestClient.Failure.self) { try await fixture.client.send("GET", "/v1/health") }
  }
}
