import Foundation
import Assistant
import Testing

/// The wording rules for error descriptions.
@Suite struct ModelErrorTests {
  @Test func descriptionsAreOneLowercaseLine() {
    let errors: [ModelError] = [
      .unreachable(url: "http://127.0.0.1:1/v1/chat/completions", reason: "connection refused"),
      .http(status: 503, body: "loading model"),
      .http(status: 500, body: ""),
      .timeout(seconds: 1.5, idle: true),
      .timeout(seconds: 300, idle: false),
      .malformed(problem: "invalid json in stream chunk", excerpt: "{oops"),
      .cancelled,
    ]
    for error in errors {
      let text = error.description
      #expect(!text.contains("\n"))
      #expect(text.first?.isLowercase == true)
      #expect(error.localizedDescription == text)
    }
    #expect(ModelError.timeout(seconds: 1.5, idle: true).description == "model server sent nothing for 1.50s in the middle of a response")
  }
}
