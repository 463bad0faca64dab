import Assistant
import QueryEngine
import SearchIndex
import Testing

/// The JSON Lines events of `searchlight ask --format json`.
@Suite struct AnswerEventTests {
  static let item = SearchableItem(uniqueIdentifier: "note-52", domainIdentifier: "notes.work", attributeSet: AttributeSet([
    ("title", .string("Orion launch retrospective")), ("textContent", .string("long text")),
    ("contentURL", .url("file:///notes/orion.md")),
  ]))

  @Test func eachEventIsOneJSONObjectNamedByEvent() {
    let reply = Reply(queryToken: "q1", label: "Count", content: .count(3), stage: "count")
    #expect(AnswerEvent.reply(reply).jsonValue.compactText
      == #"{"event":"reply","status":"complete","stage":"count","reply":{"queryToken":"q1","label":"Count","content":{"type":"count","count":3}}}"#)
    #expect(AnswerEvent.source(AnswerSource(item: Self.item, queryToken: "q1")).jsonValue.compactText
      == #"{"event":"source","queryToken":"q1","item":{"id":"note-52","domain":"notes.work","attributes":{"title":"Orion launch retrospective","contentURL":"file:///notes/orion.md"}}}"#)
    #expect(AnswerEvent.text("Found \"3\"\n").jsonValue.compactText == #"{"event":"text","delta":"Found \"3\"\n"}"#)
    #expect(AnswerEvent.notice("model down").jsonValue.compactText == #"{"event":"notice","message":"model down"}"#)
    let summary = AnswerSummary(
      text: "Found 1 item", sources: [AnswerSource(item: Self.item, queryToken: "q1")], responder: .model("qwen"), toolRounds: 2,
      foundNothing: false)
    #expect(AnswerEvent.done(summary).jsonValue.compactText
      == #"{"event":"done","responder":"model","model":"qwen","toolRounds":2,"sources":["note-52"],"foundNothing":false,"answer":"Found 1 item"}"#)
  }

  @Test func partialRepliesSaySo() {
    let reply = Reply(queryToken: "q1", label: "Search results", content: .items([]), stage: "search", isPartial: true)
    #expect(AnswerEvent.reply(reply).jsonValue["status"] == "partial")
  }
}
