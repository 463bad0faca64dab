import Foundation

/// What `LoopbackHTTPServer` does with one request: a response written step by step, or a
/// misbehaviour (closing, resetting, never answering) that a client must survive.
package struct ScriptedResponse: Sendable {
  /// How the body's end is signalled, so each HTTP/1.1 framing can be exercised.
  package enum Framing: Sendable {
    case contentLength
    case chunked
    /// No length at all: the body ends when the server closes the connection.
    case closeDelimited
  }

  /// One action while writing the body, in order.
  package enum Step: Sendable {
    /// Bytes sent at once (as one chunk when chunked).
    case write(Data)
    /// Waits, watching for the client hanging up meanwhile.
    case pause(Duration)
    /// Holds the rest of the response until the test opens the gate (or 30 s pass).
    case waitFor(TestGate)
    /// Tells the test that the server got this far.
    case open(TestGate)
    /// Resets the connection in the middle of the body.
    case reset
  }

  /// The overall behaviour for the request.
  package enum Kind: Sendable {
    case respond
    /// Closes cleanly (FIN) without sending a byte.
    case closeWithoutResponse
    /// Resets (RST) without sending a byte.
    case resetWithoutResponse
    /// Keeps the connection open and silent until the client gives up.
    case neverRespond
  }

  package var kind: Kind = .respond
  package var status = 200
  package var headers: [(String, String)] = []
  package var framing: Framing = .chunked
  package var steps: [Step] = []

  package init(kind: Kind = .respond, status: Int = 200, headers: [(String, String)] = [], framing: Framing = .chunked, steps: [Step] = []) {
    self.kind = kind
    self.status = status
    self.headers = headers
    self.framing = framing
    self.steps = steps
  }

  /// A JSON body with Content-Length, as non-streaming servers and errors send.
  package static func json(_ body: String, status: Int = 200, headers: [(String, String)] = []) -> ScriptedResponse {
    ScriptedResponse(
      status: status,
      headers: [("Content-Type", "application/json")] + headers,
      framing: .contentLength,
      steps: [.write(Data(body.utf8))]
    )
  }

  /// An event stream writing each payload as its own `data:` event, in its own write.
  package static func events(_ payloads: [String], framing: Framing = .chunked) -> ScriptedResponse {
    ScriptedResponse(
      headers: [("Content-Type", "text/event-stream")],
      framing: framing,
      steps: payloads.map { .write(Data("data: \($0)\n\n".utf8)) }
    )
  }

  /// A plain-text error page with the given status.
  package static func status(_ status: Int, body: String = "") -> ScriptedResponse {
    ScriptedResponse(
      status: status,
      headers: [("Content-Type", "text/plain")],
      framing: .contentLength,
      steps: body.isEmpty ? [] : [.write(Data(body.utf8))]
    )
  }

  package static let neverRespond = ScriptedResponse(kind: .neverRespond)
  package static let closeWithoutResponse = ScriptedResponse(kind: .closeWithoutResponse)
  package static let resetWithoutResponse = ScriptedResponse(kind: .resetWithoutResponse)
}
