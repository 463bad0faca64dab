import QueryEngine
import SearchIndex

extension AnswerEvent {
  /// The event as one line of `searchlight ask --format json`:
  /// `{"event":"source","item":{...}}`, `{"event":"reply","reply":{...}}` (the reply JSON of
  /// DESIGN §4, with its stage and partial/complete status beside it),
  /// `{"event":"text","delta":"..."}`, `{"event":"notice","message":"..."}`,
  /// `{"event":"cut","reason":"length","limit":512}`,
  /// `{"event":"unsupported","sentence":"...","missing":[...],"dropped":false}`, `{"event":"done",...}`.
  package var jsonValue: JSONValue {
    switch self {
    case .reply(let reply):
      return [
        "event": "reply", "status": .string(reply.isPartial ? "partial" : "complete"), "stage": .string(reply.stage),
        "reply": reply.jsonValue(),
      ]
    case .source(let source):
      return [
        "event": "source", "queryToken": .string(source.queryToken),
        "item": ResultItem(rowid: 0, item: source.item).itemJSON(fetch: AnswerSource.attributes),
      ]
    case .text(let delta):
      return ["event": "text", "delta": .string(delta)]
    case .notice(let message):
      return ["event": "notice", "message": .string(message)]
    case .cut(let cut):
      var object: JSONObject = ["event": "cut", "reason": .string(cut.reason.rawValue)]
      if let limit = cut.limit { object["limit"] = .number(Double(limit)) }
      return .object(object)
    case .unsupported(let unsupported):
      return [
        "event": "unsupported", "sentence": .string(unsupported.sentence),
        "missing": .array(unsupported.missing.map(JSONValue.string)), "dropped": .bool(unsupported.dropped),
      ]
    case .done(let summary):
      var object: JSONObject = ["event": "done"]
      switch summary.responder {
      case .model(let name):
        object["responder"] = "model"
        object["model"] = .string(name)
      case .offline:
        object["responder"] = "offline"
      }
      object["toolRounds"] = .number(Double(summary.toolRounds))
      object["sources"] = .array(summary.sources.map { .string($0.id) })
      object["foundNothing"] = .bool(summary.foundNothing)
      object["answer"] = .string(summary.text)
      return .object(object)
    }
  }
}
