import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex
@testable import Stages

/// The reply JSON of DESIGN §4, exactly.
@Suite struct ReplyJSONTests {
  static let index: TemporaryIndex = try! TemporaryIndex.lingering([
    item("trail-17", domain: "trails", [("title", .string("Mist Trail")), ("keywords", .list([.string("waterfall")])), ("rating", .number(4.5))]),
    item("trail-18", domain: "trails", contentType: "trail", [("title", .string("Half Dome")), ("keywords", .list([.string("summit"), .string("waterfall")])),
                                                              ("rating", .number(5)), ("contentCreationDate", .date(utc(2026, 5, 1, 8)))]),
  ])

  func json(_ text: String, fetch: [String]? = nil) throws -> [String] {
    try replies(text, in: Self.index.index).map { reply in
      var copy = reply
      copy.queryToken = "q1"
      return copy.jsonValue(fetch: fetch).compactText
    }
  }

  @Test func items() throws {
    #expect(try json(#"search title == "Mist Trail""#, fetch: ["title"]) == [
      #"{"queryToken":"q1","label":"Search results","content":{"type":"items","items":[{"id":"trail-17","domain":"trails","attributes":{"title":"Mist Trail"}}]}}"#,
    ])
    #expect(try json(#"search title == "Half Dome""#) == [
      #"{"queryToken":"q1","label":"Search results","content":{"type":"items","items":[{"id":"trail-18","domain":"trails","contentType":"trail","attributes":{"title":"Half Dome","keywords":["summit","waterfall"],"rating":5,"contentCreationDate":"2026-05-01T08:00:00Z"}}]}}"#,
    ])
    #expect(try json("search false") == [#"{"queryToken":"q1","label":"Search results","content":{"type":"items","items":[]}}"#])
  }

  @Test func count() throws {
    #expect(try json(#"search * | count as "Matches""#) == [#"{"queryToken":"q1","label":"Matches","content":{"type":"count","count":2}}"#])
  }

  @Test func scoredItems() throws {
    #expect(try json("search * | score rating / 3", fetch: ["title"]) == [
      #"{"queryToken":"q1","label":"Scored results","content":{"type":"scoredItems","items":[{"score":1.666667,"item":{"id":"trail-18","domain":"trails","contentType":"trail","attributes":{"title":"Half Dome"}}},{"score":1.5,"item":{"id":"trail-17","domain":"trails","attributes":{"title":"Mist Trail"}}}]}}"#,
    ])
  }

  @Test func scoreTermsOnlyWhenAsked() throws {
    let reply = try #require(replies("search * | score rating + 1 | top 1", in: Self.index.index).first)
    let plain = reply.jsonValue(fetch: [])
    let why = reply.jsonValue(fetch: [], why: true)
    #expect(plain["content"]?["items"]?.arrayValue?.first?["terms"] == nil)
    #expect(why["content"]?["items"]?.arrayValue?.first?["terms"] == [["name": "rating", "value": 5], ["name": "1", "value": 1]])
  }

  @Test func groupedItems() throws {
    #expect(try json("search * | group by keywords", fetch: []) == [
      #"{"queryToken":"q1","label":"Groups","content":{"type":"groupedItems","attribute":"keywords","groups":[{"key":"waterfall","count":2,"items":[{"id":"trail-17","domain":"trails","attributes":{}},{"id":"trail-18","domain":"trails","contentType":"trail","attributes":{}}]},{"key":"summit","count":1,"items":[{"id":"trail-18","domain":"trails","contentType":"trail","attributes":{}}]}]}}"#,
    ])
  }

  @Test func table() throws {
    #expect(try json("search * | sort title | table title, rating, contentCreationDate") == [
      #"{"queryToken":"q1","label":"Table","content":{"type":"table","columns":["title","rating","contentCreationDate"],"rows":[["Half Dome",5,"2026-05-01T08:00:00Z"],["Mist Trail",4.5,null]]}}"#,
    ])
    #expect(try json("search * | group by keywords | count") == [
      #"{"queryToken":"q1","label":"Table","content":{"type":"table","columns":["keywords","count"],"rows":[["waterfall",2],["summit",1]]}}"#,
    ])
    #expect(try json("search * | stats avg(rating) by keywords") == [
      #"{"queryToken":"q1","label":"Table","content":{"type":"table","columns":["keywords","avg(rating)"],"rows":[["summit",5],["waterfall",4.75]]}}"#,
    ])
  }

  @Test func statistic() throws {
    #expect(try json("search * | stats avg(rating)") == [
      #"{"queryToken":"q1","label":"Statistic","content":{"type":"statistic","function":"avg","attribute":"rating","value":4.75}}"#,
    ])
    #expect(try json("search * | stats max(contentCreationDate)") == [
      #"{"queryToken":"q1","label":"Statistic","content":{"type":"statistic","function":"max","attribute":"contentCreationDate","value":"2026-05-01T08:00:00Z"}}"#,
    ])
    #expect(try json("search false | stats min(rating)") == [
      #"{"queryToken":"q1","label":"Statistic","content":{"type":"statistic","function":"min","attribute":"rating","value":null}}"#,
    ])
  }

  @Test func text() throws {
    #expect(try json("search * | count | text") == [
      #"{"queryToken":"q1","label":"Summary","content":{"type":"text","header":"2 items match.","body":""}}"#,
    ])
  }

  @Test func keysAreInTheDesignedOrder() throws {
    for query in ["search *", "search * | score 1", "search * | group by keywords", "search * | count", "search * | table title",
                  "search * | stats count", "search * | text"] {
      let reply = try #require(replies(query, in: Self.index.index).first)
      let object = try #require(reply.jsonValue().objectValue)
      #expect(object.keys == ["queryToken", "label", "content"])
      #expect(object["content"]?.objectValue?.keys.first == "type")
      #expect(object["content"]?["type"] == .string(reply.content.type.rawValue))
    }
  }
}

