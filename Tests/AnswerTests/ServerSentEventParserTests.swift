import Foundation
@testable import Assistant
import Testing

/// Event-stream framing, however the bytes are split.
@Suite struct ServerSentEventParserTests {
  @Test func eventsSplitAnywhereAreReassembled() throws {
    let stream = "data: one\r\n\r\n: keep-alive\n\nevent: error\ndata: two\ndata: lines\r\rdata: é\n\n"
    let bytes = Array(stream.utf8)
    // Feed one byte at a time: splits inside CRLF and inside a multi-byte character.
    var parser = ServerSentEventParser()
    var events: [ServerSentEventParser.Event] = []
    for byte in bytes { events += try parser.feed([byte]) }
    events += parser.finish()
    #expect(events == [
      .init(type: "message", data: "one"),
      .init(type: "error", data: "two\nlines"),
      .init(type: "message", data: "é"),
    ])
  }

  @Test func unterminatedFinalEventIsFlushedAtEnd() throws {
    var parser = ServerSentEventParser()
    #expect(try parser.feed(Array("data: [DONE]\n".utf8)).isEmpty)
    #expect(parser.finish() == [.init(type: "message", data: "[DONE]")])
  }
}