@Suite struct CancellationTests {
  /// Runs `text`; throws what the `QueryError` wraps (`QueryCancelled` for `.cancelled`).
  func run(_ text: String, flag: CancellationFlag, batchSize: Int = 100, onReply: (Reply) -> Void = { _ in }) throws {
    let options = QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock, batchSize: batchSize, cancellation: flag)
    do {
      try QueryExecutor(index: sampleIndex.index, registry: standardRegistry).run(text, options: options, onReply: onReply)
    } catch {
      throw error.underlying
    }
  }

  @Test(arguments: ["search *", "search * | count", #"search "budget" | score rating | top 3"#, "search * | group by keywords | count",
                    "search * | stats avg(rating)", "a = search *; a | count"])
  func cancelledBeforeRunningGivesNoReply(query: String) {
    let flag = CancellationFlag()
    flag.cancel()
    var replies = 0
    #expect(throws: QueryCancelled.self) { try run(query, flag: flag) { _ in replies += 1 } }
    #expect(replies == 0)
  }

  @Test func cancelledWhileStreamingItems() {
    let flag = CancellationFlag()
    var replies: [Reply] = []
    #expect(throws: QueryCancelled.self) {
      try run("search *", flag: flag, batchSize: 10) { reply in
        replies.append(reply)
        flag.cancel()
      }
    }
    #expect(replies.count == 1)
    #expect(replies.first?.isPartial == true)
  }

  @Test func cancelledBetweenBranchesAndStatements() {
    let flag = CancellationFlag()
    var labels: [String] = []
    #expect(throws: QueryCancelled.self) {
      try run(#"search "budget" | fork (count as "first") (score rating | top 3 as "second")"#, flag: flag) { reply in
        labels.append(reply.label)
        flag.cancel()
      }
    }
    #expect(labels == ["first"])
    let other = CancellationFlag()
    labels = []
    #expect(throws: QueryCancelled.self) {
      try run("a = search * | count; b = search * | stats count", flag: other) { reply in
        labels.append(reply.label)
        other.cancel()
      }
    }
    #expect(labels == ["a"])
  }

  @Test func aFlagStaysCancelled() {
    let flag = CancellationFlag()
    #expect(!flag.isCancelled)
    #expect(throws: Never.self) { try flag.check() }
    flag.cancel()
    #expect(flag.isCancelled)
    #expect(throws: QueryCancelled.self) { try flag.check() }
    #expect(QueryCancelled().description == "query cancelled")
  }
}
